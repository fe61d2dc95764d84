// Serving off-leaf bodies with their status (service.md "Body status"): available,
// tombstoned (hidden by an owner tombstone leaf), expired (DM and capsule ciphertext past
// retention) or unavailable (no body stored under that hash: 404, which proves nothing).
// Tombstones and expiry come from the projections of later entry types; until a leaf
// hides or expires a body, a stored body is available.

import { Context, Effect, Layer, Option } from "effect"
import { BodyStore } from "../ports/BodyStore.js"
import type { StorageError } from "../ports/StorageError.js"

export type BodyStatus =
  | { readonly state: "available"; readonly bytes: Uint8Array }
  | { readonly state: "tombstoned"; readonly tombstoneIndex: number; readonly reasonCode: string }
  | { readonly state: "expired"; readonly policyIndex: number }
  | { readonly state: "unavailable" }

/** The X-AICS-Body-Status header value of a status. */
export const bodyStatusHeader = (status: BodyStatus): string => {
  switch (status.state) {
    case "available":
      return "available"
    case "tombstoned":
      return `tombstoned;tombstone_index=${status.tombstoneIndex};reason_code=${status.reasonCode}`
    case "expired":
      return `expired;policy_index=${status.policyIndex}`
    case "unavailable":
      return "unavailable"
  }
}

export class Bodies extends Context.Tag("aics/Bodies")<Bodies, {
  readonly status: (digest: Uint8Array) => Effect.Effect<BodyStatus, StorageError>
}>() {
  static readonly layer = Layer.effect(Bodies, Effect.gen(function*() {
    const store = yield* BodyStore
    return {
      status: (digest) =>
        Effect.map(store.get(digest), Option.match({
          onNone: (): BodyStatus => ({ state: "unavailable" }),
          onSome: (bytes): BodyStatus => ({ state: "available", bytes })
        }))
    }
  }))
}
