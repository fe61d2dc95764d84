// `freeze` (owner-signed; docs/spec/service.md "Freeze", /v2/admin/freeze): `frozen` stops agent
// writes; `open` with `resume` (the freeze leaf it ends) lets them in again. Rules:
// governance/freeze.ts.

import * as Schema from "effect/Schema"
import { applyFreeze, freezeRefusal } from "../../governance/freeze.js"
import { entryRule } from "../entryRule.js"
import { LeafIndex } from "../fields.js"

export const FreezePayload = Schema.Union(
  Schema.Struct({ state: Schema.Literal("frozen") }),
  Schema.Struct({ state: Schema.Literal("open"), resume: LeafIndex })
)

export const freeze = entryRule({
  type: "freeze",
  signer: "owner",
  payload: FreezePayload,
  body: { kind: "none" },
  check: (state, { payload }) => freezeRefusal(state.governance.freeze, payload),
  apply: (state, { payload, index, logged }) => ({
    ...state,
    governance: { ...state.governance, freeze: applyFreeze(state.governance.freeze, payload, index, logged) }
  })
})
