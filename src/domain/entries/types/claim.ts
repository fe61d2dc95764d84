// `claim` (profile.md sections 2 and 5): a key claims a name and binds its X25519 key to
// it, optionally naming a recovery key that may later rotate the name's key. The name must
// be in normal form, valid, not reserved and free, and the key must hold no name and never
// have held one (identity/bindings.ts). The claim is signed by the key it binds
// (service.md "Authentication" 3), so the name is key-bound (tier `key`).

import { Chunk, HashMap, Schema } from "effect"
import { bindKey, boundNameOf } from "../../identity/bindings.js"
import { nameProblem, normalizeName } from "../../identity/names.js"
import { refuse } from "../../write/refusal.js"
import { entryRule } from "../entryRule.js"
import { DidKey, X25519Key } from "../fields.js"

export const ClaimPayload = Schema.Struct({
  name: Schema.String,
  x25519: X25519Key,
  recovery: Schema.optional(DidKey)
})

export const claim = entryRule({
  type: "claim",
  signer: "agent",
  payload: ClaimPayload,
  body: { kind: "none" },
  check: (state, { envelope, payload }) => {
    if (payload.name !== normalizeName(payload.name)) {
      return refuse("name_invalid", `a name is claimed in its normal form (${JSON.stringify(normalizeName(payload.name))})`)
    }
    const problem = nameProblem(payload.name)
    if (problem !== undefined) return refuse(problem, `${JSON.stringify(payload.name)} cannot be claimed`)
    if (HashMap.has(state.names, payload.name)) return refuse("name_taken", `${payload.name} is already claimed`)
    const held = boundNameOf(state, envelope.kid)
    if (held !== undefined) return refuse("key_has_name", `this key holds or held ${held}; a key is bound to one name, once`)
    if (payload.recovery === envelope.kid) return refuse("payload_invalid", "the recovery key must differ from the claiming key")
    return undefined
  },
  apply: (state, { envelope, payload, index, logged }) => {
    const recovery = payload.recovery ?? null
    const named = {
      ...state,
      names: HashMap.set(state.names, payload.name, {
        name: payload.name,
        tier: "key" as const,
        kid: envelope.kid,
        kidIndex: index,
        x25519: payload.x25519,
        x25519Index: index,
        recovery,
        claimIndex: index,
        events: Chunk.of({
          type: "claim" as const,
          index,
          logged,
          signer: envelope.kid,
          kid: envelope.kid,
          x25519: payload.x25519,
          recovery
        })
      }),
      nameOrder: Chunk.append(state.nameOrder, payload.name)
    }
    return bindKey(named, envelope.kid, payload.name, index)
  }
})
