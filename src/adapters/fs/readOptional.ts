// Reading a whole small file that may not exist (a tile, a checkpoint, a body): missing is
// an answer (Option.none), any other failure is a StorageError.

import { readFile } from "node:fs/promises"
import type { Effect } from "effect"
import { Option } from "effect"
import type { StorageError } from "../../ports/StorageError.js"
import { attempt } from "./fileIo.js"
import { isMissingFile } from "./missingFile.js"

export const readOptionalFile = (operation: string, path: string): Effect.Effect<Option.Option<Uint8Array>, StorageError> =>
  attempt(operation, path, async () => {
    try {
      // A plain Uint8Array copy: callers compare and slice it, and Buffer is not the port's type.
      return Option.some(new Uint8Array(await readFile(path)))
    } catch (error) {
      if (isMissingFile(error)) return Option.none()
      throw error
    }
  })
