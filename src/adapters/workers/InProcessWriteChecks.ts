// WriteChecks on the calling thread: the checks run inside the request's fiber. The choice
// for tests and for AICS_CHECK_WORKERS=0.

import { Effect, Layer } from "effect"
import { Crypto } from "../../ports/Crypto.js"
import { WriteChecks } from "../../ports/WriteChecks.js"
import { checkWrite, type WriteCheckSettings } from "./checkWrite.js"

export const InProcessWriteChecksLive = (settings: WriteCheckSettings): Layer.Layer<WriteChecks, never, Crypto> =>
  Layer.effect(WriteChecks, Effect.map(Crypto, (crypto) => ({
    check: (request, now) => Effect.sync(() => checkWrite(request, now, settings, crypto))
  })))
