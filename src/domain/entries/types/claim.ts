// `claim` (docs/spec/profile.md sections 2 and 5): a name is claimed, in one of two tiers.
//
// Key-bound (tier `key`): a key claims a name and binds its X25519 key to it, optionally
// naming a recovery key that may later rotate the name's key. The claim is signed by the
// key it binds (docs/spec/service.md "Authentication" 3), and the key must hold no name and never
// have held one (identity/bindings.ts); so must the recovery key (docs/protocol.md 10.1).
//
// Secret-bound (tier `secret`, docs/spec/profile.md "Two tiers of names"; docs/protocol.md 17.5):
// claimed through the text gate with a secret. The leaf is signed by the policy key with
// payload `{name, as}`, `as` naming the name (equal to `name`); the secret's verifier stays
// off the log. The policy key is bound to no name, so such a name has no key of its own
// and no X25519 key (`x25519` is ""): nothing can be encrypted to it, and it rests on the
// service's word.
//
// Either way the name must be in normal form, valid, not reserved and free.

import * as Chunk from "effect/Chunk"
import * as HashMap from "effect/HashMap"
import * as Schema from "effect/Schema"
import { bindKey, boundNameOf } from "../../identity/bindings.js"
import { nameProblem, normalizeName } from "../../identity/names.js"
import type { LogState } from "../../write/logState.js"
import { refuse, type Refusal } from "../../write/refusal.js"
import { entryRule } from "../entryRule.js"
import { DidKey, X25519Key } from "../fields.js"

export const KeyClaimPayload = Schema.Struct({
  name: Schema.String,
  x25519: X25519Key,
  recovery: Schema.optional(DidKey)
})

export const SecretClaimPayload = Schema.Struct({
  name: Schema.String,
  as: Schema.String
})

export const ClaimPayload = Schema.Union(KeyClaimPayload, SecretClaimPayload)
type Claim = typeof ClaimPayload.Type

/** A secret-bound claim (payload `{name, as}`), which the policy key signs (the rule's signerOf). */
export const isSecretClaim = (payload: Claim): payload is typeof SecretClaimPayload.Type => "as" in payload

/**
 * What a claim's payload alone decides, without the state: a secret-bound claim's `as` is
 * the name it claims. The rule's check asks it; so does a client that reads a claim's leaf
 * to see which key it bound (src/client/nameLookup.ts keyEstablishedBy), with the signer
 * the rule's signerOf names (the policy key leaf 0 names, for a secret-bound claim).
 */
export const claimPayloadRefusal = (payload: Claim): Refusal | undefined =>
  isSecretClaim(payload) && payload.as !== payload.name
    ? refuse("payload_invalid", "a secret-bound claim's as is the name it claims")
    : undefined

/** Why `name` cannot be claimed now (the rule's own check; the text gate asks it before anything is signed or hashed). */
export const nameRefusal = (state: LogState, name: string): Refusal | undefined => {
  if (name !== normalizeName(name)) {
    return refuse("name_invalid", `a name is claimed in its normal form (${JSON.stringify(normalizeName(name))})`)
  }
  const problem = nameProblem(name)
  if (problem !== undefined) return refuse(problem, `${JSON.stringify(name)} cannot be claimed`)
  if (HashMap.has(state.names, name)) return refuse("name_taken", `${name} is already claimed`)
  return undefined
}

export const claim = entryRule({
  type: "claim",
  signer: "agent",
  signers: ["agent", "policy"],
  signerOf: (payload: Claim) => (isSecretClaim(payload) ? "policy" : "agent"),
  payload: ClaimPayload,
  body: { kind: "none" },
  check: (state, { envelope, payload }) => {
    const refusal = nameRefusal(state, payload.name)
    if (refusal !== undefined) return refusal
    if (isSecretClaim(payload)) return claimPayloadRefusal(payload)
    const held = boundNameOf(state, envelope.kid)
    if (held !== undefined) return refuse("key_has_name", `this key holds or held ${held}; a key is bound to one name, once`)
    if (payload.recovery === envelope.kid) return refuse("payload_invalid", "the recovery key must differ from the claiming key")
    // A recovery key is kept apart from the keys in daily use (identity/bindings.ts
    // recoveryStanding): one that holds or held a name would rotate nothing.
    const recoveryHeld = payload.recovery === undefined ? undefined : boundNameOf(state, payload.recovery)
    if (recoveryHeld !== undefined) {
      return refuse("payload_invalid", `the recovery key holds or held ${recoveryHeld}: a recovery key is one that never acted for a name`)
    }
    return undefined
  },
  apply: (state, { envelope, payload, index, logged }) => {
    const secret = isSecretClaim(payload)
    const x25519 = secret ? "" : payload.x25519
    const recovery = secret ? null : payload.recovery ?? null
    const named = {
      ...state,
      names: HashMap.set(state.names, payload.name, {
        name: payload.name,
        tier: secret ? "secret" as const : "key" as const,
        kid: envelope.kid,
        kidIndex: index,
        x25519,
        x25519Index: secret ? null : index,
        recovery,
        claimIndex: index,
        events: Chunk.of({
          type: "claim" as const,
          index,
          logged,
          signer: envelope.kid,
          kid: envelope.kid,
          x25519,
          recovery
        })
      }),
      nameOrder: Chunk.append(state.nameOrder, payload.name)
    }
    const withRecovery = recovery === null || HashMap.has(state.recoveryOf, recovery)
      ? named
      : { ...named, recoveryOf: HashMap.set(state.recoveryOf, recovery, payload.name) }
    // The policy key speaks for every secret-bound name and is bound to none.
    return secret ? withRecovery : bindKey(withRecovery, envelope.kid, payload.name, index)
  }
})
