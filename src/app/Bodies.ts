// Serving off-leaf bodies with their status (docs/spec/service.md "Body status"): the status comes
// from the domain's rule (src/domain/bodyStatus.ts: tombstoned, expired, available) applied
// to the entry that names the body, or for a body fetched by digest to every entry that
// names it (digestStatus: available while any of them makes it available); the bytes from
// the body store. A body no entry names, or whose bytes are not stored, is unavailable:
// 404, which proves nothing. presenceOfEntry gives the same answer without the bytes, for a
// header that needs only the status (a document that does not ride in the wire bundle).
// A status reads resident parts (the tombstones and the retention: domain/write/stateAreas.ts),
// which the projection holds whole, and for a digest the entries naming it, from the
// projection store's `bodyNaming` list, newest first: the read stops at the first entry
// that makes the body available, since no other entry can change that answer.

import { Context, Effect, Layer, Option } from "effect"
import { bodyStatus, digestStatus, type BodyEntry, type BodyStatusView } from "../domain/bodyStatus.js"
import { encodeU64 } from "../domain/encoding.js"
import { BodyStore } from "../ports/BodyStore.js"
import type { BodyBesideLeaf } from "../ports/LogStore.js"
import { Clock } from "../ports/Clock.js"
import type { StorageError } from "../ports/StorageError.js"
import { NAMING_PAGE } from "./BodyLedger.js"
import { newestUntil } from "./listReads.js"
import { StateReader } from "./StateReader.js"

/** Hidden by a tombstone or expired: the status says which. */
interface Gone {
  readonly state: "gone"
  readonly status: BodyStatusView
}

export type BodyLookup =
  | { readonly state: "available"; readonly bytes: Uint8Array }
  | { readonly state: "unavailable" }
  | Gone

/** A BodyLookup without the bytes. */
export type BodyPresence = { readonly state: "available" | "unavailable" } | Gone

export class Bodies extends Context.Tag("aics/Bodies")<Bodies, {
  /** The body an entry names (the wire bundle of that entry). */
  readonly ofEntry: (entry: BodyEntry, digest: Uint8Array, read?: BodyBesideLeaf) => Effect.Effect<BodyLookup, StorageError>
  /** ofEntry's state without reading the bytes (the store's has). */
  readonly presenceOfEntry: (entry: BodyEntry, digest: Uint8Array, read?: BodyBesideLeaf) => Effect.Effect<BodyPresence, StorageError>
  /** A body by digest (/v2/bodies/{digest}), with the status every entry naming it gives it. */
  readonly ofDigest: (digest: Uint8Array) => Effect.Effect<BodyLookup, StorageError>
}>() {
  static readonly layer = Layer.effect(Bodies, Effect.gen(function*() {
    const store = yield* BodyStore
    const reader = yield* StateReader
    const clock = yield* Clock

    // `read`: what the log store's read of the leaf found of the body already (LogStore's
    // readEntryAndHashes, on PostgreSQL), which spares asking the body store again.
    const stored = (digest: Uint8Array, read?: BodyBesideLeaf) =>
      read?.stored === false ? Effect.succeed<BodyLookup>({ state: "unavailable" })
      : read?.bytes !== undefined ? Effect.succeed<BodyLookup>({ state: "available", bytes: read.bytes })
      : Effect.map(store.get(digest), Option.match({
        onNone: (): BodyLookup => ({ state: "unavailable" }),
        onSome: (bytes): BodyLookup => ({ state: "available", bytes })
      }))

    const present = (digest: Uint8Array, read?: BodyBesideLeaf) =>
      read !== undefined ? Effect.succeed<BodyPresence>({ state: read.stored ? "available" : "unavailable" })
      : Effect.map(store.has(digest), (has): BodyPresence => ({ state: has ? "available" : "unavailable" }))

    /** What `look` finds when the status is available (or none applies), else the status. */
    const withStatus = <A>(status: BodyStatusView | undefined, look: Effect.Effect<A, StorageError>): Effect.Effect<A | Gone, StorageError> =>
      status === undefined || status.state === "available" ? look : Effect.succeed<Gone>({ state: "gone", status })

    const statusOfEntry = (entry: BodyEntry) =>
      Effect.gen(function*() {
        return bodyStatus(yield* reader.resident, entry, yield* clock.nowMillis)
      })

    return {
      ofEntry: (entry, digest, read) =>
        Effect.flatMap(statusOfEntry(entry), (status) => withStatus(status, stored(digest, read))),
      presenceOfEntry: (entry, digest, read) => Effect.flatMap(statusOfEntry(entry), (status) => withStatus(status, present(digest, read))),
      ofDigest: (digest) =>
        Effect.gen(function*() {
          const state = yield* reader.resident
          const now = yield* clock.nowMillis
          const naming: Array<BodyEntry> = []
          yield* newestUntil<BodyEntry, never>(reader, "bodyNaming", encodeU64(digest), NAMING_PAGE, (page) =>
            Effect.sync(() => {
              for (const entry of page) {
                naming.push(entry)
                if (bodyStatus(state, entry, now).state === "available") return true
              }
              return false
            }))
          return yield* withStatus(digestStatus(state, naming, now), stored(digest))
        })
    }
  }))
}
