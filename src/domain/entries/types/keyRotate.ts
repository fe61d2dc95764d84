// `key.rotate` (docs/spec/profile.md section 5): moves a name to a new Ed25519 key. Signed by the
// name's current key, or by the recovery key its claim named (for a lost or leaked key).
// `new_sig` proves the new key's holder agreed (identity/possession.ts), with prev_kid the
// name's current key at this point of the log. The new key must never have been bound to
// a name. Afterwards only the new key (and the recovery key, for a further rotation, while
// it has never acted for a name itself: bindings.ts standing) acts for the name; the old
// key is unbound for good. The X25519 key and the recovery key stay.
//
// The upgrade of a secret-bound name (docs/protocol.md 17.5): the policy key, which acts
// for the name, signs the rotation with `as` naming it, and `new_sig` proves the new key
// as above (prev_kid the policy key). The name becomes key-bound (tier `key`); the policy
// key, bound to no name, is not unbound. The name has no X25519 key until its new key
// sends a key.x25519.

import * as Chunk from "effect/Chunk"
import * as HashMap from "effect/HashMap"
import * as Schema from "effect/Schema"
import { bindKey, boundNameOf, nameRecordOf, standing, unbindKey } from "../../identity/bindings.js"
import { rotationMessage } from "../../identity/possession.js"
import { refuse } from "../../write/refusal.js"
import { entryRule } from "../entryRule.js"
import { DidKey, NameNorm } from "../fields.js"

export const KeyRotatePayload = Schema.Struct({
  name: Schema.String,
  new_kid: DidKey,
  /** U64 of the new key's 64-byte Ed25519 signature over the rotation message. */
  new_sig: Schema.String,
  /** The secret-bound name a policy-signed rotation upgrades (equal to `name`). */
  as: Schema.optional(NameNorm)
})

export const keyRotate = entryRule({
  type: "key.rotate",
  signer: "agent",
  signers: ["agent", "policy"],
  signerOf: (payload: typeof KeyRotatePayload.Type) => (payload.as === undefined ? "agent" : "policy"),
  payload: KeyRotatePayload,
  body: { kind: "none" },
  check: (state, { envelope, payload, verify }) => {
    const record = nameRecordOf(state, payload.name)
    if (record === undefined) return refuse("name_unclaimed", `${JSON.stringify(payload.name)} is not claimed`)
    if (payload.as !== undefined && (payload.as !== payload.name || record.tier !== "secret")) {
      return refuse("not_authorized", "a policy-signed rotation upgrades the secret-bound name its as names")
    }
    if (standing(state, record, envelope.kid) === undefined) {
      const held = record.recovery === envelope.kid ? boundNameOf(state, envelope.kid) : undefined
      return refuse("not_authorized", held !== undefined
        ? `this key is ${payload.name}'s recovery key but holds or held ${held}: a recovery key that acted for a name rotates none`
        : `only ${payload.name}'s current key or its recovery key rotates it`)
    }
    const held = boundNameOf(state, payload.new_kid)
    if (held !== undefined) return refuse("key_has_name", `the new key holds or held ${held}`)
    // The recovery key keeps its own role: were it the current key too, losing it would
    // lose the name with no way back.
    if (payload.new_kid === record.recovery) return refuse("payload_invalid", "the new key must differ from the recovery key")
    const message = rotationMessage(payload.name, payload.new_kid, envelope.origin, record.kid)
    if (!verify(payload.new_kid, message, payload.new_sig)) {
      return refuse("proof_invalid", `new_sig is not the new key's signature over JCS({name, new_kid, origin, prev_kid: ${record.kid}})`)
    }
    return undefined
  },
  apply: (state, { envelope, payload, index, logged }) => {
    const record = nameRecordOf(state, payload.name)!
    const renamed = {
      ...state,
      names: HashMap.set(state.names, payload.name, {
        ...record,
        tier: "key" as const,
        kid: payload.new_kid,
        kidIndex: index,
        events: Chunk.append(record.events, {
          type: "key.rotate" as const,
          index,
          logged,
          signer: envelope.kid,
          prevKid: record.kid,
          kid: payload.new_kid
        })
      })
    }
    // A secret-bound name's key was the policy key, which speaks for other names too.
    const unbound = record.tier === "secret" ? renamed : unbindKey(renamed, record.kid, index)
    return bindKey(unbound, payload.new_kid, payload.name, index)
  }
})
