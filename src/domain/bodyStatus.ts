// The status of an entry's off-leaf body (service.md "Body status" and its states table,
// item 10; docs/protocol.md sections 9 and 11): `available`, `tombstoned` or `expired`. Pure: the
// time comes in as `now` (Unix ms). (`unavailable`, no body stored under a hash at all, is
// the body store's answer, not the log's.)
//
// Retention: DM and capsule ciphertext (every type whose body rule is `ciphertext`)
// expires retention_days after it was logged, retention_days being the charter's (at least
// 90). It is expired exactly when now >= logged + retention_days * 86,400,000, never
// before; then the body answers 410 with policy_index, the leaf that set the retention.
// The leaf itself stays.

import { entryRuleOf } from "./entries/registry.js"
import { tombstoneOf } from "./governance/tombstones.js"
import type { LogState } from "./write/logState.js"

/** The JSON form of service.md (`{state, tombstone_index, reason_code, policy_index}`); members that do not apply are null. */
export interface BodyStatusView {
  readonly state: "available" | "tombstoned" | "expired"
  readonly tombstone_index: number | null
  readonly reason_code: string | null
  readonly policy_index: number | null
}

export const DAY_MS = 86_400_000

/** The entry whose body is asked about: its type and when it was logged. */
export interface BodyEntry {
  readonly index: number
  readonly type: string
  readonly logged: number
}

const AVAILABLE: BodyStatusView = { state: "available", tombstone_index: null, reason_code: null, policy_index: null }

/** Unix ms from which the entry's body is expired, or null when it never expires. */
export const bodyExpiresAt = (state: LogState, entry: BodyEntry): number | null => {
  const rule = entryRuleOf(entry.type)
  if (state.service === undefined || rule === undefined || rule.body.kind !== "ciphertext") return null
  return entry.logged + state.service.retentionDays * DAY_MS
}

export const bodyStatus = (state: LogState, entry: BodyEntry, now: number): BodyStatusView => {
  // A tombstone (governance/tombstones.ts) hides a body whatever its age: it outranks expiry.
  const tombstone = tombstoneOf(state, entry.index)
  if (tombstone !== undefined) {
    return { state: "tombstoned", tombstone_index: tombstone.index, reason_code: tombstone.reasonCode, policy_index: null }
  }
  const expiresAt = bodyExpiresAt(state, entry)
  if (expiresAt !== null && now >= expiresAt) {
    return { state: "expired", tombstone_index: null, reason_code: null, policy_index: state.service!.retentionIndex }
  }
  return AVAILABLE
}

/** The X-AICS-Body-Status header value of a status. */
export const bodyStatusHeader = (status: BodyStatusView): string => {
  switch (status.state) {
    case "available":
      return "available"
    case "tombstoned":
      return `tombstoned;tombstone_index=${status.tombstone_index};reason_code=${status.reason_code}`
    case "expired":
      return `expired;policy_index=${status.policy_index}`
  }
}
