// The status of an entry's off-leaf body (docs/spec/service.md "Body status" and its states table,
// item 10; docs/protocol.md sections 5, 9 and 11): `available`, `tombstoned` or `expired`,
// and of a body fetched by digest, which several entries may name. Pure: the time comes in
// as `now` (Unix ms). (`unavailable`, no body stored under a hash at all, is the body
// store's answer, not the log's.)
//
// Retention: DM and capsule ciphertext (every type whose body rule is `ciphertext`)
// expires retention_days after it was logged, retention_days being the charter's (at least
// 90). It is expired exactly when now >= logged + retention_days * 86,400,000, never
// before; then the body answers 410 with policy_index, the leaf that set the retention.
// The leaf itself stays.

import { entryRuleOf } from "./entries/registry.js"
import { tombstoneOf } from "./governance/tombstones.js"
import type { LogState } from "./write/logState.js"

/** The JSON form of docs/spec/service.md (`{state, tombstone_index, reason_code, policy_index}`); members that do not apply are null. */
export interface BodyStatusView {
  readonly state: "available" | "tombstoned" | "expired"
  readonly tombstone_index: number | null
  readonly reason_code: string | null
  readonly policy_index: number | null
}

export const DAY_MS = 86_400_000

/** What a body's status reads of the state: resident parts only (the tombstones, the retention). */
export type BodyStatusState = Pick<LogState, "governance" | "service">

/** The entry whose body is asked about: its type and when it was logged. */
export interface BodyEntry {
  readonly index: number
  readonly type: string
  readonly logged: number
}

const AVAILABLE: BodyStatusView = { state: "available", tombstone_index: null, reason_code: null, policy_index: null }

/** Unix ms from which an entry's body is expired under a retention of `retentionDays`, or null when it never expires. */
export const expiresUnder = (entry: Pick<BodyEntry, "type" | "logged">, retentionDays: number): number | null => {
  const rule = entryRuleOf(entry.type)
  return rule === undefined || rule.body.kind !== "ciphertext" ? null : entry.logged + retentionDays * DAY_MS
}

/** Unix ms from which the entry's body is expired, or null when it never expires. */
export const bodyExpiresAt = (state: BodyStatusState, entry: BodyEntry): number | null =>
  state.service === undefined ? null : expiresUnder(entry, state.service.retentionDays)

export const bodyStatus = (state: BodyStatusState, entry: BodyEntry, now: number): BodyStatusView => {
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

/** Which status speaks for a digest none of whose entries is available: a tombstone outranks expiry. */
const goneRank = (view: BodyStatusView): number => (view.state === "tombstoned" ? 1 : 0)

/**
 * The status of a body fetched by its digest (/v2/bodies/{digest}), given every entry that
 * names that digest. The body store keeps one copy of a body per digest, so several entries
 * can name the same bytes (a capsule may carry a post's text): the body is available while
 * any of them makes it available, since a tombstone or an expiry is of one entry and must
 * not hide what another entry published. When none does, a tombstone outranks expiry, as
 * for one entry, and among equals the entry with the lowest index speaks. Undefined when no
 * entry names the digest (unavailable: the body store's answer).
 */
export const digestStatus = (state: BodyStatusState, naming: Iterable<BodyEntry>, now: number): BodyStatusView | undefined => {
  let gone: { readonly index: number; readonly view: BodyStatusView } | undefined
  for (const entry of naming) {
    const view = bodyStatus(state, entry, now)
    if (view.state === "available") return view
    const rank = goneRank(view)
    if (gone === undefined || rank > goneRank(gone.view) || (rank === goneRank(gone.view) && entry.index < gone.index)) {
      gone = { index: entry.index, view }
    }
  }
  return gone?.view
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

const HEADER_INDEX = /^(0|[1-9][0-9]{0,15})$/
const HEADER_REASON = /^[a-z][a-z_]*$/

/**
 * An X-AICS-Body-Status header value read back: bodyStatusHeader's statuses, or
 * `unavailable` (the body store's answer: no bytes stored under the hash). Undefined when
 * the value is none of these, exactly as bodyStatusHeader spells them.
 */
export const parseBodyStatusHeader = (header: string): BodyStatusView | "unavailable" | undefined => {
  if (header === "unavailable") return "unavailable"
  if (header === "available") return AVAILABLE
  const [state, ...params] = header.split(";")
  const values = new Map(params.map((param) => [param.slice(0, param.indexOf("=")), param.slice(param.indexOf("=") + 1)]))
  const index = (name: string): number | undefined => {
    const text = values.get(name)
    return text !== undefined && HEADER_INDEX.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined
  }
  if (state === "tombstoned" && params.length === 2) {
    const tombstoneIndex = index("tombstone_index")
    const reason = values.get("reason_code")
    if (tombstoneIndex === undefined || reason === undefined || !HEADER_REASON.test(reason)) return undefined
    const view: BodyStatusView = { state, tombstone_index: tombstoneIndex, reason_code: reason, policy_index: null }
    return bodyStatusHeader(view) === header ? view : undefined
  }
  if (state === "expired" && params.length === 1) {
    const policyIndex = index("policy_index")
    if (policyIndex === undefined) return undefined
    return { state, tombstone_index: null, reason_code: null, policy_index: policyIndex }
  }
  return undefined
}
