// Where each part of the log's state lives when it is kept in an indexed store instead of
// process memory (issue 12, "Projections in an indexed store"). The state is the same pure
// value (LogState, logState.ts); this module only says how it splits into rows:
//
// - Row areas: the maps that grow with the log (keys, chain heads, posts, grants...). Each
//   entry of such a map is one row (area, key) -> value. A decision or a fold step loads only
//   the rows its entries read (stateReads.ts), as a LogState holding just those entries
//   (a slice).
// - List areas: the sequences that grow with the log (each key's envelopes, a channel's
//   posts, an inbox...). Their elements are rows (area, key, position), appended and read by
//   page; a slice holds them empty, so whatever a fold step appends is exactly what the
//   store must append. No rule reads them (views page them from the store).
// - Resident parts: what the owner's and the policy key's leaves establish (the service's
//   keys, governance, tasks and requests to the owner) and the counters. They are bounded
//   by what the owner does, not by the log, so the app holds them whole and the store
//   keeps a copy for the next start.
// - Names: their own table (the directory's order and search), loaded like a row area; the
//   directory's claim order (nameOrder) is that table's order, so a slice holds it empty.
//
// Every row area and list area is listed here once, with how to read and write it in a
// LogState, so that splitting a state into rows and joining rows into a slice are the
// same code for every area.

import * as Chunk from "effect/Chunk"
import type * as HashMap from "effect/HashMap"
import type { LogState } from "./logState.js"

/**
 * The version of this split. A store written under another one (an earlier version's
 * state.db) is not read as this one: the start rebuilds it from the log
 * (app/projectionStart.ts). Raise it whenever an area is added, removed or changes shape.
 */
export const STATE_LAYOUT = 5

/** A key as stored: map keys that are leaf indexes are stored as their decimal text. */
export type StoredKey = string

/** One area of rows: the map it is in the state, and how its keys are stored. */
interface RowArea<K, V> {
  readonly get: (state: LogState) => HashMap.HashMap<K, V>
  readonly set: (state: LogState, map: HashMap.HashMap<K, V>) => LogState
  readonly keyOf: (stored: StoredKey) => K
  /** A list nested in each value (a key's envelopes): stored as a list area, held empty in a slice. */
  readonly nested?: {
    readonly list: NestedListArea
    readonly strip: (value: V) => V
    readonly elements: (value: V) => Chunk.Chunk<unknown>
  }
}

const textKey = (stored: StoredKey): string => stored
const indexKey = (stored: StoredKey): number => Number(stored)

const rowArea = <K, V>(area: RowArea<K, V>): RowArea<unknown, unknown> => area as unknown as RowArea<unknown, unknown>

/** The row areas, by name. `posts` is a set: its rows hold `true`. */
export const ROW_AREAS = {
  chains: rowArea({ get: (s) => s.chains, set: (s, chains) => ({ ...s, chains }), keyOf: textKey }),
  keyNames: rowArea({ get: (s) => s.keyNames, set: (s, keyNames) => ({ ...s, keyNames }), keyOf: textKey }),
  recoveryOf: rowArea({ get: (s) => s.recoveryOf, set: (s, recoveryOf) => ({ ...s, recoveryOf }), keyOf: textKey }),
  keys: rowArea({
    get: (s) => s.keys,
    set: (s, keys) => ({ ...s, keys }),
    keyOf: textKey,
    nested: { list: "envelopes", strip: (k) => ({ ...k, envelopes: Chunk.empty() }), elements: (k) => k.envelopes }
  }),
  grants: rowArea({ get: (s) => s.grants, set: (s, grants) => ({ ...s, grants }), keyOf: indexKey }),
  capsules: rowArea({
    get: (s) => s.capsules,
    set: (s, capsules) => ({ ...s, capsules }),
    keyOf: textKey,
    nested: { list: "capsuleWrites", strip: (c) => ({ ...c, writes: Chunk.empty() }), elements: (c) => c.writes }
  }),
  bodies: rowArea({ get: (s) => s.bodies, set: (s, bodies) => ({ ...s, bodies }), keyOf: indexKey }),
  postMeta: rowArea({ get: (s) => s.forum.postMeta, set: (s, postMeta) => ({ ...s, forum: { ...s.forum, postMeta } }), keyOf: indexKey }),
  polls: rowArea({ get: (s) => s.forum.polls, set: (s, polls) => ({ ...s, forum: { ...s.forum, polls } }), keyOf: indexKey }),
  votes: rowArea({ get: (s) => s.forum.votes, set: (s, votes) => ({ ...s, forum: { ...s.forum, votes } }), keyOf: textKey }),
  supAccounts: rowArea({
    get: (s) => s.sup.accounts,
    set: (s, accounts) => ({ ...s, sup: { ...s.sup, accounts } }),
    keyOf: textKey,
    nested: { list: "supChanges", strip: (a) => ({ ...a, changes: Chunk.empty() }), elements: (a) => a.changes }
  }),
  supClaims: rowArea({ get: (s) => s.sup.claims, set: (s, claims) => ({ ...s, sup: { ...s.sup, claims } }), keyOf: textKey }),
  supTransactions: rowArea({
    get: (s) => s.sup.transactions,
    set: (s, transactions) => ({ ...s, sup: { ...s.sup, transactions } }),
    keyOf: textKey
  }),
  // Each agent's latest public leaf (telemetry/activity.ts), keyed by actor. The stores also
  // index these rows by (logged, index) for /online (ProjectionStore.recentActivity).
  activity: rowArea({ get: (s) => s.activity, set: (s, activity) => ({ ...s, activity }), keyOf: textKey })
} as const

export type MapAreaName = keyof typeof ROW_AREAS

/**
 * What a rule can ask for: a row of a map area, or a name (its own table). The set of posts
 * is the keys of `postMeta` (every post leaf sets both), so a slice's `posts` are the
 * loaded `postMeta` keys and need no rows of their own.
 */
export type RowAreaName = MapAreaName | "names"

/** Lists nested in the values of a row area. */
export type NestedListArea = "envelopes" | "capsuleWrites" | "supChanges"

/** The lists that are maps of sequences, or one sequence (stored under the key ""). */
const LIST_MAPS = {
  grantsBySigner: { get: (s: LogState) => s.grantsBySigner },
  inboxes: { get: (s: LogState) => s.inboxes },
  capsulesByOwner: { get: (s: LogState) => s.capsulesByOwner },
  channelPosts: { get: (s: LogState) => s.forum.channelPosts },
  channelPolls: { get: (s: LogState) => s.forum.channelPolls },
  bodyNaming: { get: (s: LogState) => s.bodyNaming }
} as const

const LIST_SEQUENCES = {
  postOrder: { get: (s: LogState) => s.forum.postOrder },
  pollOrder: { get: (s: LogState) => s.forum.pollOrder },
  ciphertexts: { get: (s: LogState) => s.ciphertexts }
} as const

export type ListAreaName = NestedListArea | keyof typeof LIST_MAPS | keyof typeof LIST_SEQUENCES

/** Every list area, for stores and tests that walk them all. */
export const LIST_AREAS: ReadonlyArray<ListAreaName> = [
  "envelopes",
  "capsuleWrites",
  "supChanges",
  ...(Object.keys(LIST_MAPS) as Array<keyof typeof LIST_MAPS>),
  ...(Object.keys(LIST_SEQUENCES) as Array<keyof typeof LIST_SEQUENCES>)
]

/** Elements appended to one list, in order. */
export interface ListAppend {
  readonly area: ListAreaName
  readonly key: StoredKey
  readonly elements: ReadonlyArray<unknown>
}

/** Every element the state holds in a list, per list: in a slice, what a fold step appended. */
export const listAppends = (state: LogState): ReadonlyArray<ListAppend> => {
  const appends: Array<ListAppend> = []
  for (const [area, { get }] of Object.entries(LIST_MAPS) as Array<[ListAreaName, { get: (s: LogState) => HashMap.HashMap<string, Chunk.Chunk<unknown>> }]>) {
    for (const [key, elements] of get(state)) {
      if (Chunk.isNonEmpty(elements)) appends.push({ area, key, elements: Chunk.toReadonlyArray(elements) })
    }
  }
  for (const [area, { get }] of Object.entries(LIST_SEQUENCES) as Array<[ListAreaName, { get: (s: LogState) => Chunk.Chunk<unknown> }]>) {
    const elements = get(state)
    if (Chunk.isNonEmpty(elements)) appends.push({ area, key: "", elements: Chunk.toReadonlyArray(elements) })
  }
  for (const spec of Object.values(ROW_AREAS)) {
    const nested = spec.nested
    if (nested === undefined) continue
    for (const [key, value] of spec.get(state)) {
      const elements = nested.elements(value)
      if (Chunk.isNonEmpty(elements)) appends.push({ area: nested.list, key: String(key), elements: Chunk.toReadonlyArray(elements) })
    }
  }
  return appends
}
