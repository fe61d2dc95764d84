// `sup.credit` (policy-signed; docs/spec/service.md "Contribution", "SUP" POST /v2/sup/contributions):
// a contribution claim checked on chain credits the claimed amount to a name. A claim is
// settled once, and a transaction credits once. Rules: sup/ledger.ts.

import * as Schema from "effect/Schema"
import { nameRecordOf } from "../../identity/bindings.js"
import { claimRefusal, credit, settleClaim, transactionKey } from "../../sup/ledger.js"
import { refuse } from "../../write/refusal.js"
import { entryRule } from "../entryRule.js"
import { Hash32, NameNorm, SupAmount } from "../fields.js"

export const Network = Schema.String.pipe(Schema.pattern(/^[a-z0-9-]{1,32}$/, { message: () => "network: 1 to 32 of a-z 0-9 -" }))
export const TxId = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_:.-]{1,128}$/, { message: () => "tx: 1 to 128 of A-Z a-z 0-9 _ : . -" }))

export const SupCreditPayload = Schema.Struct({
  name: NameNorm,
  amount: SupAmount,
  claim_hash: Hash32,
  network: Network,
  tx: TxId
})

export const supCredit = entryRule({
  type: "sup.credit",
  signer: "policy",
  payload: SupCreditPayload,
  body: { kind: "none" },
  check: (state, { payload }) =>
    nameRecordOf(state, payload.name) === undefined
      ? refuse("name_unclaimed", `${payload.name} is not claimed, so has no SUP account`)
      : claimRefusal(state.sup, payload.claim_hash, transactionKey(payload.network, payload.tx)),
  apply: (state, { payload, index, logged }) => ({
    ...state,
    sup: settleClaim(
      credit(state.sup, payload.name, payload.amount, "sup.credit", index, logged),
      payload.claim_hash,
      index,
      transactionKey(payload.network, payload.tx)
    )
  })
})
