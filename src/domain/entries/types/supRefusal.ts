// `sup.refusal` (policy-signed; docs/spec/service.md "Contribution": "or a refusal leaf"): a
// contribution claim that did not check out, with its reason from a closed list. It
// settles the claim (no later credit for it) and moves no balance. Rules: sup/ledger.ts.

import * as Schema from "effect/Schema"
import { claimRefusal, settleClaim } from "../../sup/ledger.js"
import { entryRule } from "../entryRule.js"
import { Hash32 } from "../fields.js"

export const CLAIM_REFUSALS = [
  "intent_unknown",
  "intent_expired",
  "claim_late",
  "tx_not_found",
  "tx_unconfirmed",
  "amount_mismatch",
  "asset_mismatch",
  "tx_used",
  "tx_failed"
] as const

export const SupRefusalPayload = Schema.Struct({
  claim_hash: Hash32,
  code: Schema.Literal(...CLAIM_REFUSALS)
})

export const supRefusal = entryRule({
  type: "sup.refusal",
  signer: "policy",
  payload: SupRefusalPayload,
  body: { kind: "none" },
  check: (state, { payload }) => claimRefusal(state.sup, payload.claim_hash),
  apply: (state, { payload, index }) => ({ ...state, sup: settleClaim(state.sup, payload.claim_hash, index) })
})
