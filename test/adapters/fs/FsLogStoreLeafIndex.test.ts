// FsLogStore's findLeaf index on disk (src/adapters/fs/leafFinder.ts, leafSidecar.ts): a
// reopen indexes only the leaves the sidecar lacks, a lost, damaged, foreign or too-long
// sidecar never makes findLeaf wrong, and a lookup is confirmed against the stored hash
// (two leaves may share an 8-byte prefix).

import { describe, expect } from "vitest"
import { it } from "@effect/vitest"
import fs from "node:fs"
import { copyFile, readdir, unlink, writeFile } from "node:fs/promises"
import type { FileHandle } from "node:fs/promises"
import { syncBuiltinESMExports } from "node:module"
import { join } from "node:path"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { Effect, Layer, Logger, Option } from "effect"
import { NodeCryptoLive } from "../../../src/adapters/crypto/nodeCrypto.js"
import { FsLogStoreLive } from "../../../src/adapters/fs/FsLogStore.js"
import { openLeafFinder } from "../../../src/adapters/fs/leafFinder.js"
import { LEAF_INDEX_FILE, leafPrefix, openLeafSidecar } from "../../../src/adapters/fs/leafSidecar.js"
import { openLogFiles } from "../../../src/adapters/fs/logFiles.js"
import { HASH_SIZE, type Hash } from "../../../src/domain/tlog/hasher.js"
import { storedHashIndex } from "../../../src/domain/tlog/storedHash.js"
import { LogStore } from "../../../src/ports/LogStore.js"
import { entryBytes, hasher, LogModel } from "../../ports/LogStore.contract.js"
import { soleProcessLease } from "../../support/leases.js"
import { tempDir } from "./tempDir.js"

const N = 5000

/** Entry i of a log; entry 7 is written again at 4321, so a hash has two leaves. */
const entryOf = (i: number, salt = 0) => (i === 4321 ? entryBytes(7, 40) : entryBytes(i + salt, 40))

/** Opens the store in `dir`, runs `use`, closes it; answers `use`'s result and the lines logged meanwhile. */
const withStore = <A, E>(dir: string, use: (store: typeof LogStore.Service) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    const logger = Logger.make(({ message }) => lines.push(Array.isArray(message) ? message.join(" ") : String(message)))
    const result = yield* Effect.flatMap(LogStore, use).pipe(
      Effect.provide(FsLogStoreLive(dir).pipe(Layer.provide(NodeCryptoLive))),
      Effect.provide(Logger.replace(Logger.defaultLogger, logger))
    )
    return { result, lines }
  })

/** Appends entries [model.size, to) in batches of 700 (`salt` makes a different log). */
const appendUpTo = (dir: string, model: LogModel, to: number, salt = 0) =>
  Effect.gen(function*() {
    const fence = yield* soleProcessLease
    return yield* withStore(dir, (store) =>
      Effect.gen(function*() {
        while (model.size < to) {
          const count = Math.min(700, to - model.size)
          yield* store.append(model.size, model.add(Array.from({ length: count }, (_, i) => entryOf(model.size + i, salt))), fence)
        }
      }))
  })

const logOf = (size: number, salt = 0) =>
  Effect.gen(function*() {
    const dir = yield* tempDir("leafindex")
    const model = new LogModel()
    yield* appendUpTo(dir, model, size, salt)
    return { dir, model }
  })

/** findLeaf answers the first leaf of every hash of the model, and nothing for others. */
const expectFinds = (store: typeof LogStore.Service, model: LogModel) =>
  Effect.gen(function*() {
    for (let i = 0; i < model.size; i += 1) {
      const leafHash = hasher.leafHash(model.entries[i]!)
      const found = yield* store.findLeaf(leafHash)
      if (!Option.isSome(found) || found.value !== model.firstIndexOf(leafHash)) {
        expect.fail(`findLeaf of leaf ${i}: ${JSON.stringify(found)}, not ${model.firstIndexOf(leafHash)}`)
      }
    }
    expect(yield* store.findLeaf(hasher.leafHash(entryBytes(-1, 40)))).toEqual(Option.none())
  })

/** Runs SQL statements on the sidecar of the (closed) store in `dir`. */
const editSidecar = (dir: string, edit: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, edit).pipe(
    Effect.provide(SqliteClient.layer({ filename: join(dir, LEAF_INDEX_FILE) })),
    Effect.orDie
  )

const indexedOf = (dir: string) =>
  editSidecar(dir, (sql) => sql<{ indexed: number }>`SELECT indexed FROM leaf_index_meta`).pipe(
    Effect.map((rows) => (rows as ReadonlyArray<{ indexed: number }>)[0]!.indexed)
  )

const atOpen = (lines: ReadonlyArray<string>) => lines.filter((line) => line.startsWith("leaf index: indexing leaves"))

describe("FsLogStore's leaf index on disk", () => {
  it.scoped("a reopen after a clean close indexes nothing, and findLeaf answers every leaf", () =>
    Effect.gen(function*() {
      const { dir, model } = yield* logOf(N)
      // The close indexed what the indexer had not reached yet.
      expect(yield* indexedOf(dir)).toBe(N)
      const { lines } = yield* withStore(dir, (store) => expectFinds(store, model))
      expect(atOpen(lines)).toEqual([])
      expect(model.firstIndexOf(hasher.leafHash(entryOf(4321)))).toBe(7)
    }))

  it.scoped("a deleted sidecar is rebuilt from the hashes file, saying so", () =>
    Effect.gen(function*() {
      const { dir, model } = yield* logOf(N)
      yield* Effect.promise(() => unlink(join(dir, LEAF_INDEX_FILE)))
      const { lines } = yield* withStore(dir, (store) => expectFinds(store, model))
      expect(atOpen(lines)).toEqual([`leaf index: indexing leaves [0, ${N}) of the log at open`])
      expect(yield* indexedOf(dir)).toBe(N)
    }))

  it.scoped("a count cut back (a crash before the indexer caught up) indexes only the tail after it", () =>
    Effect.gen(function*() {
      const { dir, model } = yield* logOf(N)
      yield* editSidecar(dir, (sql) => sql`UPDATE leaf_index_meta SET indexed = 3210`)
      const { lines } = yield* withStore(dir, (store) => expectFinds(store, model))
      expect(atOpen(lines)).toEqual([`leaf index: indexing leaves [3210, ${N}) of the log at open`])
    }))

  it.scoped("a damaged sidecar is moved aside, loudly, and rebuilt", () =>
    Effect.gen(function*() {
      const { dir, model } = yield* logOf(N)
      yield* Effect.promise(() => writeFile(join(dir, LEAF_INDEX_FILE), "not a database, but something a disk could hold instead".repeat(200)))
      const { lines } = yield* withStore(dir, (store) => expectFinds(store, model))
      expect(lines.some((line) => line.startsWith(`${LEAF_INDEX_FILE} cannot be used: damaged`))).toBe(true)
      expect(atOpen(lines)).toEqual([`leaf index: indexing leaves [0, ${N}) of the log at open`])
      expect((yield* Effect.promise(() => readdir(dir))).some((name) => name.startsWith(`${LEAF_INDEX_FILE}.damaged-`))).toBe(true)
    }))

  it.scoped("another log's sidecar is moved aside and rebuilt", () =>
    Effect.gen(function*() {
      const { dir, model } = yield* logOf(2000)
      const other = yield* logOf(3000, 100_000)
      yield* Effect.promise(() => copyFile(join(other.dir, LEAF_INDEX_FILE), join(dir, LEAF_INDEX_FILE)))
      const { lines } = yield* withStore(dir, (store) => expectFinds(store, model))
      expect(lines).toContainEqual(expect.stringContaining("lacks leaf 1999 of this log"))
      expect(atOpen(lines)).toEqual(["leaf index: indexing leaves [0, 2000) of the log at open"])
    }))

  it.scoped("a sidecar longer than the log (a log restored from an older backup) is trusted only up to the log's size", () =>
    Effect.gen(function*() {
      const longer = yield* logOf(N)
      const { dir, model } = yield* logOf(3000)
      yield* Effect.promise(() => copyFile(join(longer.dir, LEAF_INDEX_FILE), join(dir, LEAF_INDEX_FILE)))
      const { lines } = yield* withStore(dir, (store) =>
        Effect.gen(function*() {
          yield* expectFinds(store, model)
          // Leaves the sidecar holds rows for, beyond this log's end.
          expect(yield* store.findLeaf(hasher.leafHash(entryOf(4000)))).toEqual(Option.none())
        }))
      expect(atOpen(lines)).toEqual([])
      expect(lines.some((line) => line.includes("cannot be used"))).toBe(false)
      expect(yield* indexedOf(dir)).toBe(3000)
      // The log goes on with other leaves than the sidecar's old rows name: those rows are
      // candidates that the stored hashes refuse.
      yield* appendUpTo(dir, model, N, 50_000)
      yield* withStore(dir, (store) =>
        Effect.gen(function*() {
          yield* expectFinds(store, model)
          expect(yield* store.findLeaf(hasher.leafHash(entryOf(4000)))).toEqual(Option.none())
        }))
    }))

  it.scoped("a leaf whose hash shares its 8-byte prefix with an earlier leaf's is found past it", () =>
    Effect.gen(function*() {
      const { dir, model } = yield* logOf(N)
      // Leaf 100's row claims the prefix of leaf 4000's hash: as if the two hashes began alike.
      const target = hasher.leafHash(model.entries[4000]!)
      yield* editSidecar(dir, (sql) => sql`INSERT INTO leaf_prefixes (prefix, leaf) VALUES (${leafPrefix(target)}, 100)`)
      yield* withStore(dir, (store) =>
        Effect.gen(function*() {
          expect(yield* store.findLeaf(target)).toEqual(Option.some(4000))
          expect(yield* store.findLeaf(hasher.leafHash(model.entries[100]!))).toEqual(Option.some(100))
          // Same prefix as a leaf, different after it: no leaf.
          const lookalike = target.slice()
          lookalike[31] ^= 1
          expect(yield* store.findLeaf(lookalike)).toEqual(Option.none())
        }))
    }))
})

/**
 * The hashes file's handle, counting the bytes read through it: through the handle's own
 * read (large reads) and through node:fs's readSync on its descriptor (small ones,
 * fileIo.readRanges), which is replaced for the scope.
 */
const countingReads = (handle: FileHandle) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const reads: Array<{ position: number; length: number }> = []
      const counted = new Proxy(handle, {
        get: (target, key) =>
          key === "read"
            ? (buffer: Uint8Array, offset: number, length: number, position: number) => {
              reads.push({ position, length })
              return target.read(buffer, offset, length, position)
            }
            : Reflect.get(target, key, target)
      })
      const readSync = fs.readSync
      fs.readSync = ((fd: number, buffer: Uint8Array, offset: number, length: number, position: number) => {
        if (fd === handle.fd) reads.push({ position, length })
        return readSync(fd, buffer, offset, length, position)
      }) as typeof fs.readSync
      syncBuiltinESMExports()
      return { counted, reads, restore: () => { fs.readSync = readSync; syncBuiltinESMExports() } }
    }),
    ({ restore }) => Effect.sync(restore)
  )

describe("the leaf finder", () => {
  it.scoped("reads only the unindexed tail's span of the hashes file at open", () =>
    Effect.gen(function*() {
      const { dir } = yield* logOf(N)
      yield* editSidecar(dir, (sql) => sql`UPDATE leaf_index_meta SET indexed = 3210`)
      const files = yield* openLogFiles(dir)
      const { counted, reads } = yield* countingReads(files.hashes)
      yield* openLeafFinder(dir, counted, () => N)
      const first = HASH_SIZE * storedHashIndex(0, 3210)
      const end = HASH_SIZE * (storedHashIndex(0, N - 1) + 1)
      // The check of the sidecar's last leaf, then the tail's span, and nothing before it.
      expect(reads[0]).toEqual({ position: HASH_SIZE * storedHashIndex(0, 3209), length: HASH_SIZE })
      expect(reads.slice(1).every((read) => read.position >= first && read.position + read.length <= end)).toBe(true)
      expect(reads.slice(1).reduce((sum, read) => sum + read.length, 0)).toBe(end - first)
    }))

  // Live: the indexer's wake-up is awaited by the clock.
  it.scopedLive("finds leaves committed since the index last caught up, before the indexer runs", () =>
    Effect.gen(function*() {
      const { dir, model } = yield* logOf(N)
      yield* editSidecar(dir, (sql) => sql`UPDATE leaf_index_meta SET indexed = 0`)
      const files = yield* openLogFiles(dir)
      const { counted, reads } = yield* countingReads(files.hashes)
      let size = 1000
      // Indexes [0, 1000) at open; then the log "grows" to N with no wake-up.
      const finder = yield* openLeafFinder(dir, counted, () => size)
      size = N
      for (const leaf of [0, 999, 1000, 4000, N - 1]) {
        const leafHash = hasher.leafHash(model.entries[leaf]!)
        expect(yield* finder.find(leafHash, size)).toEqual(Option.some(model.firstIndexOf(leafHash)!))
      }
      // A leaf beyond the size asked is not found.
      expect(yield* finder.find(hasher.leafHash(model.entries[N - 1]!), N - 1)).toEqual(Option.none())
      // After a wake-up the indexer takes the tail into the sidecar: a lookup then reads
      // the one stored hash it confirms, no tail.
      finder.wake()
      yield* Effect.sleep("1 second")
      reads.length = 0
      expect(yield* finder.find(hasher.leafHash(model.entries[4000]!), size)).toEqual(Option.some(4000))
      expect(reads).toEqual([{ position: HASH_SIZE * storedHashIndex(0, 4000), length: HASH_SIZE }])
    }))
})

describe("the leaf sidecar", () => {
  it.scoped("answers every leaf of a prefix, in leaf order, below the bound asked", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("leafsidecar")
      const sidecar = yield* openLeafSidecar(join(dir, LEAF_INDEX_FILE), () => Effect.succeed(undefined))
      const hashWith = (first8: number, rest: number): Hash => {
        const hash = new Uint8Array(HASH_SIZE).fill(rest)
        new DataView(hash.buffer).setBigUint64(0, BigInt(first8))
        return hash
      }
      // Leaves 0..5: 1, 4 and 5 share a prefix (with different hashes).
      yield* sidecar.record(0, [hashWith(9, 0), hashWith(7, 1), hashWith(8, 0), hashWith(0xff, 0)])
      yield* sidecar.record(4, [hashWith(7, 2), hashWith(7, 3)])
      expect(yield* sidecar.indexed).toBe(6)
      expect(yield* sidecar.candidates(leafPrefix(hashWith(7, 9)), 6)).toEqual([1, 4, 5])
      expect(yield* sidecar.candidates(leafPrefix(hashWith(7, 9)), 5)).toEqual([1, 4])
      expect(yield* sidecar.candidates(leafPrefix(hashWith(6, 0)), 6)).toEqual([])
      // A prefix with the top bit set is a negative INTEGER in SQLite, found all the same.
      const high = hashWith(0, 0)
      high[0] = 0xf0
      yield* sidecar.record(6, [high])
      expect(yield* sidecar.candidates(leafPrefix(high), 7)).toEqual([6])
      // Only the next leaves can be recorded.
      expect((yield* Effect.flip(sidecar.record(3, [high]))).detail).toContain("holds 7 leaves, not 3")
      yield* sidecar.clamp(2)
      expect(yield* sidecar.indexed).toBe(2)
    }))
})
