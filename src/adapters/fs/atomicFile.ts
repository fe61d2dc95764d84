// Replacing a small file so that a reader, or a restart after a crash, sees either the old
// bytes or the new ones, never a mix (the Sunlight sequence):
//   1. write the bytes to a temporary file in the same folder,
//   2. fsync the temporary file, so its bytes are on disk before its name is,
//   3. rename it over the target, which POSIX makes atomic,
//   4. fsync the folder, so the rename itself survives a power loss.

import { constants } from "node:fs"
import { mkdir, open, rename, rm } from "node:fs/promises"
import { basename, dirname, join } from "node:path"
import { Effect, Option } from "effect"
import { equal } from "../../domain/bytes.js"
import { attempt, syncFolder, writeFully } from "./fileIo.js"
import { readOptionalFile } from "./readOptional.js"

let counter = 0

export const replaceFile = async (path: string, bytes: Uint8Array, mode: number): Promise<void> => {
  const folder = dirname(path)
  await mkdir(folder, { recursive: true })
  const temp = join(folder, `.${basename(path)}.${process.pid}.${counter++}.tmp`)
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, mode)
  try {
    await writeFully(handle, bytes, 0)
    await handle.sync()
  } catch (error) {
    await handle.close()
    await rm(temp, { force: true })
    throw error
  }
  await handle.close()
  await rename(temp, path)
  await syncFolder(folder)
}

export const writeFileAtomically = (path: string, bytes: Uint8Array, mode = 0o644) =>
  attempt("write", path, () => replaceFile(path, bytes, mode))

/**
 * Makes the file hold `bytes`, writing it (atomically) only when it does not already: a
 * restart that would write the same bytes writes nothing, so it still starts on a full
 * disk (issue 13 item 13).
 */
export const ensureFileHolds = (path: string, bytes: Uint8Array, mode = 0o644) =>
  Effect.flatMap(readOptionalFile("read", path), (present) =>
    Option.isSome(present) && equal(present.value, bytes) ? Effect.void : writeFileAtomically(path, bytes, mode))
