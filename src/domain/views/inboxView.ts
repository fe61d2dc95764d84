// Inbox of a key, GET /v2/inbox/{kid} (service.md "Projections"), and the messages of the
// signed GET /v2/inbox: each DM to the key with its public metadata, its grant and its body
// status at `now` (never the body), in log order from the leaf index `from`, at most
// `limit`, with `next_from` (the next message's index) when more remain. With `unreadOnly`
// the page starts after `readThrough` (inboxStatus.ts). The app adds `checkpoint_note`,
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
}

export const inboxView = (state: LogState, kid: string, query: InboxQuery, now: number): InboxView => {
  const inbox = inboxOf(state, kid)
  const from = query.unreadOnly === true && query.readThrough != null ? Math.max(query.from, query.readThrough + 1) : query.from
  const start = lowerBound(inbox, (m) => m.index, from)
  const page = chunkRange(inbox, start, start + query.limit)
  const indices = page.map((m) => m.index)
  const more = start + query.limit < inbox.length
  return {
    kid,
    indices,
    // A DM cites only earlier leaves (its grant, its X25519 leaf), so its own index covers them.
    size: sizeCovering(indices),
    messages: page.map((m) => messageView(state, m, now)),
    next_from: more ? Chunk.unsafeGet(inbox, start + query.limit).index : null
  }
}
