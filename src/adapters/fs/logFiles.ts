// Opening FsLogStore's three files (logLayout.ts) for the lifetime of a scope. The files are
// created when missing, and the folder is fsynced before anything is written to them, so a
// leaf can never be durable in a file whose name is not.

import { constants } from "node:fs"
import type { FileHandle } from "node:fs/promises"
import { open } from "node:fs/promises"
import { join } from "node:path"
import type { Scope } from "effect"
import { Effect } from "effect"
import type { StorageError } from "../../ports/StorageError.js"
import { durableFolders } from "./durableFolders.js"
import { attempt, syncFolder } from "./fileIo.js"
import { HASHES_FILE, LEAVES_FILE, OFFSETS_FILE } from "./logLayout.js"

export interface LogFiles {
  readonly leaves: FileHandle
  readonly offsets: FileHandle
  readonly hashes: FileHandle
}

const openFile = (path: string): Effect.Effect<FileHandle, StorageError, Scope.Scope> =>
  Effect.acquireRelease(
    // Read-write without O_APPEND: appends write at the committed end by position, so bytes
    // a failed append left after it are overwritten rather than kept.
    attempt("open", path, () => open(path, constants.O_RDWR | constants.O_CREAT, 0o644)),
    (handle) => attempt("close", path, () => handle.close()).pipe(Effect.ignore)
  )

/** Opens (creating when needed) the three files; they are closed when the scope closes. */
export const openLogFiles = (directory: string): Effect.Effect<LogFiles, StorageError, Scope.Scope> =>
  Effect.gen(function*() {
    const { root } = yield* durableFolders(directory)
    const leaves = yield* openFile(join(root, LEAVES_FILE))
    const offsets = yield* openFile(join(root, OFFSETS_FILE))
    const hashes = yield* openFile(join(root, HASHES_FILE))
    yield* attempt("fsync", root, () => syncFolder(root))
    return { leaves, offsets, hashes }
  })
