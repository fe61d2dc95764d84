// WriteChecks on the calling thread: the checks run inside the request's fiber. The choice
// for tests and for AICS_CHECK_WORKERS=0.

import { Effect, Layer } from "effect"
import { checkBusySeconds } from "../../app/Metrics.js"
import { Crypto } from "../../ports/Crypto.js"
import { WriteChecks } from "../../ports/WriteChecks.js"
import { checkWrite, type WriteCheckSettings } from "./checkWrite.js"

export const InProcessWriteChecksLive = (settings: WriteCheckSettings): Layer.Layer<WriteChecks, never, Crypto> =>
  Layer.effect(WriteChecks, Effect.map(Crypto, (crypto) => ({
    check: (request, now) => Effect.sync(() => {
      const started = performance.now()
      const result = checkWrite(request, now, settings, crypto)
      mainBusy.unsafeUpdate((performance.now() - started) / 1000, [])
      return result
    })
  })))

/** The checks' time on the event loop, for /metrics (app/Metrics.ts). */
const mainBusy = checkBusySeconds.of(["thread", "main"])
