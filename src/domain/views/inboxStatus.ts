// Inbox status, GET /v2/inbox/status (docs/spec/service.md "Messaging and capsules" and
// "Projections"): unread count, total count and the latest message's index, for a key.
// Reading writes no leaf, so what has been read is the app's record: `readThrough`, the
// index of the last message the key has read (null for none); later messages are unread.

import { Chunk, HashMap, Option } from "effect"
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

export const inboxStatus = (state: LogState, kid: string, readThrough: number | null): InboxStatusView => {
  const inbox = inboxOf(state, kid)
  const firstUnread = readThrough === null ? 0 : lowerBound(inbox, (m) => m.index, readThrough + 1)
  return {
    kid,
    unread: inbox.length - firstUnread,
    total: inbox.length,
    latest_index: lastOf(inbox)?.index ?? null
  }
}
