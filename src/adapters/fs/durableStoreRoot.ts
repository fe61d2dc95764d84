// A store's root made durable as the store opens (durableFolders.ts says why and how), as an
// Effect for the stores' layers: a failure is the store's StorageError.

import { Effect } from "effect"
import { StorageError } from "../../ports/StorageError.js"
import { DurableFolderSet } from "./durableFolders.js"

/** Makes a store's root durable (creating it where needed); answers it, absolute. */
export const durableStoreRoot = (root: string): Effect.Effect<{ readonly root: string }, StorageError> =>
  Effect.try({
    try: () => ({ root: new DurableFolderSet(root).root }),
    catch: (cause) =>
      new StorageError({ operation: "mkdir", detail: `${root}: ${cause instanceof Error ? cause.message : String(cause)}`, cause })
  })
