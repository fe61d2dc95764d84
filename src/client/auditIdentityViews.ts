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

import { Chunk, Effect, Either, Option, Stream } from "effect"
import { directoryFrom, keyViewFrom, nameViewFrom } from "../app/identityViews.js"
import { grantsViewFrom } from "../app/messagingViews.js"
import type { KeyView } from "../domain/views/keyView.js"
import { DIRECTORY_LIMIT, KEY_ENVELOPES_LIMIT } from "../domain/views/limits.js"
import type { NameRecord } from "../domain/write/logState.js"
import type { StorageError } from "../ports/StorageError.js"
import { reachOfItems, type AuditedView } from "./auditedView.js"
import { itemsAt, KEYS_PAGE, keysInOrder, spreadPositions, type Sampled } from "./auditSample.js"
import { queryString } from "./forum.js"
import type { ReplayViews } from "./replayStore.js"

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
  implied: (views) => directoryFrom(views.store, views.reader.sliceFor, { q, limit: DIRECTORY_PAGE }),
  reach: (json) => reachOfItems(json["names"], ["claim_index", "kid_index", "x25519_index"]),
  unsigned: true,
  reachPartial: true
})

const nameAudited = (name: string): AuditedView => ({
  path: `/v2/names/${encodeURIComponent(name)}`,
  implied: (views) => Effect.map(nameViewFrom(views.reader.sliceFor, name), Either.getOrUndefined)
})

/** The key view's page of the replayed log, or undefined when it has no such key. */
const keyViewPage = (views: ReplayViews, kid: string, page: { from: number; recoveryFrom: number }): Effect.Effect<KeyView | undefined, StorageError> =>
  Effect.map(keyViewFrom(views.reader, kid, { ...page, limit: KEY_PAGE }), Either.getOrUndefined)

/** A page of a key's view: its envelopes from `from` and the names it is the recovery key of from `recoveryFrom`. */
const keyPage = (kid: string, from: number, recoveryFrom: number): AuditedView => ({
  path: `/v2/keys/${encodeURIComponent(kid)}${queryString({ from, limit: KEY_PAGE, recovery_from: recoveryFrom })}`,
  implied: (views) => keyViewPage(views, kid, { from, recoveryFrom }),
  unsigned: true
})

/**
 * Every page of a key's view the log implies, both lists walked at once (so a page cut
 * short is still asked for the rest); a list walked to its end is asked past the log's
 * size, where it is empty.
 */
const keyPages = (views: ReplayViews, size: number, kid: string): Effect.Effect<Array<AuditedView>, StorageError> =>
  Effect.gen(function*() {
    const pages: Array<AuditedView> = []
    for (let from: number | null = 0, recoveryFrom: number | null = 0; from !== null || recoveryFrom !== null;) {
      const page: { from: number; recoveryFrom: number } = { from: from ?? size, recoveryFrom: recoveryFrom ?? size }
      pages.push(keyPage(kid, page.from, page.recoveryFrom))
      const view: KeyView | undefined = yield* keyViewPage(views, kid, page)
      from = from === null ? null : view?.next_from ?? null
      recoveryFrom = recoveryFrom === null ? null : view?.recovery_next_from ?? null
    }
    return pages
  })

const grantsAudited = (kid: string): AuditedView => ({
  path: `/v2/inbox/${encodeURIComponent(kid)}/grants`,
  implied: (views, at) => grantsViewFrom(views.reader, kid, undefined, at),
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

/** Every name, claim order (the directory's pages, unfiltered). */
const namesInClaimOrder = (views: ReplayViews): Stream.Stream<string, StorageError> =>
  Stream.paginateChunkEffect(-1, (after) =>
    Effect.map(views.store.directory({ after, limit: KEYS_PAGE }), (page) => {
      const last = page.names[page.names.length - 1]
      return [Chunk.fromIterable(page.names.map((record) => record.name)), page.truncated && last !== undefined ? Option.some(last.claimIndex) : Option.none()] as const
    }))

/** Keys the log has a view of: the `recorded` it holds a record of (they signed a leaf or were bound), and those only a claim names as recovery key. */
const keysTotal = (views: ReplayViews, recorded: number): Effect.Effect<number, StorageError> =>
  Effect.gen(function*() {
    const recoveryOnly = yield* keysInOrder((query) => views.store.rowKeys("recoveryOf", query)).pipe(
      Stream.grouped(KEYS_PAGE),
      Stream.mapEffect((kids) => Effect.map(views.store.rows(Chunk.toReadonlyArray(kids).map((key) => ({ area: "keys" as const, key }))), (found) => Chunk.size(kids) - found.rows.length)),
      Stream.runSum
    )
    return recorded + recoveryOnly
  })

export interface IdentityViews {
  readonly views: ReadonlyArray<AuditedView>
  readonly names: Sampled
  readonly keys: Sampled
}

/** The identity views compared with the log replayed into `views`' store (`size` leaves), the sample past the bounds set by `seed` (the audit's own draw). */
export const identityViews = (views: ReplayViews, size: number, seed: Uint8Array): Effect.Effect<IdentityViews, StorageError> =>
  Effect.gen(function*() {
    const names = namesInClaimOrder(views)
    const total = yield* Stream.runCount(names)
    const positions = spreadPositions(total, NAMES_SAMPLED, seed)
    const sampledNames = yield* itemsAt(names, positions)
    const records = yield* views.store.names(sampledNames)
    const kids = new Set<string>()
    for (const name of sampledNames) for (const kid of keysOfName(records.get(name)!)) kids.add(kid)
    const keys = keysInOrder((query) => views.store.rowKeys("keys", query))
    const keyCount = yield* Stream.runCount(keys)
    for (const kid of yield* itemsAt(keys, spreadPositions(keyCount, KEYS_SAMPLED, seed))) kids.add(kid)
    const keyViews: Array<AuditedView> = []
    for (const kid of kids) keyViews.push(...yield* keyPages(views, size, kid), grantsAudited(kid))
    return {
      views: [
        directoryPage(undefined),
        ...sampledNames.flatMap((name, i) => (positions[i]! < DIRECTORY_PAGE ? [nameAudited(name)] : [directoryPage(name), nameAudited(name)])),
        ...keyViews
      ],
      names: { compared: positions.length, total },
      keys: { compared: kids.size, total: yield* keysTotal(views, keyCount) }
    }
  })
