// Positional file I/O for the filesystem adapters, over node:fs/promises FileHandles.
// FileHandle.read and FileHandle.write may move fewer bytes than asked, so every helper
// loops until the whole range is done; every failure becomes a StorageError naming the
// operation, which is what the ports promise their callers.

import { constants } from "node:fs"
import type { FileHandle } from "node:fs/promises"
import { open } from "node:fs/promises"
import { Effect } from "effect"
import { StorageError } from "../../ports/StorageError.js"

/** Runs a Node promise, turning its rejection into a StorageError. */
export const attempt = <A>(operation: string, detail: string, run: () => Promise<A>): Effect.Effect<A, StorageError> =>
  Effect.tryPromise({
    try: run,
    catch: (cause) =>
      new StorageError({ operation, detail: cause instanceof Error ? `${detail}: ${cause.message}` : detail, cause })
  })

/** Reads into the buffer from the position until it is full or the file ends; returns the bytes read. */
export const readInto = async (handle: FileHandle, buffer: Uint8Array, position: number): Promise<number> => {
  let done = 0
  while (done < buffer.length) {
    const { bytesRead } = await handle.read(buffer, done, buffer.length - done, position + done)
    if (bytesRead === 0) break
    done += bytesRead
  }
  return done
}

/** Reads exactly length bytes at the position; a short file is an error (the store promised them). */
export const readExactly = (
  handle: FileHandle,
  length: number,
  position: number,
  what: string
): Effect.Effect<Uint8Array, StorageError> =>
  Effect.flatMap(
    attempt("read", what, async () => {
      const buffer = new Uint8Array(length)
      return { buffer, read: await readInto(handle, buffer, position) }
    }),
    ({ buffer, read }) =>
      read === length
        ? Effect.succeed(buffer)
        : Effect.fail(new StorageError({ operation: "read", detail: `${what}: file ends after ${read} of ${length} bytes` }))
  )

/** Writes all the bytes at the position. */
export const writeFully = async (handle: FileHandle, bytes: Uint8Array, position: number): Promise<void> => {
  let done = 0
  while (done < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, position + done)
    done += bytesWritten
  }
}

/**
 * fsyncs a folder, which makes the names in it (new files, renames, unlinks) durable: fsync
 * of a file covers its bytes, not the directory entry that points at it.
 */
export const syncFolder = async (folder: string): Promise<void> => {
  const handle = await open(folder, constants.O_RDONLY)
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
