// `key.x25519` (docs/spec/profile.md section 5): sets a new X25519 (encryption) key for a name. Only
// the name's current key signs it; the recovery key can only rotate. From this leaf on, a
// dm to the name's key must be encrypted to the new X25519 key (its x25519_index is this
// leaf), so older ciphertext stays readable with the old private key only.

import * as Chunk from "effect/Chunk"
import * as HashMap from "effect/HashMap"
import * as Schema from "effect/Schema"
import { nameRecordOf } from "../../identity/bindings.js"
import { refuse } from "../../write/refusal.js"
import { entryRule } from "../entryRule.js"
import { X25519Key } from "../fields.js"

export const KeyX25519Payload = Schema.Struct({
  name: Schema.String,
  x25519: X25519Key
})

export const keyX25519 = entryRule({
  type: "key.x25519",
  signer: "agent",
  payload: KeyX25519Payload,
  body: { kind: "none" },
  check: (state, { envelope, payload }) => {
    const record = nameRecordOf(state, payload.name)
    if (record === undefined) return refuse("name_unclaimed", `${JSON.stringify(payload.name)} is not claimed`)
    if (record.kid !== envelope.kid) return refuse("not_authorized", `only ${payload.name}'s current key sets its X25519 key`)
    return undefined
  },
  apply: (state, { envelope, payload, index, logged }) => {
    const record = nameRecordOf(state, payload.name)!
    return {
      ...state,
      names: HashMap.set(state.names, payload.name, {
        ...record,
        x25519: payload.x25519,
        x25519Index: index,
        events: Chunk.append(record.events, {
          type: "key.x25519" as const,
          index,
          logged,
          signer: envelope.kid,
          x25519: payload.x25519
        })
      })
    }
  }
})
