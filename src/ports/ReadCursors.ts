// How far each key has read its inbox (docs/spec/service.md "Inbox status": unread, total, latest).
// GET /v2/inbox, signed by the key, moves the key's cursor to the newest message it
// returned; a message is unread while its index is above the cursor. Not part of the log:
// it is the reader's state, kept by the service for the key's convenience.
//
// Contract (test/ports/ReadCursors.contract.ts): a key with no cursor reads -1; advance
// only moves a cursor forward (a lower index is ignored); a durable adapter returns the
// same cursors after a reopen.

import type { Effect } from "effect"
import { Context } from "effect"
import type { StorageError } from "./StorageError.js"

export class ReadCursors extends Context.Tag("aics/ReadCursors")<ReadCursors, {
  readonly get: (kid: string) => Effect.Effect<number, StorageError>
  readonly advance: (kid: string, index: number) => Effect.Effect<void, StorageError>
}>() {}
