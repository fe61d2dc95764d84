// The last checkpoint this node published or adopted, kept in the node's own data folder
// (AICS_DATA_DIR), apart from the log's storage. On PostgreSQL the database holds the log
// and its published checkpoint alike, so a database restored from a dump older than what
// was published brings back an older checkpoint with it, and nothing in it shows that the
// log went back: a copy kept elsewhere does (app/Publisher.ts judges it against the log at
// start and when the node takes the lease). On the filesystem the data folder's tiles/
// hold it too; the kept copy is the same safeguard against a log/ restored without them.
//
// Contract (test/ports/KeptCheckpoint.contract.ts): read answers the note last kept, or
// none; keep replaces it whole (a reader, or a restart after a crash, sees the old note or
// the new, never a mix). A durable adapter answers the same after a reopen.

import type { Effect, Option } from "effect"
import { Context } from "effect"
import type { StorageError } from "./StorageError.js"

export class KeptCheckpoint extends Context.Tag("aics/KeptCheckpoint")<KeptCheckpoint, {
  /** The signed checkpoint note last kept, or none. */
  readonly read: Effect.Effect<Option.Option<Uint8Array>, StorageError>
  /** Keeps `note` in place of the one kept before. */
  readonly keep: (note: Uint8Array) => Effect.Effect<void, StorageError>
}>() {}
