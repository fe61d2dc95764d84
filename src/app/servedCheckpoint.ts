// The signed checkpoint as the service serves it: /checkpoint, /tiles/checkpoint and the
// home page `/` read it here, so they cannot disagree. It is the note the publisher last
// wrote to the sink (after its tiles were durable) or adopted from it, from the
// publisher's memory: monitors poll it many times a second, and a file read per poll was
// ~5% of the event loop under bench/write. Before the first publication of this process
// it comes from the sink (an earlier run's), and None when nothing was ever published.
//
// The witnesses' cosignature lines of that checkpoint (CosignatureCollector) follow the
// log's signature: a client that knows only the log key ignores them (C2SP signed-note),
// one that knows the witnesses counts them.

import { Effect, Option } from "effect"
import { withSignatureLines } from "../domain/note/cosignature.js"
import type { StorageError } from "../ports/StorageError.js"
import { TileSink } from "../ports/TileSink.js"
import { CosignatureCollector } from "./CosignatureCollector.js"
import { Publisher, type PublishedCheckpoint } from "./Publisher.js"

/** The published checkpoint's note with the cosignature lines collected for its size. */
export const cosignedNote = (latest: PublishedCheckpoint): Effect.Effect<Uint8Array, never, CosignatureCollector> =>
  Effect.flatMap(CosignatureCollector, (collector) =>
    Effect.map(collector.linesAt(latest.size), (lines) => withSignatureLines(latest.note, lines)))

export const publishedCheckpoint: Effect.Effect<Option.Option<Uint8Array>, StorageError, Publisher | TileSink | CosignatureCollector> =
  Effect.gen(function*() {
    const latest = yield* (yield* Publisher).latest
    if (latest !== undefined) return Option.some(yield* cosignedNote(latest))
    return yield* (yield* TileSink).readCheckpoint
  })
