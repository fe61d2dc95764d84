// Inboxes, grants and capsules (docs/spec/service.md "Messaging and capsules", "Projections"),
// read from the projection store (issue 12): an inbox is paged by leaf index
// (listReads.ts), so a page costs what it shows whatever the inbox's length; the grants of
// a key, an owner's slots and a slot's writes are shown whole, so they are read whole.
// Shared by the HTTP handlers and the text gate.

import { Effect, type Either, HashMap, Option } from "effect"
import { governingAfter, GOVERNING_START, grantOf } from "../domain/messaging/grants.js"
import { capsuleListOf, capsuleListReads, type CapsuleListView } from "../domain/views/capsuleList.js"
import { capsuleSlotOf, type CapsuleSlotView } from "../domain/views/capsuleSlot.js"
import { grantsReads, type GrantsView, grantsViewOf } from "../domain/views/grantsView.js"
import { firstUnreadIndex, inboxStatusOf, type InboxStatusView } from "../domain/views/inboxStatus.js"
import { inboxFrom, type InboxQuery, inboxReads, type InboxView, inboxViewOf } from "../domain/views/inboxView.js"
import type { CapsuleRecord, GrantRecord, LogState, MessageRecord } from "../domain/write/logState.js"
import type { StorageError } from "../ports/StorageError.js"
import { elementsFromIndex, newestUntil, positionFrom, wholeList } from "./listReads.js"
import type { StateReader } from "./StateReader.js"

type Reader = typeof StateReader.Service

const messageIndex = (message: MessageRecord): number => message.index

/** GET /v2/inbox/status: total, unread after `readThrough` (null: nothing read), latest. */
export const inboxStatusFrom = (reader: Reader, kid: string, readThrough: number | null): Effect.Effect<InboxStatusView, StorageError> =>
  Effect.map(
    positionFrom(reader, "inboxes", kid, messageIndex, firstUnreadIndex(readThrough)),
    ({ position, length, last }) => inboxStatusOf(kid, length, position, last)
  )

/** The message to the key at a leaf index, if there is one. */
export const messageAt = (reader: Reader, kid: string, index: number): Effect.Effect<MessageRecord | undefined, StorageError> =>
  Effect.map(elementsFromIndex(reader, "inboxes", kid, messageIndex, index, 1), ([found]) => found?.index === index ? found : undefined)

/** GET /v2/inbox/{kid} and the messages of the signed GET /v2/inbox: one page by leaf index. */
export const inboxViewFrom = (reader: Reader, kid: string, query: InboxQuery, now: number): Effect.Effect<InboxView, StorageError> =>
  Effect.gen(function*() {
    const following = yield* elementsFromIndex(reader, "inboxes", kid, messageIndex, inboxFrom(query), query.limit + 1)
    return inboxViewOf(yield* reader.slice(inboxReads(following, query.limit)), kid, following, query, now)
  })

/** GET /v2/inbox/{kid}/grants: every grant the key signed, and the one governing `sender`'s DMs when asked. */
export const grantsViewFrom = (reader: Reader, kid: string, sender: string | undefined, now: number): Effect.Effect<GrantsView, StorageError> =>
  Effect.gen(function*() {
    const indexes = yield* wholeList<number>(reader, "grantsBySigner", kid)
    return grantsViewOf(yield* reader.slice(grantsReads(indexes)), kid, indexes, sender, now)
  })

/** Grants read at once while searching for the governing one. */
const GRANTS_PAGE = 64

/**
 * The recipient's grants newest first, as far as the search for the grant governing
 * `sender`'s DMs at `at` reads them (messaging/grants.ts): to the newest in force naming
 * the sender, or all of them when none does.
 */
export const governingGrantsFrom = (reader: Reader, recipient: string, sender: string, at: number): Effect.Effect<ReadonlyArray<GrantRecord>, StorageError> =>
  Effect.gen(function*() {
    const read: Array<GrantRecord> = []
    let search = GOVERNING_START
    yield* newestUntil<number, StorageError>(reader, "grantsBySigner", recipient, GRANTS_PAGE, (page) =>
      Effect.map(reader.slice(grantsReads(page)), (slice) => {
        const grants = page.map((index) => grantOf(slice, index)!)
        read.push(...grants)
        search = governingAfter(search, grants, sender, at)
        return search.named !== null
      }))
    return read
  })

/**
 * A slot's writes as of its record: writes folded after the record was read are left out,
 * so the current write (`index`) is the last of them, as in one state.
 */
const writesOf = (reader: Reader, capsule: CapsuleRecord): Effect.Effect<ReadonlyArray<number>, StorageError> =>
  Effect.map(wholeList<number>(reader, "capsuleWrites", capsule.slot), (writes) => writes.filter((index) => index <= capsule.index))

const capsuleOf = (slice: LogState, slot: string): CapsuleRecord | undefined => Option.getOrUndefined(HashMap.get(slice.capsules, slot))

/** GET /v2/capsules: every slot the key owns, with its current write and every write. */
export const capsuleListFrom = (reader: Reader, kid: string, now: number): Effect.Effect<CapsuleListView, StorageError> =>
  Effect.gen(function*() {
    const slots = yield* wholeList<string>(reader, "capsulesByOwner", kid)
    const slice = yield* reader.slice(capsuleListReads(slots))
    const writes = new Map<string, ReadonlyArray<number>>()
    for (const slot of slots) writes.set(slot, yield* writesOf(reader, capsuleOf(slice, slot)!))
    return capsuleListOf(slice, kid, slots, (slot) => writes.get(slot)!, now)
  })

/** GET /v2/capsules/{key_hash}: one slot. */
export const capsuleSlotFrom = (reader: Reader, slot: string, now: number): Effect.Effect<Either.Either<CapsuleSlotView, "capsule_not_found">, StorageError> =>
  Effect.gen(function*() {
    const slice = yield* reader.slice(capsuleListReads([slot]))
    const capsule = capsuleOf(slice, slot)
    return capsuleSlotOf(slice, slot, capsule === undefined ? [] : yield* writesOf(reader, capsule), now)
  })
