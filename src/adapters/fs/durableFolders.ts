// Creating folders so that they survive a power loss. mkdir puts a name in the parent
// folder, and that name is only durable once the parent is fsynced; a file renamed into a
// folder whose own name is lost is lost with it. So before a folder is used, every folder
// on the way from it up to the store's root has its parent fsynced once.
//
// The set of folders already made durable is kept per store, so the cost is paid once per
// folder and process. A folder that another writer created concurrently is still synced
// here (mkdir cannot tell whether the other writer's fsync has finished), which keeps
// concurrent puts correct at the price of a redundant fsync.

import { mkdir } from "node:fs/promises"
import { dirname, resolve } from "node:path"
import type { Effect } from "effect"
import type { StorageError } from "../../ports/StorageError.js"
import { attempt, syncFolder } from "./fileIo.js"

export interface DurableFolders {
  /** The root, absolute. */
  readonly root: string
  /** Creates the folder (inside the root) and makes its name and its ancestors' names durable. */
  readonly ensure: (folder: string) => Effect.Effect<void, StorageError>
}

const makeDurable = async (folder: string, stopAt: (folder: string) => boolean): Promise<Array<string>> => {
  await mkdir(folder, { recursive: true })
  const made: Array<string> = []
  for (let current = folder; !stopAt(current); current = dirname(current)) {
    const parent = dirname(current)
    await syncFolder(parent)
    made.push(current)
    if (parent === current) break
  }
  return made
}

/**
 * Makes the root durable (creating it and syncing its parents where needed) and returns the
 * helper for folders inside it.
 */
export const durableFolders = (root: string): Effect.Effect<DurableFolders, StorageError> => {
  const absoluteRoot = resolve(root)
  const known = new Set<string>()
  const ensure = (folder: string) =>
    attempt("mkdir", folder, async () => {
      const absolute = resolve(folder)
      if (known.has(absolute)) return
      const made = await makeDurable(absolute, (current) => known.has(current))
      for (const name of made) known.add(name)
    })
  // The root's own ancestors are synced up to the filesystem root, once per open: a few
  // fsyncs, and they cover a root that this process, or one that crashed, just created.
  return attempt("mkdir", absoluteRoot, async () => {
    const made = await makeDurable(absoluteRoot, (current) => dirname(current) === current)
    for (const name of made) known.add(name)
    known.add(absoluteRoot)
    return { root: absoluteRoot, ensure }
  })
}
