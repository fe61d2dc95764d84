// Opening FsLogStore's three files (logLayout.ts) for the lifetime of a scope. The files are
// created when missing, and the folder is fsynced before anything is written to them, so a
// leaf can never be durable in a file whose name is not.

import type { FileHandle } from "node:fs/promises"
import { join } from "node:path"
import type { Scope } from "effect"
import { Effect } from "effect"
import type { StorageError } from "../../ports/StorageError.js"
import { durableStoreRoot } from "./durableStoreRoot.js"
import { attempt, openStoreFile, syncFolder } from "./fileIo.js"
import { HASHES_FILE, LEAVES_FILE, OFFSETS_FILE } from "./logLayout.js"

export interface LogFiles {
  readonly leaves: FileHandle
  readonly offsets: FileHandle
  readonly hashes: FileHandle
}

/** Opens (creating when needed) the three files; they are closed when the scope closes. */
export const openLogFiles = (directory: string): Effect.Effect<LogFiles, StorageError, Scope.Scope> =>
  Effect.gen(function*() {
    const { root } = yield* durableStoreRoot(directory)
    const leaves = yield* openStoreFile(join(root, LEAVES_FILE))
    const offsets = yield* openStoreFile(join(root, OFFSETS_FILE))
    const hashes = yield* openStoreFile(join(root, HASHES_FILE))
    yield* attempt("fsync", root, () => syncFolder(root))
    return { leaves, offsets, hashes }
  })
