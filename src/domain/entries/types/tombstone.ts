// `tombstone` (owner-signed; docs/spec/service.md "Owner operations" /v2/admin/tombstones, "Body
// status"): hides the off-leaf body of one earlier leaf for a reason from the closed list.
// The leaf it hides stays. Rules: governance/tombstones.ts.

import * as HashMap from "effect/HashMap"
import * as Schema from "effect/Schema"
import { applyTombstone, TOMBSTONE_REASONS, tombstoneRefusal } from "../../governance/tombstones.js"
import { entryRule } from "../entryRule.js"
import { LeafIndex } from "../fields.js"

export const TombstonePayload = Schema.Struct({
  target_index: LeafIndex,
  reason_code: Schema.Literal(...TOMBSTONE_REASONS)
})

export const tombstone = entryRule({
  type: "tombstone",
  signer: "owner",
  payload: TombstonePayload,
  body: { kind: "none" },
  check: (state, { payload }) => tombstoneRefusal(state, payload.target_index),
  apply: (state, { payload, index, logged }) => {
    const next = applyTombstone(state, { index, logged, target: payload.target_index, reasonCode: payload.reason_code })
    return { ...next, governance: { ...next.governance, tombstoneLeaves: HashMap.set(next.governance.tombstoneLeaves, index, payload.target_index) } }
  }
})
