// Inbox status, GET /v2/inbox/status (docs/spec/service.md "Messaging and capsules" and
// "Projections"): unread count, total count and the latest message's index, for a key.
// Reading writes no leaf, so what has been read is the app's record: `readThrough`, the
// index of the last message the key has read (null for none); later messages are unread.

import * as Chunk from "effect/Chunk"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import type { LogState, MessageRecord } from "../write/logState.js"
import { lastOf, lowerBound } from "./chunks.js"

export interface InboxStatusView {
  readonly kid: string
  readonly unread: number
  readonly total: number
  readonly latest_index: number | null
}

export const inboxOf = (state: LogState, kid: string): Chunk.Chunk<MessageRecord> =>
  Option.getOrElse(HashMap.get(state.inboxes, kid), () => Chunk.empty<MessageRecord>())

/**
 * The status from where the inbox stands: its length, the position of its first message
 * after `readThrough` (0 when none was read), and its last message.
 */
export const inboxStatusOf = (kid: string, length: number, firstUnread: number, last: MessageRecord | undefined): InboxStatusView => ({
  kid,
  unread: length - firstUnread,
  total: length,
  latest_index: last?.index ?? null
})

/** The first leaf index a read cursor leaves unread (every one when nothing was read). */
export const firstUnreadIndex = (readThrough: number | null): number => readThrough === null ? 0 : readThrough + 1

/** The status on a whole state (its inboxes in memory). */
export const inboxStatus = (state: LogState, kid: string, readThrough: number | null): InboxStatusView => {
  const inbox = inboxOf(state, kid)
  return inboxStatusOf(kid, inbox.length, lowerBound(inbox, (m) => m.index, firstUnreadIndex(readThrough)), lastOf(inbox))
}
