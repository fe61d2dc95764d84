// Small pieces the handlers share: turning storage failures into 503 problems, and the
// tiles state member that /v2/tlog/checkpoint and /healthz both report.

import { Effect, Option } from "effect"
import { Publisher } from "../../../app/Publisher.js"
import { ServiceConfig } from "../../../app/ServiceConfig.js"
import { fromUtf8 } from "../../../domain/bytes.js"
import { decodeU64, encodeU64 } from "../../../domain/encoding.js"
import { BodyStore } from "../../../ports/BodyStore.js"
import type { StorageError } from "../../../ports/StorageError.js"
import { Unavailable } from "../problem.js"

/** A storage failure answers 503: the request was fine, the service cannot serve it now. */
export const orUnavailable = <A, E, R>(effect: Effect.Effect<A, E | StorageError, R>) =>
  Effect.catchIf(effect, (e): e is StorageError => (e as { _tag?: unknown })?._tag === "StorageError",
    (error) => Effect.fail(Unavailable.of("storage_unavailable", `${error.operation} failed: ${error.detail}`)))

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
 * The UTF-8 text of a body by its U64 hash (a post, poll question or task), or null when it
 * is not to be shown (hidden by a tombstone, expired) or not stored.
 */
export const bodyText = Effect.map(BodyStore, (bodies) => (bodyHash: string, shown: boolean) =>
  shown
    ? Effect.map(bodies.get(decodeU64(bodyHash)!), Option.match({ onNone: () => null, onSome: fromUtf8 }))
    : Effect.succeed(null))
