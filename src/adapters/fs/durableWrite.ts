// Writing a batch of whole files so that each one appears with all its bytes or not at all,
// and so that the batch is durable when the effect succeeds (the Sunlight sequence, done
// for many files at once so a batch pays one round of fsyncs rather than one per file):
//   1. create the folders, with their names made durable (durableFolders.ts);
//   2. write each file's bytes to a temporary name in its final folder, and fsync it, so
//      the bytes are on disk before any name points at them (in parallel);
//   3. rename each temporary file over its final name, which POSIX makes atomic: a reader
//      sees the old file or the new one, never a mix;
//   4. fsync each folder that received a rename, once, so the new names survive a power loss.
// Temporary names start with "." so they never collide with a published path (the sinks
// refuse path segments that start with a dot). A crash can leave one behind: nothing reads
// it, so it is garbage at worst.

import { constants } from "node:fs"
import { open, rename, rm } from "node:fs/promises"
import { basename, dirname, join } from "node:path"
import { Effect } from "effect"
import type { StorageError } from "../../ports/StorageError.js"
import type { DurableFolders } from "./durableFolders.js"
import { attempt, syncFolder, writeFully } from "./fileIo.js"

export interface FileToWrite {
  /** Absolute path inside the folders' root. */
  readonly path: string
  readonly bytes: Uint8Array
}

/** How many files are open at once while writing a batch. */
const PARALLEL_FILES = 16

let counter = 0
const temporaryName = (path: string): string =>
  join(dirname(path), `.${basename(path)}.${process.pid}.${counter++}.tmp`)

const writeTemporary = async (temp: string, bytes: Uint8Array): Promise<void> => {
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644)
  try {
    await writeFully(handle, bytes, 0)
    // fsync rather than fdatasync: the file is new, so its size and allocation are metadata
    // the bytes cannot be read without.
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** Writes every file atomically; durable when it succeeds. */
export const writeFilesDurably = (
  folders: DurableFolders,
  files: ReadonlyArray<FileToWrite>
): Effect.Effect<void, StorageError> =>
  Effect.gen(function*() {
    if (files.length === 0) return
    const touched = [...new Set(files.map((file) => dirname(file.path)))]
    yield* Effect.forEach(touched, (folder) => folders.ensure(folder), { discard: true })
    const staged = files.map((file) => ({ ...file, temp: temporaryName(file.path) }))
    yield* Effect.forEach(
      staged,
      (file) => attempt("write", file.path, () => writeTemporary(file.temp, file.bytes)),
      { concurrency: PARALLEL_FILES, discard: true }
    ).pipe(
      // Leave no temporary files behind on failure; the targets were not touched.
      Effect.tapError(() =>
        Effect.promise(() => Promise.all(staged.map((file) => rm(file.temp, { force: true }).catch(() => undefined))))
      )
    )
    yield* Effect.forEach(staged, (file) => attempt("rename", file.path, () => rename(file.temp, file.path)), {
      discard: true
    })
    yield* Effect.forEach(touched, (folder) => attempt("fsync", folder, () => syncFolder(folder)), {
      concurrency: PARALLEL_FILES,
      discard: true
    })
  })
