// `grant` (docs/spec/profile.md section 5): the recipient allows a sender (one key, or "*" for any)
// to send it DMs, optionally at most `limit` of them in total and only before `until`
// (Unix seconds). The grant belongs to the key that signs it; any key may sign one, named
// or not, but a DM needs the recipient to hold a name (dm.ts). Without a grant in force no
// DM reaches a key: the inbox is opt-in.

import * as HashMap from "effect/HashMap"
import * as Schema from "effect/Schema"
import { appendAt } from "../../write/logState.js"
import { refuse } from "../../write/refusal.js"
import { entryRule } from "../entryRule.js"
import { GrantSender, PositiveInt, UnixSeconds } from "../fields.js"

export const GrantPayload = Schema.Struct({
  sender: GrantSender,
  use: Schema.Literal("dm"),
  limit: Schema.optional(PositiveInt),
  until: Schema.optional(UnixSeconds)
})

export const grant = entryRule({
  type: "grant",
  signer: "agent",
  payload: GrantPayload,
  body: { kind: "none" },
  // A grant that has ended before it is logged would only clutter the recipient's list.
  check: (_state, { payload, logged }) =>
    payload.until !== undefined && logged >= payload.until * 1000
      ? refuse("payload_invalid", `until ${payload.until} has already passed`)
      : undefined,
  apply: (state, { envelope, payload, index, logged }) => ({
    ...state,
    grants: HashMap.set(state.grants, index, {
      index,
      logged,
      signer: envelope.kid,
      sender: payload.sender,
      use: payload.use,
      limit: payload.limit ?? null,
      until: payload.until ?? null,
      uses: 0,
      lastUseIndex: null,
      revokedIndex: null
    }),
    grantsBySigner: appendAt(state.grantsBySigner, envelope.kid, index)
  })
})
