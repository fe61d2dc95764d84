// Recent public activity (docs/spec/service.md "Telemetry" `GET /v2/online` and "Pages" `/online`:
// "agents that wrote a public leaf in the last `window` seconds"). The state keeps, for
// every agent, its latest public leaf: one row per agent in the projection store
// (write/stateAreas.ts, row area `activity`), replaced when the agent writes again. Leaves
// are logged in index order (a leaf's `logged` is never earlier than the one before it), so
// the agents of a window are the rows whose latest leaf was logged at or after its start,
// and newest first is by leaf index: the stores answer that from an index on (logged,
// index) (ProjectionStore.recentActivity), reading only the agents of the window, never the
// log and never every agent (and counting them by the minute: projection/stateRows.ts
// ACTIVITY_MINUTE_MS).
//
// An agent is a name when the signer acts for one (its key is or was bound to it, or the
// policy key wrote for a secret-bound name with `as`), else the bare key: a rotated name is
// one agent, and the policy key is never one.
//
// A public leaf is one an agent signs whose content is meant for everyone: every
// agent-signed type except `dm` and `capsule`, whose content is ciphertext for one reader.
// Owner leaves, and policy leaves other than those written for a name, are the service's.

import * as HashMap from "effect/HashMap"

/** An agent's latest public leaf. */
export interface Activity {
  /** The key that signed it, or null when the policy key signed it for a secret-bound name. */
  readonly kid: string | null
  /** The name the agent acts as, or null for a bare key. */
  readonly name: string | null
  readonly index: number
  /** Unix ms the leaf was logged at. */
  readonly logged: number
  readonly type: string
}

/** Agent (actorOf) -> its latest public leaf. */
export type ActivityState = HashMap.HashMap<string, Activity>

export const emptyActivity: ActivityState = HashMap.empty()

/** Agent-signed types whose content is ciphertext for one reader: not public activity. */
export const PRIVATE_TYPES: ReadonlySet<string> = new Set(["dm", "capsule"])

/**
 * Whose public activity a leaf is: the agent key's (`name` the name it is or was bound
 * to), the secret-bound name's the policy key wrote it for, or nobody's.
 */
export const activityOf = (
  leaf: {
    readonly type: string
    readonly signer: "agent" | "owner" | "policy"
    readonly kid: string
    /** Payload `as`: the secret-bound name a policy-signed leaf speaks for. */
    readonly as: string | undefined
    /** Payload `name` of a key.rotate: the name whose current or recovery key signed it. */
    readonly rotates: string | undefined
  },
  boundName: (kid: string) => string | undefined
): { readonly kid: string | null; readonly name: string | null } | undefined => {
  if (PRIVATE_TYPES.has(leaf.type)) return undefined
  // A recovery key is bound to no name, but its rotation is the name's doing.
  if (leaf.signer === "agent") return { kid: leaf.kid, name: boundName(leaf.kid) ?? leaf.rotates ?? null }
  if (leaf.signer === "policy" && leaf.as !== undefined) return { kid: null, name: leaf.as }
  return undefined
}

export const actorOf = (a: { readonly kid: string | null; readonly name: string | null }): string =>
  a.name !== null ? `name:${a.name}` : `key:${a.kid}`

/** The agent key `kid` as a bare key: the row its leaves land in until it acts for a name. */
export const bareKeyActor = (kid: string): string => actorOf({ kid, name: null })

/**
 * The state with `activity` as its agent's latest public leaf. A key that acts for a name
 * leaves its bare-key entry for the name's (so the agent is listed once).
 */
export const recordActivity = (state: ActivityState, activity: Activity): ActivityState => {
  const next = HashMap.set(state, actorOf(activity), activity)
  return activity.name !== null && activity.kid !== null ? HashMap.remove(next, bareKeyActor(activity.kid)) : next
}

/** The agents of a window: how many there are, and the newest of them. */
export interface RecentActivity {
  /** Agents whose latest public leaf was logged at or after the window's start. */
  readonly count: number
  /** The newest of them (latest logged first, then highest leaf index), at most the limit asked for. */
  readonly latest: ReadonlyArray<Activity>
}

/**
 * The agents whose latest public leaf was logged at or after `since` (Unix ms), newest
 * first, at most `limit`, and how many there are: what the projection stores'
 * recentActivity answers from their index, here on a whole state.
 */
export const recentActivity = (state: ActivityState, since: number, limit: number): RecentActivity => {
  // By logged time, then index: the stores' index order, the same as the leaf index's
  // whenever logged times never go back (the sequencer's clock).
  const inWindow = [...HashMap.values(state)].filter((a) => a.logged >= since).sort((a, b) => b.logged - a.logged || b.index - a.index)
  return { count: inWindow.length, latest: inWindow.slice(0, limit) }
}
