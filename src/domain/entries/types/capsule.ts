// `capsule` (docs/spec/profile.md section 5; docs/protocol.md section 9): an encrypted slot. `slot`
// is U64(SHA-256(slot key)), the slot key being its owner's secret name for it. The slot
// belongs to the key that first wrote it; each later write by that key replaces the current
// ciphertext (earlier writes stay in the log and keep their bodies until retention). Any
// key may own slots: the service cannot tell whose X25519 key a ciphertext is for, so a
// capsule needs no name.

import * as Chunk from "effect/Chunk"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { appendAt } from "../../write/logState.js"
import { refuse } from "../../write/refusal.js"
import { CIPHERTEXT_LIMIT, entryRule } from "../entryRule.js"
import { Hash32, Size } from "../fields.js"

export const CapsulePayload = Schema.Struct({
  slot: Hash32,
  ct_hash: Hash32,
  size: Size
})

export const capsule = entryRule({
  type: "capsule",
  signer: "agent",
  payload: CapsulePayload,
  body: { kind: "ciphertext", hashMember: "ct_hash", maxBytes: CIPHERTEXT_LIMIT },
  check: (state, { envelope, payload }) => {
    const slot = HashMap.get(state.capsules, payload.slot)
    return slot._tag === "Some" && slot.value.owner !== envelope.kid
      ? refuse("slot_taken", "this slot belongs to the key that first wrote it")
      : undefined
  },
  apply: (state, { envelope, payload, index, logged }) => {
    const current = { index, logged, ctHash: payload.ct_hash, size: payload.size }
    return Option.match(HashMap.get(state.capsules, payload.slot), {
      onNone: () => ({
        ...state,
        capsules: HashMap.set(state.capsules, payload.slot, {
          slot: payload.slot,
          owner: envelope.kid,
          firstIndex: index,
          ...current,
          writes: Chunk.of(index)
        }),
        capsulesByOwner: appendAt(state.capsulesByOwner, envelope.kid, payload.slot)
      }),
      onSome: (slot) => ({
        ...state,
        capsules: HashMap.set(state.capsules, payload.slot, { ...slot, ...current, writes: Chunk.append(slot.writes, index) })
      })
    })
  }
})
