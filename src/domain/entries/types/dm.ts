// `dm` (docs/spec/profile.md section 5, docs/spec/service.md "Messaging and capsules"; docs/protocol.md
// section 9 for the HPKE profile): an encrypted direct message. The leaf carries public
// metadata only; the ciphertext is the off-leaf body (ct_hash, size, at most 64 KiB).
//
// Refusals, in this order:
//   payload_invalid    grant_index is not a grant leaf
//   recipient_unknown  `to` holds no name: only a name carries an X25519 key to encrypt to (the
//                      policy key, which speaks for the secret-bound names, holds none)
//   grant_required     the grant does not admit this DM at `logged` (messaging/grants.ts)
//   recipient_unknown  the name has no X25519 key (secret-bound, or upgraded before key.x25519)
//   payload_invalid    x25519_index set no X25519 key of the name bound to `to`
//   x25519_stale       it did, but a later leaf replaced that key: only the current X25519
//                      key is accepted, so no message goes to a key its owner retired

import * as Chunk from "effect/Chunk"
import * as HashMap from "effect/HashMap"
import * as Schema from "effect/Schema"
import { currentNameOf, nameRecordOf } from "../../identity/bindings.js"
import { grantOf, grantRefusal } from "../../messaging/grants.js"
import { appendAt } from "../../write/logState.js"
import { refuse } from "../../write/refusal.js"
import { CIPHERTEXT_LIMIT, entryRule } from "../entryRule.js"
import { DidKey, Hash32, LeafIndex, Size } from "../fields.js"

export const DmPayload = Schema.Struct({
  to: DidKey,
  grant_index: LeafIndex,
  ct_hash: Hash32,
  size: Size,
  x25519_index: LeafIndex
})

export const dm = entryRule({
  type: "dm",
  signer: "agent",
  payload: DmPayload,
  body: { kind: "ciphertext", hashMember: "ct_hash", maxBytes: CIPHERTEXT_LIMIT },
  check: (state, { envelope, payload, logged }) => {
    const cited = grantOf(state, payload.grant_index)
    if (cited === undefined) return refuse("payload_invalid", `leaf ${payload.grant_index} is not a grant`)
    const name = currentNameOf(state, payload.to)
    if (name === undefined) {
      // A secret-bound name's key is the policy key, which holds no name of its own: say why
      // the name the sender meant cannot be written to.
      return refuse("recipient_unknown", payload.to === state.service?.policyKid
        ? "the recipient key is the service's policy key, which speaks for the secret-bound names: they are bound by a secret, not a key of their own, so have no X25519 key to encrypt to and receive no DMs"
        : "the recipient key holds no name, so no X25519 key")
    }
    const lapse = grantRefusal(cited, envelope.kid, payload.to, logged)
    if (lapse !== undefined) return refuse("grant_required", lapse)
    const record = nameRecordOf(state, name)!
    // A name without an X25519 key (secret-bound, or upgraded and not yet set) has nothing to encrypt to.
    if (record.x25519Index === null || record.x25519 === "") {
      return refuse("recipient_unknown", record.tier === "secret"
        ? `${name} is secret-bound (bound by a secret, not a key of its own), so has no X25519 key to encrypt to`
        : `${name} has no X25519 key to encrypt to: its key has not sent key.x25519 since it took the name`)
    }
    if (payload.x25519_index !== record.x25519Index) {
      const earlier = Chunk.some(record.events, (e) => e.type !== "key.rotate" && e.index === payload.x25519_index)
      return earlier
        ? refuse("x25519_stale", `${name}'s X25519 key is now the one leaf ${record.x25519Index} set`)
        : refuse("payload_invalid", `leaf ${payload.x25519_index} set no X25519 key of ${name}`)
    }
    return undefined
  },
  apply: (state, { envelope, payload, index, logged }) => {
    const cited = grantOf(state, payload.grant_index)!
    return {
      ...state,
      grants: HashMap.set(state.grants, cited.index, { ...cited, uses: cited.uses + 1, lastUseIndex: index }),
      inboxes: appendAt(state.inboxes, payload.to, {
        index,
        logged,
        from: envelope.kid,
        to: payload.to,
        grantIndex: payload.grant_index,
        ctHash: payload.ct_hash,
        size: payload.size,
        x25519Index: payload.x25519_index
      })
    }
  }
})
