// Which start creates the log (src/app/LogCreation.ts): settled before any key is read or
// made, so that only the process that writes leaf 0 makes keys. In process, over a
// coordination whose lease and announcements the test drives; then two real nodes started at
// once on an empty PostgreSQL database, both without keys: one creates the log, the other
// refuses in one line saying which keys to copy from where, and leaves its data folder as it
// found it (README "Set up": a refused start creates nothing).

import { cp, readdir, readFile } from "node:fs/promises"
import { join } from "node:path"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { it as effectIt } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Option, Queue, Redacted, Ref, Scope, Stream } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { MemoryCoordinationLive } from "../../src/adapters/memory/MemoryCoordination.js"
import { PgCoordinationLive } from "../../src/adapters/pg/PgCoordination.js"
import { PgDatabaseLive } from "../../src/adapters/pg/PgStorage.js"
import { LogCreationStatus } from "../../src/app/LogCreation.js"
import { Coordination } from "../../src/ports/Coordination.js"
import { LogStore } from "../../src/ports/LogStore.js"
import { leaseFenceOf } from "../support/leases.js"
import { startNode } from "../support/nodes.js"
import { testDatabase } from "../support/pg.js"
import { pollUntil } from "../support/poll.js"
import { removeDir, tempDataDir } from "../support/server.js"

/** A log of `size` leaves, as far as LogCreation reads it. */
const logOfSize = (size: Ref.Ref<number>) => Layer.succeed(LogStore, { size: Ref.get(size) } as unknown as LogStore["Type"])

/**
 * One process's coordination, whose `appended` cues are the test's to send; with `leaseHeld`,
 * another process holds the lease for as long as the test runs.
 */
const coordinationCued = (cues: Queue.Queue<void>, leaseHeld = false) =>
  Layer.effect(Coordination, Effect.map(Coordination, (coordination) => ({
    ...coordination,
    appended: Stream.fromQueue(cues),
    ...(leaseHeld ? { lease: () => Effect.never } : {})
  }))).pipe(Layer.provide(MemoryCoordinationLive()))

/**
 * Whether the fiber has ended once every fiber that can run has run: what it waits for (a
 * semaphore, a queue) is all in this process, so a fiber not ended by then waits on it.
 */
const settledSoon = (fiber: Fiber.Fiber<unknown, unknown>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
    return Option.isSome(yield* Fiber.poll(fiber))
  })

describe("LogCreationStatus", () => {
  effectIt.scoped("on a log that has leaf 0: Exists, and takes no lease", () =>
    Effect.gen(function*() {
      const cues = yield* Queue.unbounded<void>()
      const layer = LogCreationStatus.layer.pipe(Layer.provideMerge(Layer.merge(logOfSize(yield* Ref.make(1)), coordinationCued(cues))))
      const context = yield* Layer.build(layer)
      expect((yield* Effect.provide(LogCreationStatus, context))._tag).toBe("Exists")
      // The lease is free for the sequencer.
      const sequencer = yield* Effect.fork(Effect.scoped(Effect.flatMap(Effect.provide(Coordination, context), (c) => c.lease())))
      expect(yield* settledSoon(sequencer)).toBe(true)
    }))

  effectIt.scoped("on an empty log whose lease it takes: Creates, holding the lease until release", () =>
    Effect.gen(function*() {
      const cues = yield* Queue.unbounded<void>()
      const context = yield* Layer.build(LogCreationStatus.layer.pipe(Layer.provideMerge(Layer.merge(logOfSize(yield* Ref.make(0)), coordinationCued(cues)))))
      const creation = yield* Effect.provide(LogCreationStatus, context)
      expect(creation._tag).toBe("Creates")
      const coordination = yield* Effect.provide(Coordination, context)
      const sequencer = yield* Effect.fork(Effect.scoped(coordination.lease()))
      expect(yield* settledSoon(sequencer)).toBe(false)
      if (creation._tag === "Creates") yield* creation.release
      yield* Fiber.join(sequencer)
    }))

  effectIt.scoped("on an empty log whose leaf 0 another process writes while it waits for the lease: CreatedElsewhere", () =>
    Effect.gen(function*() {
      const cues = yield* Queue.unbounded<void>()
      const size = yield* Ref.make(0)
      const layer = LogCreationStatus.layer.pipe(Layer.provide(Layer.merge(logOfSize(size), coordinationCued(cues, true))))
      const settling = yield* Effect.fork(Effect.provide(LogCreationStatus, layer))
      // A cue before leaf 0 is there settles nothing.
      yield* Queue.offer(cues, undefined)
      expect(yield* settledSoon(settling)).toBe(false)
      yield* Ref.set(size, 1)
      yield* Queue.offer(cues, undefined)
      expect((yield* Fiber.join(settling))._tag).toBe("CreatedElsewhere")
    }))
})

const db = testDatabase()
const scope = Effect.runSync(Scope.make())
const cleanup: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const step of cleanup.reverse()) await step()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

/** The sessions of the database at `url` that try for the sequencing lease now (each node's lease session, polling). */
const sessionsTryingTheLease = (url: string) =>
  Effect.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ count: string }>`SELECT count(*) AS count FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = 'aics-lease' AND query LIKE '%pg_try_advisory_lock%'`
  ).pipe(
    Effect.map((rows) => Number(rows[0]!.count)),
    Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 }))
  ))

/** The output of a start that exited (startServer rejects with it). */
const outputOf = (reason: unknown) => (reason instanceof Error ? reason.message : String(reason))

describe.skipIf(!db.multiSession)("two nodes started at once on an empty PostgreSQL database, both without keys", () => {
  it("one creates the log; the other refuses in one line naming the keys to copy, and leaves its data folder as it found it", async () => {
    // A database of its own, so that its nodes' sessions are told from other test files'.
    const url = await Effect.runPromise(Scope.extend(db.freshDatabase, scope))
    const where = `${new URL(url).host}${new URL(url).pathname}`
    // The test holds the lease first, so that both nodes wait for it on the empty log when it
    // goes, the moment two starts at once meet in, whichever node is the faster to start.
    const held = Effect.runSync(Scope.make())
    cleanup.push(() => Effect.runPromise(Scope.close(held, Exit.void)))
    await Effect.runPromise(Scope.extend(leaseFenceOf(PgCoordinationLive(url).pipe(Layer.provide(PgDatabaseLive(url, { maxConnections: 2 })))), held))

    const dataDirs = [await tempDataDir(), await tempDataDir()]
    for (const dir of dataDirs) cleanup.push(() => removeDir(dir))
    const starts = dataDirs.map((dataDir) => startNode({ databaseUrl: url, dataDir }))
    const exits: Array<string> = []
    for (const start of starts) start.then((node) => void cleanup.push(() => node.stop()), (reason) => void exits.push(outputOf(reason)))
    const waited = await pollUntil("both nodes waiting for the lease", async () =>
      exits.length > 0 ? "exited" : (await sessionsTryingTheLease(url)) >= 2 ? "waiting" : undefined, 60_000)
    expect(waited, `a node exited before the lease went:\n${exits.join("\n")}`).toBe("waiting")
    await Effect.runPromise(Scope.close(held, Exit.void))

    const outcomes = await Promise.allSettled(starts)
    const created = outcomes.flatMap((outcome, i) => outcome.status === "fulfilled" ? [{ node: outcome.value, dataDir: dataDirs[i]! }] : [])
    const refused = outcomes.flatMap((outcome, i) => outcome.status === "rejected" ? [{ output: outputOf(outcome.reason), dataDir: dataDirs[i]! }] : [])
    expect(created, refused.map((r) => r.output).join("\n")).toHaveLength(1)
    expect(refused).toHaveLength(1)
    const [winner] = created
    const [loser] = refused

    // One line, saying that another node created the log, naming the database (not its folder)
    // and the keys to copy into which folder.
    const lines = loser!.output.trim().split("\n").filter((line) => line.startsWith("aics: cannot start:"))
    expect(lines, loser!.output).toHaveLength(1)
    const keysDir = join(loser!.dataDir, "keys")
    expect(lines[0]).toBe(`aics: cannot start: ${join(keysDir, "log.key")}, ${join(keysDir, "policy.key")} and ${join(keysDir, "witness.key")} are missing: another node created the log in the database at ${where} (AICS_DATABASE_URL) first (it wrote leaf 0 while this start waited for the sequencing lease), with keys of its own, and this start wrote nothing: copy keys/ (log.key, policy.key and witness.key) from that node into ${keysDir} (AICS_DATA_DIR), then start again`)
    expect(loser!.output).not.toContain("Created the owner key")
    expect(await readdir(loser!.dataDir)).toEqual([])

    // As the line says: with the winner's keys/ copied in, it serves the same log, with the
    // owner leaf 0 names (no owner.kid of its own in the way).
    await cp(join(winner!.dataDir, "keys"), keysDir, { recursive: true })
    const second = await startNode({ databaseUrl: url, dataDir: loser!.dataDir })
    cleanup.push(() => second.stop())
    const cards = await Promise.all([winner!.node, second].map(async (node) =>
      (await fetch(`${node.baseUrl}/.well-known/aics-card.json`)).json() as Promise<{ keys: unknown; witnessing: { witness: { vkey: string } } }>))
    expect(cards[1]!.keys).toEqual(cards[0]!.keys)
    expect(cards[1]!.witnessing.witness.vkey).toBe(cards[0]!.witnessing.witness.vkey)
    expect((await readFile(join(loser!.dataDir, "owner.kid"), "utf8")).trim()).toBe((await readFile(join(winner!.dataDir, "owner.kid"), "utf8")).trim())
  }, 120_000)
})
