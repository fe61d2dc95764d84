// Bytes that several entries name, through the real server (dist/src/main.js), on the
// filesystem and on two nodes sharing a PostgreSQL database (docs/spec/service.md item 10 and "Body
// status"; docs/protocol.md sections 5, 9 and 14). The body store keeps one copy per
// digest, and a capsule's ciphertext is whatever bytes its writer likes, with no grant: a
// capsule can repeat a public post's text or the charter document. When it expires,
// retention must not take those bytes from the post or the charter (whose loss would stop
// the next start). The service's clock cannot be moved, so the capsules are written
// straight into the stopped service's stores, logged 91 days back: on the next start they
// are expired and retention runs as soon as a process sequences. Where retention stands is
// kept in the projection store (state.db, or the shared tables on PostgreSQL: app/BodyLedger.ts),
// so a restart, or the node that takes over, goes on from there; a rebuilt state.db
// decides again from the log alone, the same way.

import { Effect, Exit, Layer, Option, Scope } from "effect"
import { readFile, rm } from "node:fs/promises"
import { join } from "node:path"
import { sha256 } from "@noble/hashes/sha2.js"
import { afterAll, describe, expect, it } from "vitest"
import { NodeCryptoLive } from "../../../src/adapters/crypto/nodeCrypto.js"
import { PgBodyStoreLive } from "../../../src/adapters/pg/PgBodyStore.js"
import { PgCoordinationLive } from "../../../src/adapters/pg/PgCoordination.js"
import { PgLogStoreLive } from "../../../src/adapters/pg/PgLogStore.js"
import { PgProjectionStoreLive } from "../../../src/adapters/pg/PgProjectionStore.js"
import { PgDatabaseLive } from "../../../src/adapters/pg/PgStorage.js"
import { SqliteProjectionStoreLive } from "../../../src/adapters/sqlite/SqliteProjectionStore.js"
import { DAY_MS } from "../../../src/domain/bodyStatus.js"
import { BodyStore } from "../../../src/ports/BodyStore.js"
import type { Coordination } from "../../../src/ports/Coordination.js"
import type { Crypto } from "../../../src/ports/Crypto.js"
import type { LogStore } from "../../../src/ports/LogStore.js"
import { ProjectionStore } from "../../../src/ports/ProjectionStore.js"
import { accepted, envelopeFor, makeAgent } from "../../support/agents.js"
import { copyKeys, leaderOf, SEQUENCING_LINE, startNode, type Node } from "../../support/nodes.js"
import { OutsideAgent, u64, utf8, type Log } from "../../support/outsideAgent.js"
import { testDatabase } from "../../support/pg.js"
import { fsStorage, seedLeavesInto } from "../../support/seedLog.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

const ORIGIN = "localhost/aics"
const POST_TEXT = utf8("a public post whose very bytes a capsule repeats")
const CONTROL = utf8("ciphertext no other entry names")
const RETENTION_LINE = /retention removed the bytes of (\d+) bodies no entry needs/

type Storage = Layer.Layer<LogStore | BodyStore | Coordination, unknown, Crypto>

const db = testDatabase()
const scope = Effect.runSync(Scope.make())
const started: Array<RunningServer> = []

afterAll(async () => {
  for (const server of started) await server.stop()
  for (const server of started) await removeDir(server.dataDir)
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const bytesOf = async (response: Response) => new Uint8Array(await response.arrayBuffer())

/** Waits for a line of the server's output; answers its match. */
const lineOf = async (server: RunningServer, pattern: RegExp, timeoutMs = 15_000): Promise<RegExpExecArray> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const found = pattern.exec(server.output())
    if (found !== null) return found
    if (Date.now() > deadline) throw new Error(`no line ${pattern} from ${server.baseUrl}:\n${server.output()}`)
    await sleep(50)
  }
}

/** How many bodies the server's retention deleted, once it has run since the server leads. */
const retained = async (server: RunningServer) => Number((await lineOf(server, RETENTION_LINE))[1])

/** On a freshly started service: a name and a post written over HTTP; answers the post's index and the charter document. */
const writePost = async (server: RunningServer) => {
  const log: Log = { baseUrl: server.baseUrl, origin: ORIGIN, vkey: (await readFile(join(server.dataDir, "log.vkey"), "utf8")).trim() }
  const alice = OutsideAgent.random(log)
  expect((await alice.claim(`alice${Date.now() % 100000}`)).status).toBe(202)
  const posted = await alice.post(new TextDecoder().decode(POST_TEXT))
  expect(posted.status).toBe(202)
  return { postIndex: posted.json.entry.index as number, charterDocument: await bytesOf(await fetch(`${server.baseUrl}/charter`)) }
}

/**
 * Into the stopped service's stores: capsules of a key with no name and no grant, 91 days
 * old, repeating the post's text and the charter document, and one of bytes of its own.
 * Answers the index of the first.
 */
const seedOldCapsules = (storage: Storage, charterDocument: Uint8Array) => {
  const mallory = makeAgent(`shared bodies mallory ${Math.random()}`)
  const logged = Date.now() - 91 * DAY_MS
  const capsules = [POST_TEXT, charterDocument, CONTROL].map((ct, i) => {
    const envelope = envelopeFor(mallory, ORIGIN, "capsule", { slot: u64(sha256(utf8(`slot ${i}`))), ct_hash: u64(sha256(ct)), size: ct.length })
    accepted(mallory, envelope)
    return { envelope, body: ct, logged }
  })
  return Effect.runPromise(seedLeavesInto(storage, () => capsules))
}

/** Whether the stopped service's body store holds each of these bodies. */
const held = (storage: Storage, ...bodies: ReadonlyArray<Uint8Array>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(BodyStore, (store) =>
    Effect.forEach(bodies, (bytes) => Effect.map(store.get(sha256(bytes)), Option.isSome))).pipe(
      Effect.provide(storage),
      Effect.provide(NodeCryptoLive)
    )))

/** Where retention stands in the stopped service's projection store: how many of the log's ciphertexts it has decided. */
const retentionCursor = (projection: Layer.Layer<ProjectionStore, unknown>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(ProjectionStore, (store) => store.retained("ciphertexts")).pipe(Effect.provide(projection))))

/** What any node answers once the capsules expired: the post's body, the charter; the lone capsule gone. */
const expectSharedBytesKept = async (server: RunningServer, postIndex: number, capsuleIndex: number, charterDocument: Uint8Array) => {
  const get = (path: string) => fetch(`${server.baseUrl}${path}`)
  const post = await get(`/v2/entries/${postIndex}`)
  expect(post.status).toBe(200)
  expect(post.headers.get("x-aics-body-status")).toBe("available")
  expect((await post.json() as { body_or_ct: string | null }).body_or_ct).toBe(u64(POST_TEXT))

  // The capsule's own status is expired: body status is of an entry.
  const capsule = await get(`/v2/entries/${capsuleIndex}`)
  expect(capsule.headers.get("x-aics-body-status")).toBe("expired;policy_index=0")
  expect((await capsule.json() as { body_or_ct: string | null }).body_or_ct).toBeNull()

  // By digest: available while any entry naming it is.
  const body = await get(`/v2/bodies/${u64(sha256(POST_TEXT))}`)
  expect(body.status).toBe(200)
  expect(await bytesOf(body)).toEqual(POST_TEXT)
  expect(await bytesOf(await get("/charter"))).toEqual(charterDocument)
  expect((await get(`/v2/bodies/${u64(sha256(charterDocument))}`)).status).toBe(200)
  const control = await get(`/v2/bodies/${u64(sha256(CONTROL))}`)
  expect(control.status).toBe(410)
  expect(await control.json()).toEqual({ state: "expired", tombstone_index: null, reason_code: null, policy_index: 0 })
}

describe("bytes that a public entry and an expired capsule both name, on the filesystem", () => {
  it("stay for the post and the charter, through retention, a restart that goes on from where it stood, and a rebuilt state.db", async () => {
    const dataDir = await tempDataDir()
    const storage = fsStorage(dataDir)
    const first = await startServer({ dataDir })
    started.push(first)
    const { postIndex, charterDocument } = await writePost(first)
    await first.stop()
    const capsuleIndex = await seedOldCapsules(storage, charterDocument)

    // Retention deletes the bytes of the lone capsule only: the others are needed by leaves.
    const second = await startServer({ dataDir })
    started.push(second)
    expect(await retained(second)).toBe(1)
    await expectSharedBytesKept(second, postIndex, capsuleIndex, charterDocument)
    await second.stop()
    expect(await held(storage, POST_TEXT, charterDocument, CONTROL)).toEqual([true, true, false])

    // Retention decided the three capsules, and state.db says so.
    const stateDb = join(dataDir, "state.db")
    expect(await retentionCursor(SqliteProjectionStoreLive(stateDb))).toBe(3)

    // The start checks that the body store holds the charter document. Retention goes on
    // after the three capsules, and every body answers as before the restart.
    const third = await startServer({ dataDir })
    started.push(third)
    await expectSharedBytesKept(third, postIndex, capsuleIndex, charterDocument)
    await third.stop()
    expect(await retentionCursor(SqliteProjectionStoreLive(stateDb))).toBe(3)

    // Without state.db the start rebuilds it from the log, and retention decides again
    // from the log alone, the same way.
    for (const suffix of ["", "-wal", "-shm"]) await rm(`${stateDb}${suffix}`, { force: true })
    const fourth = await startServer({ dataDir })
    started.push(fourth)
    expect(await retained(fourth)).toBe(1)
    await expectSharedBytesKept(fourth, postIndex, capsuleIndex, charterDocument)
    // Stopped first: one process opens a data folder (the log's leaf index is locked to it).
    await fourth.stop()
    expect(await held(storage, POST_TEXT, charterDocument, CONTROL)).toEqual([true, true, false])
  }, 120_000)
})

describe.skipIf(!db.multiSession)("bytes that a public entry and an expired capsule both name, on two nodes", () => {
  it("are kept by the sequencing node's retention, whose successor after a SIGKILL goes on from where it stood", async () => {
    const url = await Effect.runPromise(Scope.extend(db.freshSchema, scope))
    const storage: Storage = Layer.mergeAll(PgLogStoreLive, PgBodyStoreLive, PgCoordinationLive(url)).pipe(
      Layer.provideMerge(PgDatabaseLive(url, { maxConnections: db.maxConnections })),
      Layer.provide(NodeCryptoLive)
    )
    const first = await startNode({ databaseUrl: url, dataDir: await tempDataDir() })
    started.push(first)
    const { postIndex, charterDocument } = await writePost(first)
    await first.stop()
    const capsuleIndex = await seedOldCapsules(storage, charterDocument)

    const nodes: Array<Node> = [await first.restart(), await startNode({ databaseUrl: url, dataDir: await copyKeys(first.dataDir) })]
    started.push(...nodes)
    const leader = await (async () => {
      for (const deadline = Date.now() + 15_000; Date.now() < deadline; await sleep(50)) {
        const found = leaderOf(nodes)
        if (found !== undefined) return found
      }
      throw new Error("no node took the lease")
    })()
    const follower = nodes.find((node) => node !== leader)!
    expect(await retained(leader)).toBe(1)
    // The other node serves the same, and deletes nothing itself.
    await expectSharedBytesKept(follower, postIndex, capsuleIndex, charterDocument)
    expect(RETENTION_LINE.test(follower.output())).toBe(false)
    // Where retention stands is in the tables both nodes share.
    const projection = PgProjectionStoreLive.pipe(Layer.provide(PgDatabaseLive(url, { maxConnections: 1 })))
    expect(await retentionCursor(projection)).toBe(3)

    await leader.kill()
    await lineOf(follower, new RegExp(SEQUENCING_LINE))
    await expectSharedBytesKept(follower, postIndex, capsuleIndex, charterDocument)
    expect(await retentionCursor(projection)).toBe(3)
    expect(await held(storage, POST_TEXT, charterDocument, CONTROL)).toEqual([true, true, false])
  }, 90_000)
})
