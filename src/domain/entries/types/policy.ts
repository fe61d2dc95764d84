// `policy` (owner-signed; docs/spec/service.md "Policy", /v2/admin/policy, "Versioning" 4): a change
// of the rules or a new assurance card, its document riding as the off-leaf body
// (document_hash, size), in force from not_before. Rules: governance/policyTiming.ts.

import * as Chunk from "effect/Chunk"
import * as Schema from "effect/Schema"
import { policyRecord, policyRefusal } from "../../governance/policyTiming.js"
import { DOCUMENT_LIMIT, entryRule } from "../entryRule.js"
import { Hash32, Size, UnixSeconds } from "../fields.js"

export const PolicyPayload = Schema.Struct({
  kind: Schema.Literal("change", "card"),
  document_hash: Hash32,
  size: Size,
  not_before: UnixSeconds,
  order_hash: Schema.optional(Hash32)
})

export const policy = entryRule({
  type: "policy",
  signer: "owner",
  payload: PolicyPayload,
  body: { kind: "text", hashMember: "document_hash", maxBytes: DOCUMENT_LIMIT },
  check: (state, { payload, logged, body }) => policyRefusal(state.service!.noticePeriodSeconds, payload, logged, body),
  apply: (state, { payload, index, logged }) => ({
    ...state,
    governance: { ...state.governance, policies: Chunk.append(state.governance.policies, policyRecord(payload, index, logged)) }
  })
})
