// BodyStore on a local folder, content-addressed: the body with SHA-256 d is the file
// <directory>/<first 2 hex digits of d>/<64 hex digits of d>. The two-digit fan-out keeps
// folders small (256 of them) without a database.
//
// put writes a whole batch with one round of fsyncs (durableWrite.ts: temporary files
// fsynced in parallel, renamed, each touched folder fsynced once), so a batch costs about
// what one body costs. A body whose file exists is skipped: a name only ever appears through
// the atomic rename of a fully fsynced file, so an existing file holds the whole body.
// remove unlinks the file and fsyncs its folder, so the deletion survives a power loss.
// Digests are not checked against the bytes; the domain does that before calling put.

import { stat, unlink } from "node:fs/promises"
import { dirname, join } from "node:path"
import { Effect, Layer } from "effect"
import { BodyStore, type StoredBody } from "../../ports/BodyStore.js"
import { StorageError } from "../../ports/StorageError.js"
import { durableFolders } from "./durableFolders.js"
import { writeFilesDurably } from "./durableWrite.js"
import { digestName } from "./bodyName.js"
import { attempt, syncFolder } from "./fileIo.js"
import { isMissingFile, readOptionalFile } from "./readOptional.js"

export const FsBodyStoreLive = (directory: string): Layer.Layer<BodyStore, StorageError> =>
  Layer.effect(
    BodyStore,
    Effect.gen(function*() {
      const folders = yield* durableFolders(directory)
      const fileOf = (hex: string) => join(folders.root, hex.slice(0, 2), hex)

      const exists = (file: string) =>
        attempt("put", file, async () => {
          try {
            await stat(file)
            return true
          } catch (error) {
            if (isMissingFile(error)) return false
            throw error
          }
        })

      const put = (bodies: ReadonlyArray<StoredBody>) =>
        Effect.gen(function*() {
          const byName = new Map<string, Uint8Array>()
          for (const body of bodies) {
            const name = digestName("put", body.digest)
            if (name instanceof StorageError) return yield* name
            byName.set(name, body.bytes)
          }
          const missing = yield* Effect.filter([...byName], ([name]) => Effect.map(exists(fileOf(name)), (found) => !found), {
            concurrency: 16
          })
          yield* writeFilesDurably(folders, missing.map(([name, bytes]) => ({ path: fileOf(name), bytes })))
        })

      const get = (digest: Uint8Array) => {
        const name = digestName("get", digest)
        return name instanceof StorageError ? Effect.fail(name) : readOptionalFile("get", fileOf(name))
      }

      const remove = (digest: Uint8Array) => {
        const name = digestName("remove", digest)
        if (name instanceof StorageError) return Effect.fail(name)
        const file = fileOf(name)
        return attempt("remove", file, async () => {
          try {
            await unlink(file)
          } catch (error) {
            // Already gone: removing is idempotent. The folder is still synced below, in
            // case the unlink that removed it was not.
            if (!isMissingFile(error)) throw error
          }
          try {
            await syncFolder(dirname(file))
          } catch (error) {
            if (!isMissingFile(error)) throw error
          }
        })
      }

      return { put, get, remove }
    })
  )
