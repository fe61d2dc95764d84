// WitnessState on the filesystem: one small JSON file per witnessed log, named by the
// SHA-256 of its origin (any origin, a safe file name), holding size, root hash and the
// log's note. A file is replaced atomically (atomicFile.ts: temporary file, fsync, rename,
// fsync of the folder) before advance answers, so the witness's answer is never ahead of
// its disk.
//
// The compare-and-swap is a semaphore around read, compare and replace: the filesystem
// storage serves one process (main.ts), so in-process exclusion is exclusion.

import { createHash } from "node:crypto"
import { mkdir } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Layer, Option } from "effect"
import { fromUtf8, utf8 } from "../../domain/bytes.js"
import { decodeB64, encodeB64 } from "../../domain/encoding.js"
import { StorageError } from "../../ports/StorageError.js"
import { WitnessState, type WitnessRecord } from "../../ports/WitnessState.js"
import { writeFileAtomically } from "./atomicFile.js"
import { attempt } from "./fileIo.js"
import { readOptionalFile } from "./readOptional.js"

const fileName = (origin: string) => createHash("sha256").update(origin, "utf8").digest("hex")

const decode = (path: string, bytes: Uint8Array): Effect.Effect<WitnessRecord, StorageError> => {
  try {
    const json = JSON.parse(fromUtf8(bytes)) as { size?: unknown; root_hash?: unknown; note?: unknown }
    const rootHash = typeof json.root_hash === "string" ? decodeB64(json.root_hash) : undefined
    const note = typeof json.note === "string" ? decodeB64(json.note) : undefined
    if (typeof json.size === "number" && Number.isSafeInteger(json.size) && rootHash !== undefined && note !== undefined) {
      return Effect.succeed({ size: json.size, rootHash, note })
    }
  } catch {
    // reported below
  }
  return Effect.fail(new StorageError({ operation: "read witness state", detail: `${path} is not a witness state file` }))
}

export const FsWitnessStateLive = (directory: string) =>
  Layer.effect(WitnessState, Effect.gen(function*() {
    yield* attempt("open witness state", directory, () => mkdir(directory, { recursive: true }))
    const lock = yield* Effect.makeSemaphore(1)
    const pathOf = (origin: string) => join(directory, fileName(origin))

    const read = (origin: string) =>
      Effect.flatMap(readOptionalFile("read witness state", pathOf(origin)), Option.match({
        onNone: () => Effect.succeed(undefined),
        onSome: (bytes) => decode(pathOf(origin), bytes)
      }))

    const advance = (origin: string, fromSize: number, next: WitnessRecord) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const current = yield* read(origin)
        if ((current?.size ?? 0) !== fromSize) return false
        const json = JSON.stringify({ origin, size: next.size, root_hash: encodeB64(next.rootHash), note: encodeB64(next.note) })
        yield* writeFileAtomically(pathOf(origin), utf8(json + "\n"), 0o644)
        return true
      }))

    return { read, advance }
  }))
