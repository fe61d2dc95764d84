// Inbox of a key, GET /v2/inbox/{kid} (docs/spec/service.md "Projections"), and the messages of the
// signed GET /v2/inbox: each DM to the key with its public metadata, its grant and its body
// status at `now` (never the body), in log order from the leaf index `from`, at most
// `limit`, with `next_from` (the next message's index) when more remain. With `unreadOnly`
// the page starts after `readThrough` (inboxStatus.ts). With `ctBytes` (the signed read,
// which inlines ciphertext: limits.ts INBOX_PAGE_CT_BYTES) the page also ends before the
// message whose available ciphertext would take it past that many bytes, and `next_from`
// names that message; the first message always fits, so following `next_from` advances. The app adds `checkpoint_note`,
// and for /v2/inbox each message's ciphertext and the sender's signed envelope.

import type { LogState, MessageRecord } from "../write/logState.js"
import type { RowKey } from "../write/stateReads.js"
import { chunkRange, lowerBound } from "./chunks.js"
import { sizeCovering } from "./coverage.js"
import { inboxOf } from "./inboxStatus.js"
import { messageView, type MessageView } from "./items.js"
import type { PageQuery } from "./limits.js"

export interface InboxView {
  readonly kid: string
  readonly indices: ReadonlyArray<number>
  readonly size: number
  readonly messages: ReadonlyArray<MessageView>
  readonly next_from: number | null
}

export interface InboxQuery extends PageQuery {
  readonly unreadOnly?: boolean
  readonly readThrough?: number | null
  /** Ciphertext bytes the page may carry at most (only available bodies are inlined). */
  readonly ctBytes?: number
}

/** How many of the leading messages fit in `budget` bytes of available ciphertext (at least one). */
const fitting = (messages: ReadonlyArray<MessageView>, budget: number): number => {
  let bytes = 0
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!
    bytes += m.body.state === "available" ? m.size : 0
    if (bytes > budget && i > 0) return i
  }
  return messages.length
}

/** The leaf index a page starts at: `from`, or after the read cursor when only unread messages are asked for. */
export const inboxFrom = (query: InboxQuery): number =>
  query.unreadOnly === true && query.readThrough != null ? Math.max(query.from, query.readThrough + 1) : query.from

/**
 * The view from `following`, the inbox's messages from the page's start (the first with
 * index >= inboxFrom(query)), log order, at most `limit` + 1 (the one after the page says
 * where the next starts), and a slice holding their grants (inboxReads).
 */
export const inboxViewOf = (slice: LogState, kid: string, following: ReadonlyArray<MessageRecord>, query: InboxQuery, now: number): InboxView => {
  const listed = following.slice(0, query.limit).map((m) => messageView(slice, m, now))
  const messages = query.ctBytes === undefined ? listed : listed.slice(0, fitting(listed, query.ctBytes))
  const indices = messages.map((m) => m.index)
  return {
    kid,
    indices,
    // A DM cites only earlier leaves (its grant, its X25519 leaf), so its own index covers them.
    size: sizeCovering(indices),
    messages,
    next_from: following[messages.length]?.index ?? null
  }
}

/** The rows inboxViewOf reads of a page: the grants its messages cite. */
export const inboxReads = (following: ReadonlyArray<MessageRecord>, limit: number): ReadonlyArray<RowKey> =>
  [...new Set(following.slice(0, limit).map((m) => m.grantIndex))].map((index) => ({ area: "grants", key: String(index) }))

/** The view on a whole state (its inboxes in memory). */
export const inboxView = (state: LogState, kid: string, query: InboxQuery, now: number): InboxView => {
  const inbox = inboxOf(state, kid)
  const start = lowerBound(inbox, (m) => m.index, inboxFrom(query))
  return inboxViewOf(state, kid, chunkRange(inbox, start, start + query.limit + 1), query, now)
}
