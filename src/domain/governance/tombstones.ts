// Tombstones: the `tombstoned` state of "Body status" (docs/spec/service.md "States and transitions",
// "Body status"; "Owner operations" `POST /v2/admin/tombstones`; AICS-1 10.3).
//
//   available --tombstone {target_index, reason_code}--> tombstoned (for good; the leaf stays)
//
// A tombstone names the leaf whose off-leaf body it hides and one reason from the closed
// list below. Refusals: `payload_invalid` (the target is not an earlier leaf that names a
// body, or is the charter), `already_tombstoned` (a body is hidden once). A tombstone
// outranks expiry (bodyStatus.ts).

import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import type { LogState } from "../write/logState.js"
import { refuse, type Refusal } from "../write/refusal.js"

/** The closed list of reasons (docs/protocol.md section 11.2). */
export const TOMBSTONE_REASONS = [
  "illegal_content",
  "privacy",
  "impersonation",
  "harassment",
  "spam",
  "malware",
  "credential_leak",
  "court_order",
  "notice_upheld"
] as const

export type TombstoneReason = typeof TOMBSTONE_REASONS[number]

export interface TombstoneRecord {
  /** The tombstone leaf, and the leaf whose body it hides. */
  readonly index: number
  readonly logged: number
  readonly target: number
  readonly reasonCode: TombstoneReason
}

export const tombstoneOf = (state: Pick<LogState, "governance">, target: number): TombstoneRecord | undefined =>
  Option.getOrUndefined(HashMap.get(state.governance.tombstones, target))

export const tombstoneRefusal = (state: LogState, target: number): Refusal | undefined => {
  if (target === 0 || !HashMap.has(state.bodies, target)) {
    return refuse("payload_invalid", `leaf ${target} names no body a tombstone can hide`)
  }
  const existing = tombstoneOf(state, target)
  return existing !== undefined
    ? refuse("already_tombstoned", `the body of leaf ${target} is already hidden by leaf ${existing.index}`)
    : undefined
}

export const applyTombstone = (state: LogState, record: TombstoneRecord): LogState => ({
  ...state,
  governance: { ...state.governance, tombstones: HashMap.set(state.governance.tombstones, record.target, record) }
})

/**
 * The tombstones logged at or after leaf `from`, in log order, at most `limit`: the next of
 * retention's tombstones' walk (app/BodyLedger.ts), which deletes a hidden body's bytes once
 * no entry needs them. Tombstones are the owner's acts, resident and few: a sort of them is
 * cheap.
 */
export const tombstonesFrom = (state: Pick<LogState, "governance">, from: number, limit: number): ReadonlyArray<TombstoneRecord> =>
  [...HashMap.values(state.governance.tombstones)]
    .filter((record) => record.index >= from)
    .sort((a, b) => a.index - b.index)
    .slice(0, limit)
