// Serving off-leaf bodies with their status (service.md "Body status"): the status comes
// from the domain's rule (src/domain/bodyStatus.ts: tombstoned, expired, available) applied
// to the entry that names the body; the bytes from the body store. A body no entry names,
// or whose bytes are not stored, is unavailable: 404, which proves nothing.

import { Context, Effect, Layer, Option } from "effect"
import { bodyStatus, type BodyEntry, type BodyStatusView } from "../domain/bodyStatus.js"
import { BodyStore } from "../ports/BodyStore.js"
import { Clock } from "../ports/Clock.js"
import type { StorageError } from "../ports/StorageError.js"
import { BodyLedger } from "./BodyLedger.js"
import { Sequencer } from "./Sequencer.js"

export type BodyLookup =
  | { readonly state: "available"; readonly bytes: Uint8Array }
  | { readonly state: "unavailable" }
  | { readonly state: "gone"; readonly status: BodyStatusView }

export class Bodies extends Context.Tag("aics/Bodies")<Bodies, {
  /** The body an entry names (the wire bundle of that entry). */
  readonly ofEntry: (entry: BodyEntry, digest: Uint8Array) => Effect.Effect<BodyLookup, StorageError>
  /** A body by digest (/v2/bodies/{digest}), with the status of the entry that names it. */
  readonly ofDigest: (digest: Uint8Array) => Effect.Effect<BodyLookup, StorageError>
}>() {
  static readonly layer = Layer.effect(Bodies, Effect.gen(function*() {
    const store = yield* BodyStore
    const sequencer = yield* Sequencer
    const ledger = yield* BodyLedger
    const clock = yield* Clock

    const stored = (digest: Uint8Array) =>
      Effect.map(store.get(digest), Option.match({
        onNone: (): BodyLookup => ({ state: "unavailable" }),
        onSome: (bytes): BodyLookup => ({ state: "available", bytes })
      }))

    const ofEntry = (entry: BodyEntry, digest: Uint8Array) =>
      Effect.gen(function*() {
        const status = bodyStatus(yield* sequencer.state, entry, yield* clock.nowMillis)
        return status.state === "available" ? yield* stored(digest) : { state: "gone", status } as const
      })

    return {
      ofEntry,
      ofDigest: (digest) =>
        Effect.flatMap(ledger.entryNaming(digest), (entry) => entry === undefined ? stored(digest) : ofEntry(entry, digest))
    }
  }))
}
