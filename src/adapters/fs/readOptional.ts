// Reading a whole small file that may not exist (a tile, a checkpoint, a body): missing is
// an answer (Option.none), any other failure is a StorageError.

import { readFile } from "node:fs/promises"
import type { Effect } from "effect"
import { Option } from "effect"
import type { StorageError } from "../../ports/StorageError.js"
import { attempt } from "./fileIo.js"

const isMissing = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code
  return code === "ENOENT" || code === "ENOTDIR"
}

export const readOptionalFile = (operation: string, path: string): Effect.Effect<Option.Option<Uint8Array>, StorageError> =>
  attempt(operation, path, async () => {
    try {
      // A plain Uint8Array copy: callers compare and slice it, and Buffer is not the port's type.
      return Option.some(new Uint8Array(await readFile(path)))
    } catch (error) {
      if (isMissing(error)) return Option.none()
      throw error
    }
  })

/** Whether the error of a Node call says the file was not there. */
export const isMissingFile = isMissing
