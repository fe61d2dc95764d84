// When a grant is in force (docs/spec/profile.md section 5, grant and dm; docs/spec/service.md "Projections",
// grants). One rule serves the dm check in the sequencer (at the dm's `logged`) and the
// grants view (at `now`), so a view never calls in force a grant a dm would be refused on.
//
// A grant is in force at time t (Unix ms) when it is not revoked, t is before `until`
// (`until` is the first second it no longer holds), and fewer than `limit` DMs have cited
// it. It admits a DM from `sender` to `to` when, in addition, `to` signed it and it names
// that sender or "*".

import * as Chunk from "effect/Chunk"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import type { GrantRecord, LogState } from "../write/logState.js"

/** Why the grant is not in force at `at` (Unix ms), or undefined when it is. */
export const grantLapse = (grant: GrantRecord, at: number): string | undefined => {
  if (grant.revokedIndex !== null) return `grant ${grant.index} was revoked by leaf ${grant.revokedIndex}`
  if (grant.until !== null && at >= grant.until * 1000) return `grant ${grant.index} ended at ${grant.until}`
  if (grant.limit !== null && grant.uses >= grant.limit) return `grant ${grant.index} has admitted its ${grant.limit} DMs`
  return undefined
}

export const grantInForce = (grant: GrantRecord, at: number): boolean => grantLapse(grant, at) === undefined

/** Why the grant does not admit a DM from `from` to `to` at `at`, or undefined when it does. */
export const grantRefusal = (grant: GrantRecord, from: string, to: string, at: number): string | undefined => {
  if (grant.signer !== to) return `grant ${grant.index} is not the recipient's`
  if (grant.sender !== "*" && grant.sender !== from) return `grant ${grant.index} is for another sender`
  return grantLapse(grant, at)
}

export const grantOf = (state: LogState, index: number): GrantRecord | undefined =>
  Option.getOrUndefined(HashMap.get(state.grants, index))

/** The grants the key signed, log order. */
export const grantsSignedBy = (state: LogState, kid: string): Chunk.Chunk<number> =>
  Option.getOrElse(HashMap.get(state.grantsBySigner, kid), () => Chunk.empty<number>())

/** Where the search for a sender's governing grant stands after some of the grants, newest first. */
export interface GoverningSearch {
  /** The newest grant in force naming the sender: once found, the search is over. */
  readonly named: number | null
  /** The newest "*" grant in force seen so far. */
  readonly wildcard: number | null
}

export const GOVERNING_START: GoverningSearch = { named: null, wildcard: null }

/**
 * The search after more of the recipient's grants, in order newest first (the grants after
 * those `search` has seen): a caller that reads the grants page by page stops once `named`
 * is set, since no older grant can change the answer.
 */
export const governingAfter = (search: GoverningSearch, newestFirst: Iterable<GrantRecord>, sender: string, at: number): GoverningSearch => {
  if (search.named !== null) return search
  let wildcard = search.wildcard
  for (const grant of newestFirst) {
    if (!grantInForce(grant, at)) continue
    if (grant.sender === sender) return { named: grant.index, wildcard }
    if (grant.sender === "*" && wildcard === null) wildcard = grant.index
  }
  return { named: null, wildcard }
}

/** The grant the search has found: the one naming the sender, else the newest "*" one, else null. */
export const governingOf = (search: GoverningSearch): number | null => search.named ?? search.wildcard

/**
 * The grant a DM from `sender` to `kid` should cite at `at` (docs/spec/service.md: `governing_index`):
 * the newest grant in force for that sender by name, else the newest "*" grant in force,
 * else null. A grant for the sender by name is the recipient's deliberate choice, so it
 * governs over a general one; among equals the newest wins. Reads the state's list of the
 * recipient's grants: a slice (domain/write/stateSlice.ts) must hold at least its newest
 * part up to the grant naming the sender (or all of it), and the grants' rows.
 */
export const governingGrant = (state: LogState, kid: string, sender: string, at: number): number | null => {
  const indexes = grantsSignedBy(state, kid)
  function* newestFirst() {
    for (let i = indexes.length - 1; i >= 0; i--) yield grantOf(state, Chunk.unsafeGet(indexes, i))!
  }
  return governingOf(governingAfter(GOVERNING_START, newestFirst(), sender, at))
}
