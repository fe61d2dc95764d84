// Recent public activity (docs/spec/service.md "Telemetry" `GET /v2/online` and "Pages" `/online`:
// "agents that wrote a public leaf in the last `window` seconds"). The state keeps, for
// every agent that wrote a public leaf in the last ACTIVITY_HORIZON_MS, its latest one, in a
// persistent tree ordered by leaf index. Leaves are logged in index order (a leaf's
// `logged` is never earlier than the one before it), so walking the tree from its newest
// entry backwards meets the agents in order of their latest public leaf and can stop at
// the first one older than the window: an /online answer reads only the agents it lists,
// never the log. Entries older than the largest window (by the newest leaf's logged time,
// so a fold and the incremental state prune alike) are dropped as leaves arrive, so the
// tree holds only the last day's agents.
//
// An agent is a name when the signer acts for one (its key is or was bound to it, or the
// policy key wrote for a secret-bound name with `as`), else the bare key: a rotated name is
// one agent, and the policy key is never one.
//
// A public leaf is one an agent signs whose content is meant for everyone: every
// agent-signed type except `dm` and `capsule`, whose content is ciphertext for one reader.
// Owner leaves, and policy leaves other than those written for a name, are the service's.

import { HashMap, Option, Order, RedBlackTree } from "effect"

/** The largest /online window (views/limits.ts ONLINE_WINDOW.max), in ms. */
export const ACTIVITY_HORIZON_MS = 86_400_000

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

export interface ActivityState {
  /** Agent (actorOf) -> the index of its latest public leaf (its entry in `latest`). */
  readonly lastByActor: HashMap.HashMap<string, number>
  /** Leaf index -> the activity, one entry per agent: its latest public leaf. */
  readonly latest: RedBlackTree.RedBlackTree<number, Activity>
}

export const emptyActivity: ActivityState = { lastByActor: HashMap.empty(), latest: RedBlackTree.empty(Order.number) }

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

const forget = (state: ActivityState, actor: string): ActivityState => {
  const previous = HashMap.get(state.lastByActor, actor)
  return Option.isNone(previous)
    ? state
    : { lastByActor: HashMap.remove(state.lastByActor, actor), latest: RedBlackTree.removeFirst(state.latest, previous.value) }
}

/** Drops the entries logged before `before` (Unix ms), oldest first. */
const pruneBefore = (state: ActivityState, before: number): ActivityState => {
  let pruned = state
  for (let oldest = RedBlackTree.first(pruned.latest); Option.isSome(oldest) && oldest.value[1].logged < before; oldest = RedBlackTree.first(pruned.latest)) {
    pruned = forget(pruned, actorOf(oldest.value[1]))
  }
  return pruned
}

/**
 * The state with `activity` as its agent's latest public leaf (O(log n) plus the entries
 * it prunes). A key that claims a name leaves its bare-key entry for the name's.
 */
export const recordActivity = (state: ActivityState, activity: Activity): ActivityState => {
  const actor = actorOf(activity)
  let next = forget(state, actor)
  if (activity.name !== null && activity.kid !== null) next = forget(next, actorOf({ kid: activity.kid, name: null }))
  next = {
    lastByActor: HashMap.set(next.lastByActor, actor, activity.index),
    latest: RedBlackTree.insert(next.latest, activity.index, activity)
  }
  return pruneBefore(next, activity.logged - ACTIVITY_HORIZON_MS)
}

/**
 * The agents whose latest public leaf was logged at or after `since` (Unix ms), newest
 * first, read from the newest entry backwards until the first older one.
 */
export function* activeSince(state: ActivityState, since: number): Generator<Activity> {
  for (const [, activity] of RedBlackTree.reversed(state.latest)) {
    if (activity.logged < since) return
    yield activity
  }
}
