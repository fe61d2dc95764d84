// Opening FsBodyStore's two files (bodyLayout.ts) for the lifetime of a scope. The files are
// created when missing, and the folder is fsynced before anything is written to them, so a
// record can never be durable in a file whose name is not. Files left by a compaction that
// did not finish (bodyCompact.ts) are deleted first: until its renames, a compaction's
// output is not part of the store.
//
// Within this process, folders are registered while open: a compaction (which replaces the
// files) refuses a folder a store has open, and a store refuses a folder being compacted.
// Other processes are not detected (one process per folder, as for FsLogStore).

import type { FileHandle } from "node:fs/promises"
import { readdir, rm } from "node:fs/promises"
import { join } from "node:path"
import type { Scope } from "effect"
import { Effect } from "effect"
import { StorageError } from "../../ports/StorageError.js"
import { BODIES_FILE, COMPACT_SUFFIX, INDEX_FILE } from "./bodyLayout.js"
import { durableStoreRoot } from "./durableStoreRoot.js"
import { attempt, openStoreFile, syncFolder } from "./fileIo.js"

export interface BodyFiles {
  /** The folder, absolute. */
  readonly root: string
  readonly bodies: FileHandle
  readonly index: FileHandle
}

/** Open folders of this process: how many stores have each open, or "compacting". */
const openFolders = new Map<string, number | "compacting">()

const register = (root: string, use: "store" | "compaction") =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      const current = openFolders.get(root)
      if (current === "compacting" || (use === "compaction" && current !== undefined)) {
        const detail = current === "compacting" ? "a compaction is running on it" : "a body store has it open"
        return Effect.fail(new StorageError({ operation: "open", detail: `${root}: ${detail}` }))
      }
      openFolders.set(root, use === "compaction" ? "compacting" : (current ?? 0) + 1)
      return Effect.void
    }),
    () =>
      Effect.sync(() => {
        const current = openFolders.get(root)
        if (current === "compacting" || current === undefined || current <= 1) openFolders.delete(root)
        else openFolders.set(root, current - 1)
      })
  )

/** Deletes what an unfinished compaction left; the deletions are durable before the store opens. */
const removeLeftovers = (root: string) =>
  attempt("open", `removing leftovers of a compaction in ${root}`, async () => {
    const leftovers = (await readdir(root)).filter((name) => name.endsWith(COMPACT_SUFFIX))
    if (leftovers.length === 0) return
    for (const name of leftovers) await rm(join(root, name), { force: true })
    await syncFolder(root)
  })

/**
 * Opens (creating when needed) the two files, for a store or for a compaction; they are
 * closed when the scope closes.
 */
export const openBodyFiles = (
  directory: string,
  use: "store" | "compaction" = "store"
): Effect.Effect<BodyFiles, StorageError, Scope.Scope> =>
  Effect.gen(function*() {
    const { root } = yield* durableStoreRoot(directory)
    yield* register(root, use)
    yield* removeLeftovers(root)
    const bodies = yield* openStoreFile(join(root, BODIES_FILE))
    const index = yield* openStoreFile(join(root, INDEX_FILE))
    yield* attempt("fsync", root, () => syncFolder(root))
    return { root, bodies, index }
  })
