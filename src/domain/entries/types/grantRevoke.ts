// `grant.revoke` (docs/spec/profile.md section 5): the grant's signer withdraws it. From this leaf on
// no DM may cite it; DMs it admitted before stay. A grant is revoked once.

import * as HashMap from "effect/HashMap"
import * as Schema from "effect/Schema"
import { grantOf } from "../../messaging/grants.js"
import { refuse } from "../../write/refusal.js"
import { entryRule } from "../entryRule.js"
import { LeafIndex } from "../fields.js"

export const GrantRevokePayload = Schema.Struct({
  grant_index: LeafIndex
})

export const grantRevoke = entryRule({
  type: "grant.revoke",
  signer: "agent",
  payload: GrantRevokePayload,
  body: { kind: "none" },
  check: (state, { envelope, payload }) => {
    const target = grantOf(state, payload.grant_index)
    if (target === undefined) return refuse("payload_invalid", `leaf ${payload.grant_index} is not a grant`)
    if (target.signer !== envelope.kid) return refuse("not_authorized", `only the key that signed grant ${target.index} revokes it`)
    if (target.revokedIndex !== null) return refuse("grant_revoked", `grant ${target.index} was revoked by leaf ${target.revokedIndex}`)
    return undefined
  },
  apply: (state, { payload, index }) => ({
    ...state,
    grants: HashMap.set(state.grants, payload.grant_index, { ...grantOf(state, payload.grant_index)!, revokedIndex: index })
  })
})
