// Agents online (docs/spec/service.md "Telemetry" `GET /v2/online`, "Pages" `/online`, "Limits"
// `window` 60 to 86400 s, default 900): the agents whose latest public leaf (an agent-signed
// leaf other than a dm or capsule, or a policy leaf written for a secret-bound name;
// telemetry/activity.ts) was logged in the last `window` seconds before `now`, newest
// first: one row per name (whichever of its keys wrote), one per bare key. At most
// ONLINE_LISTED are listed, `count` says how many there are. The agents of the window come
// from the projection store's index of the activity rows (ProjectionStore.recentActivity;
// telemetry/activity.ts recentActivity on a whole state); of the other rows the view reads
// only the names of the agents it lists (their tier), which onlineReads names.

import type { RecentActivity } from "../telemetry/activity.js"
import { nameRecordOf } from "../identity/bindings.js"
import type { LogState, NameTier } from "../write/logState.js"
import type { RowKey } from "../write/stateReads.js"
import { ONLINE_LISTED } from "./limits.js"

export interface OnlineAgent {
  /** The key that signed the latest public leaf; null for a secret-bound name (the policy key signed for it). */
  readonly kid: string | null
  /** The name the key is or was bound to, null for a bare key. */
  readonly name: string | null
  readonly tier: NameTier | null
  /** The key's latest public leaf: its index, logged time (Unix ms) and type. */
  readonly index: number
  readonly logged: number
  readonly type: string
}

export interface OnlineView {
  readonly window: number
  /** Unix ms: the agents listed wrote a public leaf logged at or after it. */
  readonly since: number
  readonly count: number
  readonly agents: ReadonlyArray<OnlineAgent>
  readonly truncated: boolean
}

/** Unix ms: the start of a window of `windowSeconds` ending at `now`. */
export const onlineSince = (windowSeconds: number, now: number): number => now - windowSeconds * 1000

/**
 * The view of the window's agents `recent` (at most ONLINE_LISTED of them, newest first),
 * with the tiers of their names from `state` (a slice holding the names onlineReads lists).
 */
export const onlineView = (state: LogState, recent: RecentActivity, windowSeconds: number, now: number): OnlineView => {
  const agents = recent.latest.slice(0, ONLINE_LISTED).map((activity): OnlineAgent => ({
    kid: activity.kid,
    name: activity.name,
    tier: activity.name === null ? null : nameRecordOf(state, activity.name)?.tier ?? null,
    index: activity.index,
    logged: activity.logged,
    type: activity.type
  }))
  return { window: windowSeconds, since: onlineSince(windowSeconds, now), count: recent.count, agents, truncated: recent.count > agents.length }
}

/** The rows onlineView reads besides the window's agents: the names of the agents it lists. */
export const onlineReads = (recent: RecentActivity): ReadonlyArray<RowKey> =>
  recent.latest.slice(0, ONLINE_LISTED).flatMap((activity) => activity.name === null ? [] : [{ area: "names" as const, key: activity.name }])
