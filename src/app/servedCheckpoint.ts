// The signed checkpoint as the service serves it: /checkpoint, /tiles/checkpoint and the
// home page `/` read it here, so they cannot disagree. It is the note the publisher last
// wrote to the sink (after its tiles were durable) or adopted from it, from the
// publisher's memory: monitors poll it many times a second, and a file read per poll was
// ~5% of the event loop under bench/write. Before the first publication of this process
// it comes from the sink (an earlier run's), and None when nothing was ever published.

import { Effect, Option } from "effect"
import type { StorageError } from "../ports/StorageError.js"
import { TileSink } from "../ports/TileSink.js"
import { Publisher } from "./Publisher.js"

export const publishedCheckpoint: Effect.Effect<Option.Option<Uint8Array>, StorageError, Publisher | TileSink> =
  Effect.gen(function*() {
    const latest = yield* (yield* Publisher).latest
    if (latest !== undefined) return Option.some(latest.note)
    return yield* (yield* TileSink).readCheckpoint
  })
