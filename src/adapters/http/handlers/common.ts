// Small pieces the handlers share: turning storage failures into 503 problems, and the
// tiles state member that /v2/tlog/checkpoint and /healthz both report.

import { Effect, Option } from "effect"
import { LogNotary } from "../../../app/LogNotary.js"
import { LogReader } from "../../../app/LogReader.js"
import { Publisher } from "../../../app/Publisher.js"
import { ServiceConfig } from "../../../app/ServiceConfig.js"
import { fromUtf8 } from "../../../domain/bytes.js"
import { decodeU64, encodeU64 } from "../../../domain/encoding.js"
import { formatCheckpoint } from "../../../domain/note/checkpoint.js"
import { BodyStore } from "../../../ports/BodyStore.js"
import type { StorageError } from "../../../ports/StorageError.js"
import type { BodyStatusView } from "../../../domain/bodyStatus.js"
import { Unavailable } from "../problem.js"
import { withoutServerPaths } from "../../../domain/http/serverPaths.js"

/** A storage failure answers 503: the request was fine, the service cannot serve it now. */
export const orUnavailable = <A, E, R>(effect: Effect.Effect<A, E | StorageError, R>) =>
  Effect.catchIf(effect, (e): e is StorageError => (e as { _tag?: unknown })?._tag === "StorageError",
    (error) => Effect.fail(Unavailable.of("storage_unavailable", withoutServerPaths(`${error.operation} failed: ${error.detail}`))))

export { tilesState } from "../../../app/LogStatus.js"

/**
 * U64 of the first published checkpoint note whose size covers `size` leaves: a view that
 * names leaves is answered with a signed tree that contains them all. The leaves are
 * committed, so such a checkpoint is at most one merge delay away.
 */
export const checkpointCovering = Effect.gen(function*() {
  const publisher = yield* Publisher
  const { mmdSeconds } = yield* ServiceConfig
  return (size: number) =>
    Effect.flatMap(publisher.awaitCoverage(Math.max(1, size), `${2 * mmdSeconds} seconds`), Option.match({
      onNone: () => Unavailable.fail("not_yet_published", `no published checkpoint covers ${size} leaves yet`),
      onSome: (checkpoint) => Effect.succeed(encodeU64(checkpoint.note))
    }))
})

/**
 * U64 of a checkpoint note at exactly `size` (docs/spec/service.md "Projections": the name
 * view's `checkpoint_note` is "the signed note at that size"): once a published checkpoint
 * covers `size`, its note when it is of that size, else a note the log key signs for the
 * tree of `size` leaves, whose root the published tiles already fix. A client then checks
 * the view against exactly the tree it names, with no leaf after it.
 */
export const checkpointAt = Effect.gen(function*() {
  const covering = yield* checkpointCovering
  const publisher = yield* Publisher
  const reader = yield* LogReader
  const notary = yield* LogNotary
  const { origin } = yield* ServiceConfig
  return (size: number) =>
    Effect.gen(function*() {
      const covered = yield* covering(size)
      const latest = yield* publisher.latest
      if (size < 1 || latest === undefined || latest.size === size) return covered
      const rootHash = yield* reader.rootAt(size)
      return encodeU64(yield* notary.sign(formatCheckpoint({ origin, size, rootHash })))
    })
})

/**
 * The stored bytes of each item's off-leaf body (by the U64 digest `digestOf` gives) when
 * `available` says its body status lets it be shown, else null (hidden by a tombstone,
 * expired, not stored). A page's bodies are read with one lookup (BodyStore.getMany):
 * fifty lookups were half of a page of fifty posts' time.
 */
export const availableBodies = Effect.map(BodyStore, (bodies) =>
  <A>(items: ReadonlyArray<A>, digestOf: (item: A) => string, available: (item: A) => boolean): Effect.Effect<Array<Uint8Array | null>, StorageError> => {
    const shown = items.filter(available)
    return Effect.map(bodies.getMany(shown.map((item) => decodeU64(digestOf(item))!)), (found) => {
      const stored = new Map(shown.map((item, i) => [item, Option.getOrNull(found[i]!)]))
      return items.map((item) => stored.get(item) ?? null)
    })
  })

/** An item that names an off-leaf body (a post, poll question or task). */
type NamesBody = { readonly body_hash: string; readonly body: BodyStatusView }

/**
 * Adds to each item its body's UTF-8 `text` when its body status (domain/bodyStatus.ts, the
 * one rule for every reader) is available and the body is stored, else null.
 */
export const withBodyTexts = Effect.map(availableBodies, (bodiesOf) =>
  <P extends NamesBody>(items: ReadonlyArray<P>): Effect.Effect<Array<P & { readonly text: string | null }>, StorageError> =>
    Effect.map(bodiesOf(items, (item) => item.body_hash, (item) => item.body.state === "available"), (found) =>
      items.map((item, i) => ({ ...item, text: found[i] === null ? null : fromUtf8(found[i]!) }))))

/** withBodyTexts of one item. */
export const withBodyText = Effect.map(withBodyTexts, (withTexts) =>
  <P extends NamesBody>(item: P) => Effect.map(withTexts([item]), ([withText]) => withText!))
