// FsBodyStore's index on disk (src/adapters/fs/bodyIndex.ts, bodySidecar.ts), as
// FsLogStoreLeafIndex.test.ts checks the log's: a body is found from the moment its put
// returns, through the in-memory tail and then through the sidecar; a removal hides a body
// at once and for good; a reopen applies only what the sidecar lacks; and a lost, damaged,
// foreign or too-long sidecar never makes an answer wrong.

import { describe, expect } from "vitest"
import { it } from "@effect/vitest"
import { copyFile, cp, readdir, readFile, unlink, writeFile } from "node:fs/promises"
import { join } from "node:path"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { Effect, Logger, Option } from "effect"
import { nodeCrypto, NodeCryptoLive } from "../../../src/adapters/crypto/nodeCrypto.js"
import { appendRecords } from "../../../src/adapters/fs/bodyAppend.js"
import { compactBodyStore } from "../../../src/adapters/fs/bodyCompact.js"
import { openBodyFiles } from "../../../src/adapters/fs/bodyFiles.js"
import { openBodyIndex } from "../../../src/adapters/fs/bodyIndex.js"
import { INDEX_ENTRY_SIZE, MAX_UNSYNCED_RECORDS } from "../../../src/adapters/fs/bodyLayout.js"
import { recoverBodies } from "../../../src/adapters/fs/bodyRecovery.js"
import { BODY_INDEX_FILE, bodyPrefix } from "../../../src/adapters/fs/bodySidecar.js"
import type { StoredBody } from "../../../src/ports/BodyStore.js"
import { soleProcessLease } from "../../support/leases.js"
import { bodies, expectPresent, recordEnd, withStore, type Store } from "./bodyStoreFixtures.js"
import { tempDir } from "./tempDir.js"

const N = 5000

/** Opens the store in `dir`, runs `use`, closes it; answers `use`'s result and the lines logged meanwhile. */
const withLoggedStore = <A, E>(dir: string, use: (store: Store) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    const logger = Logger.make(({ message }) => lines.push(Array.isArray(message) ? message.join(" ") : String(message)))
    const result = yield* withStore(dir, use).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
    return { result, lines }
  })

/** A store of `list` put in batches of 700, with `removed` removed afterwards. */
const storeOf = (list: ReadonlyArray<StoredBody>, removed: ReadonlyArray<StoredBody> = []) =>
  Effect.gen(function*() {
    const dir = join(yield* tempDir("bodyindex"), "bodies")
    const fence = yield* soleProcessLease
    yield* withStore(dir, (store) =>
      Effect.gen(function*() {
        for (let from = 0; from < list.length; from += 700) yield* store.put(list.slice(from, from + 700))
        if (removed.length > 0) yield* store.remove(removed.map((b) => b.digest), fence)
      }))
    return dir
  })

/** Runs SQL statements on the sidecar of the (closed) store in `dir`. */
const onSidecar = <A>(dir: string, query: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, query).pipe(
    Effect.provide(SqliteClient.layer({ filename: join(dir, BODY_INDEX_FILE) })),
    Effect.orDie
  )

const sidecarState = (dir: string) =>
  onSidecar(dir, (sql) =>
    Effect.all({
      indexed: Effect.map(sql<{ indexed: number }>`SELECT indexed FROM body_index_meta`, (rows) => rows[0]!.indexed),
      rows: Effect.map(sql<{ rows: number }>`SELECT count(*) AS rows FROM body_locations`, (rows) => rows[0]!.rows)
    }))

const atOpen = (lines: ReadonlyArray<string>) => lines.filter((line) => line.startsWith("body index: indexing records"))

describe("FsBodyStore's index on disk", () => {
  it.scoped("a body is found as soon as its put returns, before the indexer ran, and through the sidecar after", () =>
    Effect.gen(function*() {
      const list = bodies("tail", 300)
      const dir = join(yield* tempDir("bodyindex"), "bodies")
      const fence = yield* soleProcessLease
      // Under the test clock the indexer's linger never ends: every answer here comes from
      // the tail in memory.
      yield* withStore(dir, (store) =>
        Effect.gen(function*() {
          yield* store.put(list)
          yield* expectPresent(store, list, true)
          yield* store.remove([list[5]!.digest], fence)
          yield* expectPresent(store, [list[5]!], false)
          // Put again: a new record, found past the removal of the old one.
          yield* store.put([list[5]!])
          yield* expectPresent(store, [list[5]!], true)
        }))
      // The close applied the tail: 302 records, 300 bodies.
      expect(yield* sidecarState(dir)).toEqual({ indexed: 302, rows: 300 })
      const { lines } = yield* withLoggedStore(dir, (store) => expectPresent(store, list, true))
      expect(atOpen(lines)).toEqual([])
    }))

  it.scoped("a removal of a body the sidecar holds hides it at once, and after a reopen", () =>
    Effect.gen(function*() {
      const list = bodies("indexed", 1000)
      const dir = yield* storeOf(list)
      expect(yield* sidecarState(dir)).toEqual({ indexed: 1000, rows: 1000 })
      const removed = [list[0]!, list[500]!, list[999]!]
      const fence = yield* soleProcessLease
      yield* withStore(dir, (store) =>
        Effect.gen(function*() {
          yield* store.remove(removed.map((b) => b.digest), fence)
          yield* expectPresent(store, removed, false)
          yield* expectPresent(store, list.slice(1, 500), true)
        }))
      expect(yield* sidecarState(dir)).toEqual({ indexed: 1003, rows: 997 })
      yield* withStore(dir, (store) => Effect.zipRight(expectPresent(store, removed, false), expectPresent(store, list.slice(501, 999), true)))
    }))

  it.scoped("a deleted sidecar is rebuilt from the index file at open, saying so, and answers the same", () =>
    Effect.gen(function*() {
      const list = bodies("rebuilt", N)
      const removed = list.slice(100, 110)
      const dir = yield* storeOf(list, removed)
      yield* Effect.promise(() => unlink(join(dir, BODY_INDEX_FILE)))
      const { lines } = yield* withLoggedStore(dir, (store) =>
        Effect.zipRight(expectPresent(store, removed, false), expectPresent(store, [...list.slice(0, 100), ...list.slice(110)], true)))
      expect(atOpen(lines)).toEqual([`body index: indexing records [0, ${N + 10}) of the body store at open`])
      expect(yield* sidecarState(dir)).toEqual({ indexed: N + 10, rows: N - 10 })
    }))

  it.scoped("a count cut back (a crash before the indexer caught up) applies only the records after it", () =>
    Effect.gen(function*() {
      const list = bodies("cut back", 3000)
      const removed = [list[10]!, list[2500]!]
      const dir = yield* storeOf(list, removed)
      // As a lost commit leaves it: the state after record 2000, whose entry it keeps, with
      // rows of later records that the commit had written (applying them again is harmless).
      const entry = yield* Effect.promise(() => readFile(join(dir, "index"))).pipe(
        Effect.map((bytes) => bytes.subarray(INDEX_ENTRY_SIZE * 1999, INDEX_ENTRY_SIZE * 2000))
      )
      yield* onSidecar(dir, (sql) => sql`UPDATE body_index_meta SET indexed = 2000, last_entry = ${entry}`)
      const { lines } = yield* withLoggedStore(dir, (store) =>
        Effect.zipRight(expectPresent(store, removed, false), expectPresent(store, list.filter((b) => !removed.includes(b)), true)))
      expect(atOpen(lines)).toEqual(["body index: indexing records [2000, 3002) of the body store at open"])
      expect(yield* sidecarState(dir)).toEqual({ indexed: 3002, rows: 2998 })
    }))

  it.scoped("a damaged sidecar is moved aside, loudly, and rebuilt", () =>
    Effect.gen(function*() {
      const list = bodies("damaged", 2000)
      const dir = yield* storeOf(list, [list[7]!])
      yield* Effect.promise(() => writeFile(join(dir, BODY_INDEX_FILE), "not a database, but something a disk could hold instead".repeat(200)))
      const { lines } = yield* withLoggedStore(dir, (store) =>
        Effect.zipRight(expectPresent(store, [list[7]!], false), expectPresent(store, list.slice(8), true)))
      expect(lines.some((line) => line.startsWith(`${BODY_INDEX_FILE} cannot be used: damaged`))).toBe(true)
      expect(atOpen(lines)).toEqual(["body index: indexing records [0, 2001) of the body store at open"])
      expect((yield* Effect.promise(() => readdir(dir))).some((name) => name.startsWith(`${BODY_INDEX_FILE}.damaged-`))).toBe(true)
    }))

  it.scoped("another store's sidecar is moved aside and rebuilt", () =>
    Effect.gen(function*() {
      const list = bodies("this store", 1500)
      const dir = yield* storeOf(list)
      const other = yield* storeOf(bodies("another store", 2500))
      yield* Effect.promise(() => copyFile(join(other, BODY_INDEX_FILE), join(dir, BODY_INDEX_FILE)))
      const { lines } = yield* withLoggedStore(dir, (store) => expectPresent(store, list, true))
      expect(lines).toContainEqual(expect.stringContaining("more than the index file holds"))
      expect(atOpen(lines)).toEqual(["body index: indexing records [0, 1500) of the body store at open"])
      // One of the same length: its last record is not this store's.
      const same = yield* storeOf(bodies("a third store", 1500))
      yield* Effect.promise(() => copyFile(join(same, BODY_INDEX_FILE), join(dir, BODY_INDEX_FILE)))
      const again = yield* withLoggedStore(dir, (store) => expectPresent(store, list, true))
      expect(again.lines).toContainEqual(expect.stringContaining("its record 1499 is not this store's"))
    }))

  it.scoped("a sidecar ahead of the files (the files restored from an older copy) answers nothing wrong", () =>
    Effect.gen(function*() {
      const [older, newer] = [bodies("older", 1200), bodies("newer", 800)]
      const dir = yield* storeOf(older)
      const copy = `${dir}-copy`
      yield* Effect.promise(() => cp(dir, copy, { recursive: true }))
      // Then the store goes on: new bodies, and some of the older ones removed.
      const fence = yield* soleProcessLease
      yield* withStore(dir, (store) => Effect.zipRight(store.put(newer), store.remove(older.slice(0, 50).map((b) => b.digest), fence)))
      expect(yield* sidecarState(dir)).toEqual({ indexed: 2050, rows: 1950 })
      // The files come back from the copy; the sidecar stays. It lacks rows of bodies the
      // older files hold (removed later), so it cannot be trusted even in part.
      for (const name of ["bodies", "index"]) yield* Effect.promise(() => copyFile(join(copy, name), join(dir, name)))
      const { lines } = yield* withLoggedStore(dir, (store) =>
        Effect.zipRight(expectPresent(store, older, true), expectPresent(store, newer, false)))
      expect(lines).toContainEqual(expect.stringContaining("more than the index file holds"))
      expect(yield* sidecarState(dir)).toEqual({ indexed: 1200, rows: 1200 })
    }))

  it.scoped("a body whose digest shares its 8-byte prefix with another's is told apart by the digest in its record", () =>
    Effect.gen(function*() {
      const list = bodies("prefix", 200)
      const dir = yield* storeOf(list)
      // Body 100's row under body 7's prefix too: as if the two digests began alike.
      yield* onSidecar(dir, (sql) =>
        sql`INSERT INTO body_locations (prefix, offset, length) VALUES (${bodyPrefix(list[7]!.digest)}, ${recordEnd(list, 100)}, ${list[100]!.bytes.length})`)
      yield* withStore(dir, (store) =>
        Effect.gen(function*() {
          yield* expectPresent(store, [list[7]!, list[100]!], true)
          // Same prefix as a body, different after it: no body.
          const lookalike = list[7]!.digest.slice()
          lookalike[31] ^= 1
          expect(Option.isNone(yield* store.get(lookalike))).toBe(true)
          expect(yield* store.has(lookalike)).toBe(false)
          // A put of body 7 again stores nothing new: its record is found among the two.
          yield* store.put([list[7]!, list[100]!])
        }))
      expect((yield* sidecarState(dir)).indexed).toBe(200)
    }))

  it.scoped("a sidecar that cannot be written (a full disk) is said, and every body is served from memory meanwhile", () =>
    Effect.gen(function*() {
      const [before, after] = [bodies("before", 1500), bodies("after", 100)]
      const dir = yield* storeOf(before, [before[3]!])
      // Empty, and failing every insert as a full disk fails a commit.
      yield* onSidecar(dir, (sql) =>
        Effect.all([
          sql`DELETE FROM body_locations`,
          sql`UPDATE body_index_meta SET indexed = 0, last_entry = NULL`,
          sql.unsafe("CREATE TRIGGER full_disk BEFORE INSERT ON body_locations BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END")
        ], { discard: true }))
      const fence = yield* soleProcessLease
      const { lines } = yield* withLoggedStore(dir, (store) =>
        Effect.gen(function*() {
          yield* expectPresent(store, [before[3]!], false)
          yield* expectPresent(store, [...before.slice(0, 3), ...before.slice(4)], true)
          yield* store.put(after)
          yield* store.remove([before[0]!.digest, after[0]!.digest], fence)
          yield* expectPresent(store, [before[0]!, before[3]!, after[0]!], false)
          yield* expectPresent(store, [...before.slice(4), ...after.slice(1)], true)
        }))
      expect(lines).toContainEqual(expect.stringContaining("body index: stopped at record 0 of 1501"))
      expect(yield* sidecarState(dir)).toEqual({ indexed: 0, rows: 0 })
      // Room again: the next open indexes everything.
      yield* onSidecar(dir, (sql) => sql.unsafe("DROP TRIGGER full_disk"))
      yield* withStore(dir, (store) =>
        Effect.zipRight(expectPresent(store, [before[0]!, before[3]!, after[0]!], false), expectPresent(store, [...before.slice(4), ...after.slice(1)], true)))
      expect(yield* sidecarState(dir)).toEqual({ indexed: 1603, rows: 1597 })
    }))

  it.scoped("a compaction deletes the sidecar, and the next open rebuilds it from the compacted files", () =>
    Effect.gen(function*() {
      const list = bodies("compacted", 1000)
      const dir = yield* storeOf(list, list.slice(0, 400))
      yield* compactBodyStore(dir).pipe(Effect.provide(NodeCryptoLive))
      expect((yield* Effect.promise(() => readdir(dir))).sort()).toEqual(["bodies", "index"])
      const { lines } = yield* withLoggedStore(dir, (store) =>
        Effect.zipRight(expectPresent(store, list.slice(0, 400), false), expectPresent(store, list.slice(400), true)))
      expect(atOpen(lines)).toEqual(["body index: indexing records [0, 600) of the body store at open"])
      expect(yield* sidecarState(dir)).toEqual({ indexed: 600, rows: 600 })
    }))
})

describe("the body index", () => {
  // Live: the indexer's linger is awaited by the clock.
  it.scopedLive("takes committed records into the sidecar a moment after they are published, finding them throughout", () =>
    Effect.gen(function*() {
      const dir = join(yield* tempDir("bodyindex"), "bodies")
      const files = yield* openBodyFiles(dir)
      const { end, index } = yield* openBodyIndex(files, nodeCrypto.sha256)
      const list = bodies("published", 50)
      const written = yield* appendRecords(files, end, list.map((b) => ({ kind: "put" as const, digest: b.digest, bytes: b.bytes })), nodeCrypto.sha256)
      const offsetOf = (i: number) => (written.entries[i] as { readonly offset: number }).offset
      /** The index answers each body's record, and none for those in `gone`. */
      const expectFound = (gone: ReadonlyArray<number>) =>
        Effect.forEach(list, (b, i) =>
          Effect.map(index.candidates([b.digest]), ([found]) =>
            expect(found!.map((location) => location.offset)).toEqual(gone.includes(i) ? [] : [offsetOf(i)])), { discard: true })
      index.publish(written.entries)
      expect(index.unindexed()).toBe(50)
      yield* expectFound([])
      yield* Effect.sleep("1 second")
      expect(index.unindexed()).toBe(0)
      yield* expectFound([])
      // The removal of body 0 (at offset 0): hidden at once, then deleted from the sidecar.
      const removal = yield* appendRecords(files, written.end, [{ kind: "removal", digest: list[0]!.digest, target: 0 }], nodeCrypto.sha256)
      index.publish(removal.entries)
      expect(index.unindexed()).toBe(1)
      yield* expectFound([0])
      yield* Effect.sleep("1 second")
      expect(index.unindexed()).toBe(0)
      yield* expectFound([0])
      expect(yield* index.count).toBe(49)
    }))
})

describe("body store recovery beside the index", () => {
  it.scoped("reads the index file's last records and the entries around where they start, not the whole file", () =>
    Effect.gen(function*() {
      const list = bodies("many", N)
      const dir = yield* storeOf(list)
      const files = yield* openBodyFiles(dir)
      const reads: Array<number> = []
      const index = new Proxy(files.index, {
        get: (target, key) =>
          key === "read"
            ? (buffer: Uint8Array, offset: number, length: number, position: number) => {
              reads.push(length)
              return target.read(buffer, offset, length, position)
            }
            : Reflect.get(target, key, target)
      })
      const recovered = yield* recoverBodies({ ...files, index }, nodeCrypto.sha256, N)
      expect(recovered.end.records).toBe(N)
      // The untrusted last MAX_UNSYNCED_RECORDS entries, twice (what they describe, then
      // against the tail recovery settles), and a few entries before them.
      expect(reads.reduce((sum, length) => sum + length, 0)).toBeLessThanOrEqual(INDEX_ENTRY_SIZE * (2 * MAX_UNSYNCED_RECORDS + 32))
    }))
})
