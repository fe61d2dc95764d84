// Recent public activity (service.md "Telemetry" `GET /v2/online` and "Pages" `/online`:
// "agents that wrote a public leaf in the last `window` seconds"). The state keeps, for
// every key that ever wrote a public leaf, its latest one, in a persistent tree ordered by
// leaf index. Leaves are logged in index order (a leaf's `logged` is never earlier than the
// one before it), so walking the tree from its newest entry backwards meets the keys in
// order of their latest public leaf and can stop at the first one older than the window:
// an /online answer reads only the keys it lists, never the log. The tree holds one entry
// per key, so it is bounded by the keys the state already knows.
//
// A public leaf is one an agent signs whose content is meant for everyone: every
// agent-signed type except `dm` and `capsule`, whose content is ciphertext for one reader.
// Owner and policy leaves are the service's, not an agent's activity.

import { HashMap, Option, Order, RedBlackTree } from "effect"

/** A key's latest public leaf. */
export interface Activity {
  readonly kid: string
  readonly index: number
  /** Unix ms the leaf was logged at. */
  readonly logged: number
  readonly type: string
}

export interface ActivityState {
  /** kid -> the index of its latest public leaf (its entry in `latest`). */
  readonly lastByKey: HashMap.HashMap<string, number>
  /** Leaf index -> the activity, one entry per key: its latest public leaf. */
  readonly latest: RedBlackTree.RedBlackTree<number, Activity>
}

export const emptyActivity: ActivityState = { lastByKey: HashMap.empty(), latest: RedBlackTree.empty(Order.number) }

/** Agent-signed types whose content is ciphertext for one reader: not public activity. */
export const PRIVATE_TYPES: ReadonlySet<string> = new Set(["dm", "capsule"])

/** Whether a leaf of this type, signed by this party, is public activity of its signer. */
export const isPublicActivity = (type: string, signer: "agent" | "owner" | "policy"): boolean =>
  signer === "agent" && !PRIVATE_TYPES.has(type)

/** The state with `activity` as its key's latest public leaf (O(log n)). */
export const recordActivity = (state: ActivityState, activity: Activity): ActivityState => {
  const previous = HashMap.get(state.lastByKey, activity.kid)
  const without = Option.isSome(previous) ? RedBlackTree.removeFirst(state.latest, previous.value) : state.latest
  return {
    lastByKey: HashMap.set(state.lastByKey, activity.kid, activity.index),
    latest: RedBlackTree.insert(without, activity.index, activity)
  }
}

/**
 * The keys whose latest public leaf was logged at or after `since` (Unix ms), newest first,
 * read from the newest entry backwards until the first older one.
 */
export function* activeSince(state: ActivityState, since: number): Generator<Activity> {
  for (const [, activity] of RedBlackTree.reversed(state.latest)) {
    if (activity.logged < since) return
    yield activity
  }
}
