// Inbox of a key, GET /v2/inbox/{kid} (docs/spec/service.md "Projections"), and the messages of the
// signed GET /v2/inbox: each DM to the key with its public metadata, its grant and its body
// status at `now` (never the body), in log order from the leaf index `from`, at most
// `limit`, with `next_from` (the next message's index) when more remain. With `unreadOnly`
// the page starts after `readThrough` (inboxStatus.ts). With `ctBytes` (the signed read,
// which inlines ciphertext: limits.ts INBOX_PAGE_CT_BYTES) the page also ends before the
// message whose available ciphertext would take it past that many bytes, and `next_from`
// names that message; the first message always fits, so following `next_from` advances. The app adds `checkpoint_note`,
// and for /v2/inbox each message's ciphertext and the sender's signed envelope.

import { Chunk } from "effect"
import type { LogState } from "../write/logState.js"
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

export const inboxView = (state: LogState, kid: string, query: InboxQuery, now: number): InboxView => {
  const inbox = inboxOf(state, kid)
  const from = query.unreadOnly === true && query.readThrough != null ? Math.max(query.from, query.readThrough + 1) : query.from
  const start = lowerBound(inbox, (m) => m.index, from)
  const listed = chunkRange(inbox, start, start + query.limit).map((m) => messageView(state, m, now))
  const messages = query.ctBytes === undefined ? listed : listed.slice(0, fitting(listed, query.ctBytes))
  const indices = messages.map((m) => m.index)
  const end = start + messages.length
  return {
    kid,
    indices,
    // A DM cites only earlier leaves (its grant, its X25519 leaf), so its own index covers them.
    size: sizeCovering(indices),
    messages,
    next_from: end < inbox.length ? Chunk.unsafeGet(inbox, end).index : null
  }
}
