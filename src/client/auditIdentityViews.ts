// The identity views `aics audit log` compares with the replayed log: the directory
// (GET /v2/directory), names (GET /v2/names/{name}), keys (GET /v2/keys/{kid}: the chain
// head's seq and leaf, the name the key is bound to and whether a rotation unbound it, every
// page of its envelopes and of the names it is the recovery key of) and each key's grants
// (GET /v2/inbox/{kid}/grants), each by the domain function the service answers with.
//
// A log of many names cannot be asked a request per name and per key in reasonable time
// (each name costs a name view, keys and grants: a few requests), and the directory has no
// cursor: it shows the first DIRECTORY_LIMIT.max names in claim order (then `truncated`),
// others only through `q`. So the audit compares that first page whole (every entry on it),
// the views of NAMES_SAMPLED names spread over claim order (auditSample.ts), each past the
// first page with its directory entry too (`q` = the name), the keys of every name compared
// (its latest KEYS_PER_NAME keys and its recovery key) and KEYS_SAMPLED keys spread over
// the whole log (those of no name too), each key with every page of its view and its
// grants. On a log within those bounds that is every name and every key; the report says
// how many of how many were compared. The views are planned from the replayed state and
// kept as small closures: nothing of the log is copied.

import * as Chunk from "effect/Chunk"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import { nameRecordOf } from "../domain/identity/bindings.js"
import { directoryView } from "../domain/views/directory.js"
import { grantsView } from "../domain/views/grantsView.js"
import { keyView, type KeyView } from "../domain/views/keyView.js"
import { DIRECTORY_LIMIT, KEY_ENVELOPES_LIMIT } from "../domain/views/limits.js"
import { nameView } from "../domain/views/nameView.js"
import type { LogState, NameRecord } from "../domain/write/logState.js"
import { reachOfItems, type AuditedView } from "./auditedView.js"
import { itemsAt, spreadPositions, type Sampled } from "./auditSample.js"
import { queryString } from "./forum.js"

/** Names a directory page holds at most: the first page, asked unfiltered, is every name up to it. */
const DIRECTORY_PAGE = DIRECTORY_LIMIT.max
/** Names whose view is compared (the directory's first page is compared whole besides). */
const NAMES_SAMPLED = 100
/** Keys compared of the whole log, besides those of the names compared. */
export const KEYS_SAMPLED = 100
/** A name's keys compared: its current one and the ones before it, newest first. */
const KEYS_PER_NAME = 3
/** Envelopes a key view's page lists at most: its pages are asked at this limit. */
const KEY_PAGE = KEY_ENVELOPES_LIMIT.max

/** A directory page: unfiltered, or of the names holding `q`. A recovery key bound since or a name claimed since changes it unseen: reachPartial. */
const directoryPage = (q: string | undefined): AuditedView => ({
  path: `/v2/directory${queryString({ q, limit: DIRECTORY_PAGE })}`,
  implied: (state) => directoryView(state, { q, limit: DIRECTORY_PAGE }),
  reach: (json) => reachOfItems(json["names"], ["claim_index", "kid_index", "x25519_index"]),
  unsigned: true,
  reachPartial: true
})

const nameAudited = (name: string): AuditedView => ({
  path: `/v2/names/${encodeURIComponent(name)}`,
  implied: (state) => Either.getOrUndefined(nameView(state, name))
})

/** A page of a key's view: its envelopes from `from` and the names it is the recovery key of from `recoveryFrom`. */
const keyPage = (kid: string, from: number, recoveryFrom: number): AuditedView => ({
  path: `/v2/keys/${encodeURIComponent(kid)}${queryString({ from, limit: KEY_PAGE, recovery_from: recoveryFrom })}`,
  implied: (state) => Either.getOrUndefined(keyView(state, kid, { from, limit: KEY_PAGE, recoveryFrom })),
  unsigned: true
})

/**
 * Every page of a key's view the log implies, both lists walked at once (so a page cut
 * short is still asked for the rest); a list walked to its end is asked past the log's
 * size, where it is empty.
 */
const keyPages = (state: LogState, kid: string): Array<AuditedView> => {
  const pages: Array<AuditedView> = []
  for (let from: number | null = 0, recoveryFrom: number | null = 0; from !== null || recoveryFrom !== null;) {
    const page: { from: number; recoveryFrom: number } = { from: from ?? state.size, recoveryFrom: recoveryFrom ?? state.size }
    pages.push(keyPage(kid, page.from, page.recoveryFrom))
    const view: KeyView | undefined = Either.getOrUndefined(keyView(state, kid, { ...page, limit: KEY_PAGE }))
    from = from === null ? null : view?.next_from ?? null
    recoveryFrom = recoveryFrom === null ? null : view?.recovery_next_from ?? null
  }
  return pages
}

const grantsAudited = (kid: string): AuditedView => ({
  path: `/v2/inbox/${encodeURIComponent(kid)}/grants`,
  implied: (state, at) => grantsView(state, kid, undefined, at),
  unsigned: true
})

/** The keys of a name compared: the latest KEYS_PER_NAME its key events bound (or unbound), and its recovery key. */
const keysOfName = (record: NameRecord): Array<string> => {
  const kids: Array<string> = []
  for (let i = record.events.length - 1; i >= 0 && kids.length < KEYS_PER_NAME; i--) {
    const event = Chunk.unsafeGet(record.events, i)
    const bound = event.type === "claim" ? [event.kid] : event.type === "key.rotate" ? [event.kid, event.prevKid] : []
    for (const kid of bound) if (kids.length < KEYS_PER_NAME && !kids.includes(kid)) kids.push(kid)
  }
  return record.recovery === null ? kids : [...kids, record.recovery]
}

/** Keys the log has a view of: those that signed a leaf or were bound, and those only a claim names as recovery key. */
const keysTotal = (state: LogState): number => {
  let recoveryOnly = 0
  for (const kid of HashMap.keys(state.recoveryOf)) if (!HashMap.has(state.keys, kid)) recoveryOnly++
  return HashMap.size(state.keys) + recoveryOnly
}

export interface IdentityViews {
  readonly views: ReadonlyArray<AuditedView>
  readonly names: Sampled
  readonly keys: Sampled
}

/** The identity views compared with the log replayed into `state`, the sample past the bounds set by `seed` (the audit's own draw). */
export const identityViews = (state: LogState, seed: Uint8Array): IdentityViews => {
  const total = state.nameOrder.length
  const positions = spreadPositions(total, NAMES_SAMPLED, seed)
  const kids = new Set<string>()
  for (const position of positions) for (const kid of keysOfName(nameRecordOf(state, Chunk.unsafeGet(state.nameOrder, position))!)) kids.add(kid)
  for (const kid of itemsAt(HashMap.keys(state.keys), spreadPositions(HashMap.size(state.keys), KEYS_SAMPLED, seed))) kids.add(kid)
  return {
    views: [
      directoryPage(undefined),
      ...positions.flatMap((position) => {
        const name = Chunk.unsafeGet(state.nameOrder, position)
        return position < DIRECTORY_PAGE ? [nameAudited(name)] : [directoryPage(name), nameAudited(name)]
      }),
      ...[...kids].flatMap((kid) => [...keyPages(state, kid), grantsAudited(kid)])
    ],
    names: { compared: positions.length, total },
    keys: { compared: kids.size, total: keysTotal(state) }
  }
}
