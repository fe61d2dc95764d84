// The state that decides whether an entry is accepted (docs/spec/profile.md sections 3 and
// 5; docs/protocol.md 8 step 8, 10 and 11): each key's envelope chain and what
// the accepted leaves of each entry type have established (names and their key events,
// keys, grants, inboxes, capsule slots, posts). It is a fold of the log:
// applyLeaf(state, leaf) for every leaf in order, from emptyLogState. The sequencer keeps
// it incrementally; a verifier rebuilds it from the tiles with the same functions, and the
// two must agree. The views (src/domain/views) read it.
//
// Persistent maps and sequences (effect HashMap, HashSet, Chunk) keep every step
// O(log n) without copying, so the incremental state and a fold from scratch are the same
// pure values. Nothing here grows by copying an array.

import * as Chunk from "effect/Chunk"
import * as HashMap from "effect/HashMap"
import * as HashSet from "effect/HashSet"
import * as Option from "effect/Option"
import type { BodyEntry } from "../bodyStatus.js"
import type { ForumState } from "../forum/polls.js"
import type { FreezeState } from "../governance/freeze.js"
import type { PolicyRecord } from "../governance/policyTiming.js"
import type { SuspensionRecord } from "../governance/suspension.js"
import type { TombstoneRecord } from "../governance/tombstones.js"
import type { SupState } from "../sup/ledger.js"
import { emptyTallies, type UsageTallies } from "../stats/usageTallies.js"
import type { TaskState } from "../tasks/ownerRequests.js"
import { emptyActivity, type ActivityState } from "../telemetry/activity.js"

/** What the owner's and the policy key's governance leaves established (src/domain/governance). */
export interface GovernanceState {
  readonly freeze: FreezeState
  /** Subject (did:key or name) -> its latest suspension. */
  readonly suspensions: HashMap.HashMap<string, SuspensionRecord>
  /** Target leaf -> the tombstone hiding its body; tombstone leaf -> its target. */
  readonly tombstones: HashMap.HashMap<number, TombstoneRecord>
  readonly tombstoneLeaves: HashMap.HashMap<number, number>
  /** Policy leaves, log order. */
  readonly policies: Chunk.Chunk<PolicyRecord>
  /** Notice hash -> the `report` leaf (kind notice) that closed it. */
  readonly noticeReports: HashMap.HashMap<string, number>
  /** `report` leaves of kind audit, log order. */
  readonly audits: Chunk.Chunk<number>
}

/** Head of one key's chain (docs/spec/profile.md section 3). */
export interface ChainHead {
  /** seq of the key's last accepted envelope. */
  readonly seq: number
  /** SHA-256(JCS(that envelope)): the next envelope's prev. */
  readonly hash: Uint8Array
  /** Leaf index of that envelope. */
  readonly index: number
}

/**
 * How a name is held (docs/spec/profile.md section 5, "Two tiers of names"): `key` for a name
 * claimed by the Ed25519 key it binds, `secret` for a name claimed through the text gate
 * with a secret, whose leaves the policy key signs (it rests on the service's word).
 */
export type NameTier = "key" | "secret"

/** One leaf that changed a name's keys, in log order (docs/spec/service.md "Projections"). */
export type KeyEvent =
  | {
    readonly type: "claim"
    readonly index: number
    readonly logged: number
    /** The key that signed the leaf. */
    readonly signer: string
    readonly kid: string
    readonly x25519: string
    readonly recovery: string | null
  }
  | {
    readonly type: "key.rotate"
    readonly index: number
    readonly logged: number
    /** The name's current key or its recovery key. */
    readonly signer: string
    readonly prevKid: string
    readonly kid: string
  }
  | {
    readonly type: "key.x25519"
    readonly index: number
    readonly logged: number
    readonly signer: string
    readonly x25519: string
  }

/** A claimed name (docs/spec/profile.md section 5, claim and key events). */
export interface NameRecord {
  readonly name: string
  readonly tier: NameTier
  /** did:key of the key that currently acts for the name, and the leaf that bound it. */
  readonly kid: string
  readonly kidIndex: number
  /** Current X25519 key (U64) and the leaf that set it; "" and null while the name has none (secret-bound, or upgraded before key.x25519). */
  readonly x25519: string
  readonly x25519Index: number | null
  /** The recovery key the claim named (set by the claim leaf, never changed). */
  readonly recovery: string | null
  readonly claimIndex: number
  /** Every key event of the name, log order. */
  readonly events: Chunk.Chunk<KeyEvent>
}

/** Every key that has signed a leaf or been bound to a name. */
export interface KeyRecord {
  readonly kid: string
  /** The name the key was bound to (a key is bound at most once, for good), or null. */
  readonly name: string | null
  /** The leaf that bound it (a claim or a key.rotate), and the rotation that unbound it. */
  readonly boundIndex: number | null
  readonly unboundIndex: number | null
  /** Indexes of the key's accepted envelopes: its chain, seq 0 first. */
  readonly envelopes: Chunk.Chunk<number>
}

/** A `grant` leaf and what later leaves did to it. */
export interface GrantRecord {
  readonly index: number
  readonly logged: number
  /** The recipient: the key that signed the grant, which it belongs to. */
  readonly signer: string
  /** did:key of the sender it admits, or "*" for any sender. */
  readonly sender: string
  readonly use: "dm"
  /** Total DMs the grant admits, or null for no limit. */
  readonly limit: number | null
  /** Unix seconds from which the grant is no longer in force, or null. */
  readonly until: number | null
  /** DMs accepted that cite it, and the last of them (null before the first). */
  readonly uses: number
  readonly lastUseIndex: number | null
  readonly revokedIndex: number | null
}

/** The public metadata of an accepted `dm` leaf (never its plaintext). */
export interface MessageRecord {
  readonly index: number
  readonly logged: number
  readonly from: string
  readonly to: string
  readonly grantIndex: number
  readonly ctHash: string
  readonly size: number
  readonly x25519Index: number
}

/** A capsule slot: owned by the key that first wrote it; its last write is current. */
export interface CapsuleRecord {
  /** U64 of SHA-256 of the slot key. */
  readonly slot: string
  readonly owner: string
  readonly firstIndex: number
  /** The current write: its leaf, time and ciphertext. */
  readonly index: number
  readonly logged: number
  readonly ctHash: string
  readonly size: number
  /** Every write of the slot, log order. */
  readonly writes: Chunk.Chunk<number>
}

/** What leaf 0 established: the keys and terms every later rule and view is checked against. */
export interface ServiceKeys {
  readonly origin: string
  readonly policyKid: string
  readonly ownerKid: string
  readonly instanceDomain: string
  /** Seconds a policy change is announced before it may take effect (governance/policyTiming.ts). */
  readonly noticePeriodSeconds: number
  /** Days after which DM and capsule ciphertext expires (at least 90). */
  readonly retentionDays: number
  /** The leaf that set the retention (the charter, 0): an expired body's policy_index. */
  readonly retentionIndex: number
}

/**
 * A DM's or a capsule's ciphertext, in log order, which is the order of expiry (`logged`
 * never goes backwards and retention_days is leaf 0's term): what the ciphertext budget
 * counts and what retention walks (app/BodyLedger.ts).
 */
export interface CiphertextRecord {
  /** The leaf, and the U64 digest of the ciphertext it names. */
  readonly index: number
  readonly digest: string
  /** Unix ms from which the ciphertext is expired (bodyStatus.ts expiresUnder). */
  readonly expiresAt: number
  /** Its declared size, and the bytes of all the ciphertext before it in the log. */
  readonly size: number
  readonly before: number
}

export interface LogState {
  /** Leaves applied: the index the next leaf gets. */
  readonly size: number
  /** Unix ms of the last leaf (the next `logged` is never earlier). */
  readonly lastLogged: number
  readonly service: ServiceKeys | undefined
  readonly chains: HashMap.HashMap<string, ChainHead>
  readonly names: HashMap.HashMap<string, NameRecord>
  /** Claimed names in claim order: the directory's stable order. */
  readonly nameOrder: Chunk.Chunk<string>
  /** kid -> the name it currently acts for. */
  readonly keyNames: HashMap.HashMap<string, string>
  /** A key some claim named as its name's recovery key -> the first such name. */
  readonly recoveryOf: HashMap.HashMap<string, string>
  readonly keys: HashMap.HashMap<string, KeyRecord>
  /** Indexes of post leaves (replies must name one). */
  readonly posts: HashSet.HashSet<number>
  /** Grant leaves by index, and each signer's grants in log order. */
  readonly grants: HashMap.HashMap<number, GrantRecord>
  readonly grantsBySigner: HashMap.HashMap<string, Chunk.Chunk<number>>
  /** Each recipient kid's messages, log order. */
  readonly inboxes: HashMap.HashMap<string, Chunk.Chunk<MessageRecord>>
  /** Capsule slots by slot, and each owner's slots in order of their first write. */
  readonly capsules: HashMap.HashMap<string, CapsuleRecord>
  readonly capsulesByOwner: HashMap.HashMap<string, Chunk.Chunk<string>>
  /** Leaf -> U64 digest of the off-leaf body it names (what a tombstone can hide). */
  readonly bodies: HashMap.HashMap<number, string>
  /** U64 digest -> every entry naming that body, log order (a body fetched by digest). */
  readonly bodyNaming: HashMap.HashMap<string, Chunk.Chunk<BodyEntry>>
  /** Every ciphertext leaf, log order, and the bytes of them all (the budget's total). */
  readonly ciphertexts: Chunk.Chunk<CiphertextRecord>
  readonly ciphertextBytes: number
  readonly governance: GovernanceState
  readonly forum: ForumState
  readonly sup: SupState
  readonly tasks: TaskState
  /** Each key's latest public leaf, newest last (telemetry/activity.ts): who is online. */
  readonly activity: ActivityState
  /**
   * The usage counts (stats/usageTallies.ts) of the store a slice was loaded from: no rule
   * moves them, a fold step adds what it changed (stateSlice.ts changesOf). Empty in a
   * state folded whole, which was loaded from the empty state.
   */
  readonly tallies: UsageTallies
}

export const emptyLogState: LogState = {
  size: 0,
  lastLogged: 0,
  service: undefined,
  chains: HashMap.empty(),
  names: HashMap.empty(),
  nameOrder: Chunk.empty(),
  keyNames: HashMap.empty(),
  recoveryOf: HashMap.empty(),
  keys: HashMap.empty(),
  posts: HashSet.empty(),
  grants: HashMap.empty(),
  grantsBySigner: HashMap.empty(),
  inboxes: HashMap.empty(),
  capsules: HashMap.empty(),
  capsulesByOwner: HashMap.empty(),
  bodies: HashMap.empty(),
  bodyNaming: HashMap.empty(),
  ciphertexts: Chunk.empty(),
  ciphertextBytes: 0,
  governance: {
    freeze: { frozenIndex: null, events: Chunk.empty() },
    suspensions: HashMap.empty(),
    tombstones: HashMap.empty(),
    tombstoneLeaves: HashMap.empty(),
    policies: Chunk.empty(),
    noticeReports: HashMap.empty(),
    audits: Chunk.empty()
  },
  forum: {
    postMeta: HashMap.empty(),
    postOrder: Chunk.empty(),
    channelPosts: HashMap.empty(),
    polls: HashMap.empty(),
    pollOrder: Chunk.empty(),
    channelPolls: HashMap.empty(),
    votes: HashMap.empty()
  },
  sup: {
    accounts: HashMap.empty(),
    claims: HashMap.empty(),
    transactions: HashMap.empty(),
    creditedTotal: 0,
    spentTotal: 0,
    contributionsCredited: 0
  },
  tasks: { tasks: HashMap.empty(), taskOrder: Chunk.empty(), quotes: HashMap.empty(), requests: HashMap.empty() },
  activity: emptyActivity,
  tallies: emptyTallies
}

/** Appends to the sequence a persistent map holds under the key (O(log n), no copy). */
export const appendAt = <K, V>(map: HashMap.HashMap<K, Chunk.Chunk<V>>, key: K, value: V): HashMap.HashMap<K, Chunk.Chunk<V>> =>
  HashMap.set(map, key, Chunk.append(Option.getOrElse(HashMap.get(map, key), () => Chunk.empty<V>()), value))

/** The key's record, or a fresh one for a key the log has not seen. */
export const keyRecordOf = (state: LogState, kid: string): KeyRecord => {
  const found = HashMap.get(state.keys, kid)
  return found._tag === "Some"
    ? found.value
    : { kid, name: null, boundIndex: null, unboundIndex: null, envelopes: Chunk.empty() }
}
