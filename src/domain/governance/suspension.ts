// Suspension (docs/spec/service.md "States and transitions", "Suspension"; "Owner operations"
// `POST /v2/admin/suspensions`). A subject is a key (did:key) or a name. An owner
// `suspension` leaf with `order` (the hash of the order or decision it executes) starts a
// suspension, until `until` when given, else until ended; a leaf without `order` whose
// `until` is at or before its own logged time ends it:
//
//   none/ended --suspension {subject, order, until?}--> suspended (until > logged, when given)
//   suspended  --suspension {subject, until <= now}---> ended
//   suspended  --time reaches until--------------------> ended (no leaf needed)
//
// A suspension with `order` replaces one in force. Refusals: `payload_invalid` (neither
// order nor until; an order whose until has passed; an end whose until is still ahead),
// `not_suspended` (ending a subject with no suspension in force).
//
// In force at t (Unix ms): started, not ended by a leaf, and t < until * 1000. While in
// force, an agent-signed entry is refused `suspended` when its key is suspended, when the
// name the key acts for is, or when the entry acts for a suspended name (a claim, a key
// event: the payload's `name`) (write/decide.ts).

import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { currentNameOf } from "../identity/bindings.js"
import type { LogState } from "../write/logState.js"
import { refuse, type Refusal } from "../write/refusal.js"

export interface SuspensionRecord {
  readonly subject: string
  /** The leaf that started it, and its order hash. */
  readonly index: number
  readonly logged: number
  readonly order: string
  /** Unix seconds it ends at by itself, or null. */
  readonly until: number | null
  /** The leaf that ended it early, or null. */
  readonly endedIndex: number | null
}

export interface SuspensionOrder {
  readonly subject: string
  readonly order?: string | undefined
  readonly until?: number | undefined
}

export const suspensionInForce = (record: SuspensionRecord | undefined, t: number): boolean =>
  record !== undefined && record.endedIndex === null && (record.until === null || t < record.until * 1000)

export const suspensionOf = (state: Pick<LogState, "governance">, subject: string): SuspensionRecord | undefined =>
  Option.getOrUndefined(HashMap.get(state.governance.suspensions, subject))

export const suspensionRefusal = (state: LogState, order: SuspensionOrder, logged: number): Refusal | undefined => {
  // The log's time is the leaf's logged time: a signer whose clock is off (within the 300 s
  // a signed request may be) is told so, with both times, rather than only that it is late.
  const loggedSeconds = Math.floor(logged / 1000)
  if (order.order !== undefined) {
    return order.until !== undefined && order.until * 1000 <= logged
      ? refuse("payload_invalid", `until ${order.until} has already passed: the log's time (this leaf's logged time) is ${loggedSeconds}, ${loggedSeconds - order.until} s later; is the signer's clock behind the service's? (aics admin suspend counts --until +SECONDS from the service's clock)`)
      : undefined
  }
  if (order.until === undefined) return refuse("payload_invalid", "a suspension needs order (to start) or until (to end)")
  if (order.until * 1000 > logged) {
    return refuse("payload_invalid", `an end of suspension needs until at or before now: until ${order.until} is ${order.until - loggedSeconds} s after the log's time (this leaf's logged time, ${loggedSeconds}); is the signer's clock ahead of the service's? (aics admin unsuspend takes the service's clock)`)
  }
  return suspensionInForce(suspensionOf(state, order.subject), logged)
    ? undefined
    : refuse("not_suspended", `${order.subject} is not suspended`)
}

export const applySuspension = (
  suspensions: HashMap.HashMap<string, SuspensionRecord>,
  order: SuspensionOrder,
  index: number,
  logged: number
): HashMap.HashMap<string, SuspensionRecord> => {
  if (order.order !== undefined) {
    return HashMap.set(suspensions, order.subject, {
      subject: order.subject,
      index,
      logged,
      order: order.order,
      until: order.until ?? null,
      endedIndex: null
    })
  }
  const current = Option.getOrUndefined(HashMap.get(suspensions, order.subject))!
  return HashMap.set(suspensions, order.subject, { ...current, endedIndex: index })
}

/** The generic check every agent-signed entry passes (write/decide.ts). */
export const suspendedRefusal = (state: LogState, kid: string, payload: unknown, logged: number): Refusal | undefined => {
  const subjects = [kid, currentNameOf(state, kid)]
  const named = (payload as { name?: unknown } | null)?.name
  if (typeof named === "string") subjects.push(named)
  for (const subject of subjects) {
    if (subject === undefined) continue
    const record = suspensionOf(state, subject)
    if (suspensionInForce(record, logged)) return refuse("suspended", `${subject} is suspended by leaf ${record!.index}`)
  }
  return undefined
}

/**
 * GET /v2/governance/suspensions/{subject} (docs/protocol.md 11.4, 12.6): the subject's latest
 * suspension and whether it is in force at `now` (Unix ms), and the smallest tree size
 * covering the leaves that started and ended it (0 for a subject never suspended).
 */
export const suspensionView = (state: Pick<LogState, "governance">, subject: string, now: number) => {
  const record = suspensionOf(state, subject)
  return {
    subject,
    suspended: suspensionInForce(record, now),
    index: record?.index ?? null,
    order: record?.order ?? null,
    until: record?.until ?? null,
    ended_index: record?.endedIndex ?? null,
    size: record === undefined ? 0 : Math.max(record.index, record.endedIndex ?? -1) + 1
  }
}
