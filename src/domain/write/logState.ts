// The state that decides whether an entry is accepted: each key's envelope chain and what
// the accepted leaves of each entry type have established (names, ...). It is a fold of
// the log: applyLeaf(state, leaf) for every leaf in order, from emptyLogState. The
// sequencer keeps it incrementally; a verifier rebuilds it from the tiles with the same
// functions, and the two must agree.
//
// Persistent maps (effect HashMap/HashSet) keep every step O(log n) without copying, so
// the incremental state and a fold from scratch are the same pure values.

import { HashMap, HashSet } from "effect"

/** Head of one key's chain (profile.md section 3). */
export interface ChainHead {
  /** seq of the key's last accepted envelope. */
  readonly seq: number
  /** SHA-256(JCS(that envelope)): the next envelope's prev. */
  readonly hash: Uint8Array
  /** Leaf index of that envelope. */
  readonly index: number
}

/** A claimed name (profile.md section 5, claim and key events). */
export interface NameRecord {
  readonly name: string
  /** did:key of the key that currently acts for the name. */
  readonly kid: string
  /** Current X25519 key (U64) and the leaf that set it. */
  readonly x25519: string
  readonly x25519Index: number
  readonly recovery: string | null
  readonly claimIndex: number
}

/** What leaf 0 established: the keys every later rule is checked against. */
export interface ServiceKeys {
  readonly origin: string
  readonly policyKid: string
  readonly ownerKid: string
}

export interface LogState {
  /** Leaves applied: the index the next leaf gets. */
  readonly size: number
  /** Unix ms of the last leaf (the next `logged` is never earlier). */
  readonly lastLogged: number
  readonly service: ServiceKeys | undefined
  readonly chains: HashMap.HashMap<string, ChainHead>
  readonly names: HashMap.HashMap<string, NameRecord>
  /** kid -> the name it currently acts for. */
  readonly keyNames: HashMap.HashMap<string, string>
  /** Indexes of post leaves (replies must name one). */
  readonly posts: HashSet.HashSet<number>
}

export const emptyLogState: LogState = {
  size: 0,
  lastLogged: 0,
  service: undefined,
  chains: HashMap.empty(),
  names: HashMap.empty(),
  keyNames: HashMap.empty(),
  posts: HashSet.empty()
}
