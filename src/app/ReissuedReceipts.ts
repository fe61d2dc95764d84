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
//
// The log key signs only the leaf hash the tree holds: the leaf's bytes, read back, must
// hash to the stored leaf hash (the one the tree, its tiles and the original 202 committed
// to), or no receipt is signed. A damaged leaf file (a flipped bit that still parses, a bad
// partial restore) would otherwise have the log sign a second, different hash for the same
// index: evidence of equivocation made by a GET. And while the log is found diverged from
// what it published (LogHealth), nothing is signed at all, as nothing is published.

import { Effect } from "effect"
import { equal } from "../domain/bytes.js"
import { makeTreeHasher } from "../domain/tlog/hasher.js"
import { storedHashIndex } from "../domain/tlog/storedHash.js"
import { Crypto } from "../ports/Crypto.js"
import { StorageError } from "../ports/StorageError.js"
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
  const hasher = makeTreeHasher((yield* Crypto).sha256)
  const withheld = (detail: string) => new StorageError({ operation: "re-issue a receipt", detail })
  return (index: number): Effect.Effect<ReissuedReceipt, StorageError> =>
    Effect.gen(function*() {
      const state = yield* status.current
      if (state.diverged !== undefined) return yield* withheld("the log diverged from what it published: no receipt is signed until that is resolved")
      if (index >= state.size) return { _tag: "NotInLog", size: state.size } as const
      const { entry, hashes: [stored] } = yield* store.readEntryAndHashes(index, [storedHashIndex(0, index)])
      if (stored === undefined || !equal(hasher.leafHash(entry), stored)) {
        yield* Effect.logError(`leaf ${index}'s bytes do not hash to its stored leaf hash: the log's files are damaged; no receipt was signed for it`)
        return yield* withheld(`leaf ${index} does not match the tree's leaf hash`)
      }
      return { _tag: "Reissued", body: yield* answers.reissued(index, entry, stored) } as const
    })
})
