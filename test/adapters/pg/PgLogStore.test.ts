// PgLogStore: the contract, and what only a database shared by several nodes shows: big
// batches, writers that race for one position, and appends fenced by the sequencing lease
// (leaseEpoch.ts; docs/operations.md, "The log's appends"). An append under a fence that a
// later lease superseded appends nothing; an append in progress holds the next holder's
// raise of the epoch until it commits, so that holder reads its leaf before it decides.
// The fences come from PgCoordination's leases, as in service.

import { it } from "@effect/vitest"
import { Context, Effect, Layer, Option, Scope } from "effect"
import { describe, expect } from "vitest"
import { createHash } from "node:crypto"
import { PgBodyStoreLive } from "../../../src/adapters/pg/PgBodyStore.js"
import { PgLogStoreLive } from "../../../src/adapters/pg/PgLogStore.js"
import { equal, toHex } from "../../../src/domain/bytes.js"
import { storedHashCount } from "../../../src/domain/tlog/storedHash.js"
import { BodyStore } from "../../../src/ports/BodyStore.js"
import { Coordination } from "../../../src/ports/Coordination.js"
import { LogStore } from "../../../src/ports/LogStore.js"
import { entryBytes, expectStoreMatches, LogModel, logStoreContract } from "../../ports/LogStore.contract.js"
import { leaseFenceOf } from "../../support/leases.js"
import { testDatabase } from "../../support/pg.js"
import { holdLogHead, nextLeaseAfterWrite, sessionOn } from "../../support/pgSessions.js"
import { coordinationOn, openOn, twoNodesOn, upgradeAcross } from "./open.js"

const db = testDatabase()
const open = (url: string) => openOn(db, PgLogStoreLive, url)

logStoreContract("PgLogStore", {
  fresh: Effect.map(db.freshSchema, (url) => ({ open: open(url), lease: leaseFenceOf(coordinationOn(db, url)) })),
  durable: true,
  propertyRuns: 10
})

describe("PgLogStore on PostgreSQL", () => {
  // The body a leaf was appended naming is read with the leaf (one round trip for an entry's
  // bundle): whether aics_bodies holds it now, its bytes when it rides; nothing for a leaf
  // that names none (or was appended before migration 0020), whose reader asks the body store.
  it.scoped("an entry's read answers the body its leaf names, as the body store holds it now", () =>
    Effect.gen(function*() {
      const url = yield* db.freshSchema
      const built = yield* Layer.build(Layer.merge(open(url), openOn(db, PgBodyStoreLive, url)))
      const [store, bodies] = [Context.get(built, LogStore), Context.get(built, BodyStore)]
      const body = (text: string) => {
        const bytes = new TextEncoder().encode(text)
        return { bytes, digest: new Uint8Array(createHash("sha256").update(bytes).digest()) }
      }
      const [riding, missing, document, removed] = [body("a post's body"), body("never stored"), body("an audit report"), body("retention removed it")]
      yield* bodies.put([riding, document, removed])
      const model = new LogModel()
      const leaves = model.add(Array.from({ length: 5 }, (_, i) => entryBytes(i, 40)))
      const named = [riding, missing, document, removed].map((b, i) => ({ digest: b.digest, rides: i !== 2 }))
      const fence = yield* leaseFenceOf(coordinationOn(db, url))
      yield* store.append(0, leaves.map((leaf, i) => ({ ...leaf, body: named[i] })), fence)
      yield* bodies.remove([removed.digest], fence)

      const read = (index: number) => Effect.map(store.readEntryAndHashes(index, [0, 1]), (r) => ({
        entry: toHex(r.entry),
        hashes: r.hashes.map(toHex),
        body: r.body === undefined ? undefined : { stored: r.body.stored, bytes: r.body.bytes === undefined ? undefined : toHex(r.body.bytes) }
      }))
      const expected = (index: number, body: { stored: boolean; bytes: string | undefined } | undefined) =>
        ({ entry: toHex(model.entries[index]!), hashes: [0, 1].map((h) => toHex(model.hashes[h]!)), body })
      expect(yield* read(0)).toEqual(expected(0, { stored: true, bytes: toHex(riding.bytes) }))
      expect(yield* read(1)).toEqual(expected(1, { stored: false, bytes: undefined }))
      // A document named by its hash alone: its presence, not its bytes (up to 1 MiB).
      expect(yield* read(2)).toEqual(expected(2, { stored: true, bytes: undefined }))
      expect(yield* read(3)).toEqual(expected(3, { stored: false, bytes: undefined }))
      expect(yield* read(4)).toEqual(expected(4, undefined))
    }))

  it.scoped("a leaf appended before migration 0020 reads as before, its body left to the body store", () =>
    Effect.gen(function*() {
      const url = yield* db.freshSchema
      const entry = entryBytes(1, 30)
      const ran = yield* upgradeAcross(url, "0020", (sql) => Effect.zipRight(
        sql`INSERT INTO aics_leaves (idx, bytes, leaf_hash) VALUES (0, ${entry}, ${new Uint8Array(32)})`,
        sql`UPDATE aics_log_head SET size = 1`))
      expect(ran[0]).toBe("leaf_body")
      const store = Context.get(yield* Layer.build(open(url)), LogStore)
      const read = yield* store.readEntryAndHashes(0, [])
      expect(toHex(read.entry)).toBe(toHex(entry))
      expect(read.body).toBeUndefined()
    }))

  it.scoped("appends large batches in one append each, across statements", () =>
    Effect.gen(function*() {
      const url = yield* db.freshSchema
      const store = Context.get(yield* Layer.build(open(url)), LogStore)
      const fence = yield* leaseFenceOf(coordinationOn(db, url))
      const model = new LogModel()
      // 5,000 leaves, then 300 of the largest size: 19.7 MB, more than one statement holds.
      yield* store.append(0, model.add(Array.from({ length: 5_000 }, (_, i) => entryBytes(i, 50 + (i % 700)))), fence)
      yield* store.append(5_000, model.add(Array.from({ length: 300 }, (_, i) => entryBytes(10_000 + i, 65_535))), fence)
      // Compared byte by byte, not through expectStoreMatches: hex of 20 MB is slow.
      expect(yield* store.size).toBe(5_300)
      const entries = yield* store.readEntries(0, 5_300)
      expect(entries.every((entry, i) => equal(entry, model.entries[i]!))).toBe(true)
      expect((yield* store.readHashRange(0, storedHashCount(5_300))).map(toHex)).toEqual(model.hashes.map(toHex))
      for (const index of [0, 1, 4_999, 5_000, 5_299]) {
        expect(yield* store.findLeaf(model.hashes[storedHashCount(index)]!)).toEqual(Option.some(index))
      }
    }))

  // Several API processes, each with its own pool, appending to one log: every round, all
  // of them try to append at the size they read; exactly one wins, and the log that every
  // process then reads is the model of the winners, with no leaf or hash of a loser. They
  // append under one fence: the head row alone must keep the log from forking.
  it.scoped.runIf(db.multiSession)("writers on separate pools (several nodes) never fork the log", () =>
    Effect.gen(function*() {
      const url = yield* db.freshSchema
      const stores = yield* Effect.forEach([0, 1, 2, 3], () => Effect.map(Layer.build(open(url)), Context.get(LogStore)))
      const fence = yield* leaseFenceOf(coordinationOn(db, url))
      const model = new LogModel()
      for (let round = 0; round < 30; round++) {
        const entries = stores.map((_, w) => Array.from({ length: 1 + ((round + w) % 5) }, (_, i) => entryBytes(1_000 * round + 100 * w + i, 40)))
        const start = model.size
        const results = yield* Effect.all(
          stores.map((store, w) => Effect.either(store.append(start, model.peek(entries[w]!), fence))),
          { concurrency: "unbounded" }
        )
        const winners = results.flatMap((result, w) => (result._tag === "Right" ? [w] : []))
        expect(winners).toHaveLength(1)
        model.add(entries[winners[0]!]!)
      }
      for (const store of stores) yield* expectStoreMatches(store, model)
    }))

  it.scoped("an append under a fence a later lease superseded appends nothing and fails with LeaseSuperseded", () =>
    Effect.gen(function*() {
      const url = yield* db.freshSchema
      const store = Context.get(yield* Layer.build(open(url)), LogStore)
      const coordination = Context.get(yield* Layer.build(coordinationOn(db, url)), Coordination)
      const model = new LogModel()
      // A lease given up, then the next one: its successor's.
      const deposed = yield* Effect.scoped(Effect.map(coordination.lease(), (lease) => lease.fence))
      const current = (yield* coordination.lease()).fence
      expect(current.epoch).toBeGreaterThan(deposed.epoch)
      // At the right position, and with nothing of the successor's in the log yet.
      const refused = yield* Effect.flip(store.append(0, model.peek([entryBytes(1, 30)]), deposed))
      expect(refused._tag).toBe("LeaseSuperseded")
      yield* expectStoreMatches(store, model)
      yield* store.append(0, model.add([entryBytes(2, 30)]), current)
      expect((yield* Effect.flip(store.append(1, model.peek([]), deposed)))._tag).toBe("LeaseSuperseded")
      yield* expectStoreMatches(store, model)
    }))

  it.scopedLive.runIf(db.multiSession)("an append in progress holds the next holder's raise of the epoch until it commits", () =>
    Effect.gen(function*() {
      const url = yield* db.freshSchema
      const admin = yield* sessionOn(url)
      // Two nodes: a pool, a log store and a coordination each.
      const [a, b] = yield* twoNodesOn(db, LogStore, PgLogStoreLive, url)
      const model = new LogModel()
      const leaseOfA = yield* Scope.make()
      const fenceOfA = (yield* Scope.extend(a.coordination.lease(), leaseOfA)).fence

      // A's append takes the epoch row FOR SHARE, then waits on the head row the test holds:
      // the append's transaction stays open, holding the share lock. A's lease ends; B takes
      // the advisory lock, and its raise waits on A's transaction until A's append commits.
      const blocker = yield* holdLogHead(url)
      const { next } = yield* nextLeaseAfterWrite(admin, blocker, a.store.append(0, model.add([entryBytes(1, 30)]), fenceOfA), leaseOfA,
        b.coordination.lease())
      const fenceOfB = next.fence
      expect(fenceOfB.epoch).toBeGreaterThan(fenceOfA.epoch)
      // B reads A's leaf after its raise.
      yield* expectStoreMatches(b.store, model)
      // And A, still unaware, appends nothing from now on, while B appends after A's leaf.
      const late = yield* Effect.flip(a.store.append(1, model.peek([entryBytes(2, 30)]), fenceOfA))
      expect(late._tag).toBe("LeaseSuperseded")
      yield* b.store.append(1, model.add([entryBytes(3, 30)]), fenceOfB)
      yield* expectStoreMatches(a.store, model)
    }))
})
