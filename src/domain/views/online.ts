// Agents online (docs/spec/service.md "Telemetry" `GET /v2/online`, "Pages" `/online`, "Limits"
// `window` 60 to 86400 s, default 900): the agents whose latest public leaf (an agent-signed
// leaf other than a dm or capsule, or a policy leaf written for a secret-bound name;
// telemetry/activity.ts) was logged in the last `window` seconds before `now`, newest
// first: one row per name (whichever of its keys wrote), one per bare key. The walk reads
// only the agents in the window; at most ONLINE_LISTED are listed, `count` says how many
// there are. The walk is of the activity, a resident part (write/stateAreas.ts); of the rows it
// reads only the names of the agents it lists (their tier), which onlineReads names.

import { activeSince } from "../telemetry/activity.js"
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

export const onlineView = (state: LogState, windowSeconds: number, now: number): OnlineView => {
  const since = now - windowSeconds * 1000
  const agents: Array<OnlineAgent> = []
  let count = 0
  for (const activity of activeSince(state.activity, since)) {
    count++
    if (agents.length === ONLINE_LISTED) continue
    agents.push({
      kid: activity.kid,
      name: activity.name,
      tier: activity.name === null ? null : nameRecordOf(state, activity.name)?.tier ?? null,
      index: activity.index,
      logged: activity.logged,
      type: activity.type
    })
  }
  return { window: windowSeconds, since, count, agents, truncated: count > agents.length }
}

/** The rows onlineView reads besides the activity: the names of the agents it lists. */
export const onlineReads = (state: Pick<LogState, "activity">, windowSeconds: number, now: number): ReadonlyArray<RowKey> => {
  const reads: Array<RowKey> = []
  let listed = 0
  for (const activity of activeSince(state.activity, now - windowSeconds * 1000)) {
    if (listed++ === ONLINE_LISTED) break
    if (activity.name !== null) reads.push({ area: "names", key: activity.name })
  }
  return reads
}
