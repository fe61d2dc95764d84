// The JSON shapes the views share (docs/protocol.md section 10): a key event, a grant, a
// message's public metadata and a capsule write. Members are snake_case as on the wire;
// leaf indexes are integers, times `logged` in Unix ms and `until` in Unix seconds, keys
// did:key or U64, hashes U64.

import { bodyStatus, type BodyStatusView } from "../bodyStatus.js"
import { grantInForce, grantOf } from "../messaging/grants.js"
import type { CapsuleRecord, GrantRecord, KeyEvent, LogState, MessageRecord } from "../write/logState.js"

export type KeyEventView =
  | { readonly type: "claim"; readonly index: number; readonly logged: number; readonly signer: string; readonly kid: string; readonly x25519: string; readonly recovery: string | null }
  | { readonly type: "key.rotate"; readonly index: number; readonly logged: number; readonly signer: string; readonly prev_kid: string; readonly kid: string }
  | { readonly type: "key.x25519"; readonly index: number; readonly logged: number; readonly signer: string; readonly x25519: string }

export const keyEventView = (event: KeyEvent): KeyEventView => {
  switch (event.type) {
    case "claim":
      return { type: event.type, index: event.index, logged: event.logged, signer: event.signer, kid: event.kid, x25519: event.x25519, recovery: event.recovery }
    case "key.rotate":
      return { type: event.type, index: event.index, logged: event.logged, signer: event.signer, prev_kid: event.prevKid, kid: event.kid }
    case "key.x25519":
      return { type: event.type, index: event.index, logged: event.logged, signer: event.signer, x25519: event.x25519 }
  }
}

export interface GrantView {
  readonly index: number
  readonly logged: number
  /** The recipient: the key that signed the grant. */
  readonly signer: string
  readonly sender: string
  readonly use: "dm"
  readonly limit: number | null
  readonly until: number | null
  readonly uses: number
  readonly revoked_index: number | null
  /** Whether the grant is in force at the view's `now` (messaging/grants.ts). */
  readonly in_force: boolean
}

export const grantView = (grant: GrantRecord, now: number): GrantView => ({
  index: grant.index,
  logged: grant.logged,
  signer: grant.signer,
  sender: grant.sender,
  use: grant.use,
  limit: grant.limit,
  until: grant.until,
  uses: grant.uses,
  revoked_index: grant.revokedIndex,
  in_force: grantInForce(grant, now)
})

export interface MessageView {
  readonly index: number
  readonly logged: number
  readonly from: string
  readonly to: string
  readonly grant_index: number
  readonly grant: GrantView
  readonly ct_hash: string
  readonly size: number
  readonly x25519_index: number
  readonly body: BodyStatusView
}

export const messageView = (state: LogState, message: MessageRecord, now: number): MessageView => ({
  index: message.index,
  logged: message.logged,
  from: message.from,
  to: message.to,
  grant_index: message.grantIndex,
  grant: grantView(grantOf(state, message.grantIndex)!, now),
  ct_hash: message.ctHash,
  size: message.size,
  x25519_index: message.x25519Index,
  body: bodyStatus(state, { index: message.index, type: "dm", logged: message.logged }, now)
})

export interface CapsuleView {
  readonly slot: string
  readonly owner: string
  readonly first_index: number
  /** The current write: its leaf, time, ciphertext hash and size, and body status. */
  readonly index: number
  readonly logged: number
  readonly ct_hash: string
  readonly size: number
  readonly body: BodyStatusView
  /** Every write of the slot, log order (the last is `index`). */
  readonly writes: ReadonlyArray<number>
}

/** The view of a slot from its record and every write of the slot (log order: in a slice, the record holds none). */
export const capsuleViewOf = (state: LogState, capsule: CapsuleRecord, writes: ReadonlyArray<number>, now: number): CapsuleView => ({
  slot: capsule.slot,
  owner: capsule.owner,
  first_index: capsule.firstIndex,
  index: capsule.index,
  logged: capsule.logged,
  ct_hash: capsule.ctHash,
  size: capsule.size,
  body: bodyStatus(state, { index: capsule.index, type: "capsule", logged: capsule.logged }, now),
  writes: [...writes]
})
