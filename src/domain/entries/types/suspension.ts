// `suspension` (owner-signed; docs/spec/service.md "Suspension", /v2/admin/suspensions): with `order`
// it suspends a key or a name (until `until`, when given); without `order`, with `until` at
// or before now, it ends the suspension in force. Rules: governance/suspension.ts.

import * as Schema from "effect/Schema"
import { applySuspension, suspensionRefusal } from "../../governance/suspension.js"
import { entryRule } from "../entryRule.js"
import { Hash32, Subject, UnixSeconds } from "../fields.js"

export const SuspensionPayload = Schema.Struct({
  subject: Subject,
  order: Schema.optional(Hash32),
  until: Schema.optional(UnixSeconds)
})

export const suspension = entryRule({
  type: "suspension",
  signer: "owner",
  payload: SuspensionPayload,
  body: { kind: "none" },
  check: (state, { payload, logged }) => suspensionRefusal(state, payload, logged),
  apply: (state, { payload, index, logged }) => ({
    ...state,
    governance: { ...state.governance, suspensions: applySuspension(state.governance.suspensions, payload, index, logged) }
  })
})
