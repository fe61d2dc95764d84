// Key view, GET /v2/keys/{kid} (docs/spec/service.md "Projections"): the name the key was bound to,
// whether it is current (still acts for it), and its envelope chain, one page of leaf
// indexes at a time (from, limit, next_from as the inbox pages); and the names whose claim
// named it as their recovery key, with whether it still stands for them (docs/protocol.md
// 10.1), a page at a time in claim order (recovery_from, recovery_next_from). A key the log
// names only as a recovery key (it never signed a leaf) has a view too.

import * as Chunk from "effect/Chunk"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { keptApart, nameRecordOf, type RecoveryClaim } from "../identity/bindings.js"
import { keyRecordOf, type LogState, type NameTier } from "../write/logState.js"
import type { RowKey } from "../write/stateReads.js"
import { chunkRange, lowerBound } from "./chunks.js"
import { sizeCovering } from "./coverage.js"
import { KEY_RECOVERY_NAMES_LISTED, type PageQuery } from "./limits.js"

/** A name whose claim named the key as its recovery key. */
export interface RecoveryOfView {
  readonly name: string
  /** The claim that named the key (the name view's recovery_index). */
  readonly claim_index: number
  /** Whether the key may still rotate the name: false once it holds or held a name of its own. */
  readonly stands: boolean
}

export interface KeyView {
  readonly kid: string
  /** The name it was bound to (now or before a rotation), or null. */
  readonly name: string | null
  readonly tier: NameTier | null
  /** Whether it acts for `name` now. */
  readonly current: boolean
  /** The claim or rotation that bound it, and the rotation that unbound it. */
  readonly bound_index: number | null
  readonly unbound_index: number | null
  /** seq and leaf of its last accepted envelope (null before its first). */
  readonly seq: number | null
  readonly head_index: number | null
  /** Its envelopes with index >= from, log order, at most limit. */
  readonly indices: ReadonlyArray<number>
  /** Where the next page starts, or null when this one holds the last envelope. */
  readonly next_from: number | null
  /** The names that named it as their recovery key, claimed at or after recovery_from, claim order, at most KEY_RECOVERY_NAMES_LISTED. */
  readonly recovery_of: ReadonlyArray<RecoveryOfView>
  /** The claim index the next page of recovery_of starts at, or null when this one holds the last. */
  readonly recovery_next_from: number | null
  readonly size: number
}

/** The key view's pages: its envelopes (from, limit) and the names it is the recovery key of (from recoveryFrom, default 0). */
export interface KeyPageQuery extends PageQuery {
  readonly recoveryFrom?: number | undefined
}

/**
 * The view from a slice holding the key's row, its chain head, whether a claim named it as
 * recovery key and the name it was bound to (keyReads); `following`: the key's envelopes
 * from the page's start (the first with index >= from), log order, at most `limit` + 1 (the
 * one after the page says where the next starts); and `recoveryOf`: the names whose claim
 * named it as recovery key from the page's start, claim order, at most
 * KEY_RECOVERY_NAMES_LISTED + 1.
 */
export const keyViewOf = (
  slice: LogState,
  kid: string,
  following: ReadonlyArray<number>,
  limit: number,
  recoveryOf: ReadonlyArray<RecoveryClaim>
): Either.Either<KeyView, "key_not_found"> => {
  const found = Option.getOrUndefined(HashMap.get(slice.keys, kid))
  if (found === undefined && !HashMap.has(slice.recoveryOf, kid)) return Either.left("key_not_found")
  const key = found ?? keyRecordOf(slice, kid)
  const head = Option.getOrUndefined(HashMap.get(slice.chains, kid))
  const indices = following.slice(0, limit)
  // One standing for every name: a key that holds or held a name of its own rotates none.
  const stands = keptApart(found)
  const recovery = recoveryOf.slice(0, KEY_RECOVERY_NAMES_LISTED).map((claim) => ({ name: claim.name, claim_index: claim.claimIndex, stands }))
  return Either.right({
    kid,
    name: key.name,
    tier: key.name === null ? null : nameRecordOf(slice, key.name)?.tier ?? null,
    current: key.name !== null && key.unboundIndex === null,
    bound_index: key.boundIndex,
    unbound_index: key.unboundIndex,
    seq: head?.seq ?? null,
    head_index: head?.index ?? null,
    indices,
    next_from: following[limit] ?? null,
    recovery_of: recovery,
    recovery_next_from: recoveryOf[KEY_RECOVERY_NAMES_LISTED]?.claimIndex ?? null,
    size: sizeCovering([...indices, key.boundIndex, key.unboundIndex, head?.index ?? null, ...recovery.map((r) => r.claim_index)])
  })
}

/** The rows keyViewOf reads: the key, its chain head, whether a claim named it as recovery key, then the name it was bound to. */
export const keyReads = (kid: string) => (slice: LogState): ReadonlyArray<RowKey> => {
  const name = Option.getOrUndefined(HashMap.get(slice.keys, kid))?.name
  return [
    { area: "keys", key: kid },
    { area: "chains", key: kid },
    { area: "recoveryOf", key: kid },
    ...(name == null ? [] : [{ area: "names" as const, key: name }])
  ]
}

/** On a whole state: the names whose claim named `kid` as recovery key, claimed at or after `from`, claim order, at most `count`. */
export const recoveryClaimsOf = (state: LogState, kid: string, from: number, count: number): ReadonlyArray<RecoveryClaim> => {
  const claims: Array<RecoveryClaim> = []
  if (!HashMap.has(state.recoveryOf, kid)) return claims
  // Read by position: a scan that stops at `count` never copies the whole sequence.
  for (let i = 0; i < state.nameOrder.length && claims.length < count; i++) {
    const record = nameRecordOf(state, Chunk.unsafeGet(state.nameOrder, i))!
    if (record.recovery === kid && record.claimIndex >= from) claims.push({ name: record.name, claimIndex: record.claimIndex })
  }
  return claims
}

/** The view on a whole state (its envelopes and names in memory). */
export const keyView = (state: LogState, kid: string, page: KeyPageQuery): Either.Either<KeyView, "key_not_found"> => {
  const envelopes = keyRecordOf(state, kid).envelopes
  const start = lowerBound(envelopes, (i) => i, page.from)
  return keyViewOf(
    state,
    kid,
    chunkRange(envelopes, start, start + page.limit + 1),
    page.limit,
    recoveryClaimsOf(state, kid, page.recoveryFrom ?? 0, KEY_RECOVERY_NAMES_LISTED + 1)
  )
}
