// Creating folders so that they survive a power loss. mkdir puts a name in the parent
// folder, and that name is only durable once the parent is fsynced; a file renamed into a
// folder whose own name is lost is lost with it. So before a folder is used, every folder
// on the way from it up to the store's root has its parent fsynced once.
//
// The set of folders already made durable is kept per store, so the cost is paid once per
// folder and process. A folder that another writer created concurrently is still synced
// here (mkdir cannot tell whether the other writer's fsync has finished), which keeps
// concurrent writers correct at the price of a redundant fsync.
//
// The calls are synchronous: the set is used on the file-writer thread (durableWrite.ts),
// and on the event loop only once, when a store opens its root (durableStoreRoot.ts). No
// Effect here: that thread loads node's own modules only (missingFile.ts says why).

import { closeSync, constants, fsyncSync, mkdirSync, openSync } from "node:fs"
import { dirname, resolve } from "node:path"

/** fsyncs a file or folder by path (for a folder: the names in it). */
export const syncPath = (path: string): void => {
  const fd = openSync(path, constants.O_RDONLY)
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** The folders whose names are known durable, for one root. */
export class DurableFolderSet {
  private readonly known = new Set<string>()
  /** The root, absolute. */
  readonly root: string

  /**
   * Makes the root durable: its ancestors are synced up to the filesystem root, once per
   * set; a few fsyncs, and they cover a root that this process, or one that crashed, just
   * created. Throws what node:fs throws.
   */
  constructor(root: string) {
    this.root = resolve(root)
    this.make(this.root, (current) => dirname(current) === current)
  }

  /** Creates the folder (inside the root) and makes its name and its ancestors' names durable. */
  ensure(folder: string): void {
    this.make(resolve(folder), (current) => this.known.has(current))
  }

  private make(absolute: string, stopAt: (folder: string) => boolean): void {
    if (this.known.has(absolute)) return
    mkdirSync(absolute, { recursive: true })
    for (let current = absolute; !stopAt(current); current = dirname(current)) {
      const parent = dirname(current)
      syncPath(parent)
      this.known.add(current)
      if (parent === current) break
    }
    this.known.add(absolute)
  }
}
