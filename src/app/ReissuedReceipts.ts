// A lost receipt fetched again (docs/protocol.md 8.3): the accepted answer {entry,
// receipt_note} of a leaf of the log, made from the leaf alone by the one builder every
// write's answer comes from (WriteAnswers.reissued), so it is byte for byte what the write
// answered. What GET /v2/entries/{index}/receipt and the gate's `receipt <index>` answer.
//
// Any node that serves reads answers it: every node holds the log key (a node of a
// PostgreSQL deployment reads its keys from its own data folder, and refuses to start with
// another log key than leaf 0's), and reads the leaf from the shared log. "In the log" is
// the node's committed size, the same bound GET /v2/entries/{index} answers 404 past; a
// node that has not read a new leaf yet (within about a second of its commit on another
// node, docs/protocol.md 14) answers 404 for it as that route does. No checkpoint is
// waited for: the receipt says the leaf is durable, not that it is published (the 202 came
// before the checkpoint too). A refusal is in no leaf: its note is never made again.

import { Effect } from "effect"
import type { StorageError } from "../ports/StorageError.js"
import { LogStore } from "../ports/LogStore.js"
import { LogStatus } from "./LogStatus.js"
import { type AcceptedBody, WriteAnswers } from "./WriteAnswers.js"

export type ReissuedReceipt =
  | { readonly _tag: "Reissued"; readonly body: AcceptedBody }
  /** The index is at or past the log's size (`size` leaves). */
  | { readonly _tag: "NotInLog"; readonly size: number }

/** The receipt of leaf `index` again, or that the log holds no such leaf. */
export const reissuedReceipts = Effect.gen(function*() {
  const status = yield* LogStatus
  const store = yield* LogStore
  const answers = yield* WriteAnswers
  return (index: number): Effect.Effect<ReissuedReceipt, StorageError> =>
    Effect.gen(function*() {
      const size = (yield* status.current).size
      if (index >= size) return { _tag: "NotInLog", size } as const
      const [entry] = yield* store.readEntries(index, index + 1)
      return { _tag: "Reissued", body: yield* answers.reissued(index, entry!) } as const
    })
})
