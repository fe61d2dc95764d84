// Several service processes on one PostgreSQL database (docs/protocol.md section 14), for
// the end-to-end tests of issue 5: each node has a data folder of its own holding a copy
// of the first node's keys (as an operator copies them), and AICS_DATABASE_URL names one
// schema of the test server. The schema is dropped when the scope closes.

import { copyFile, cp, readFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Either, Exit, Scope } from "effect"
import { afterAll, expect } from "vitest"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { equal } from "../../src/domain/bytes.js"
import { decodeU64 } from "../../src/domain/encoding.js"
import { parseReceipt } from "../../src/domain/note/receipt.js"
import { openNote } from "../../src/domain/note/signedNote.js"
import { parseVerifierKey } from "../../src/domain/note/verifierKey.js"
import { verifyLogFromTiles, type TileHashes } from "./independentVerifier.js"
import type { WriteResult } from "./load.js"
import { testDatabase } from "./pg.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "./server.js"

export interface Node extends RunningServer {
  /** Restarts this node's process (same data folder and port) after a kill. */
  readonly restart: () => Promise<Node>
}

/** The folder's keys, owner key and log verifier key, copied into a new data folder. */
export const copyKeys = async (from: string): Promise<string> => {
  const dataDir = await tempDataDir()
  await cp(join(from, "keys"), join(dataDir, "keys"), { recursive: true })
  await copyFile(join(from, "owner.kid"), join(dataDir, "owner.kid"))
  return dataDir
}

export const startNode = async (options: {
  readonly databaseUrl: string
  readonly dataDir: string
  readonly port?: number
  readonly env?: Readonly<Record<string, string>>
}): Promise<Node> => {
  const server = await startServer({
    dataDir: options.dataDir,
    ...(options.port === undefined ? {} : { port: options.port }),
    env: { AICS_DATABASE_URL: options.databaseUrl, ...options.env }
  })
  return { ...server, restart: () => startNode({ ...options, port: server.port }) }
}

/** `count` nodes on the database: the first one alone (it writes leaf 0), then the others. */
export const startNodes = async (databaseUrl: string, count: number, env?: Readonly<Record<string, string>>) => {
  const first = await startNode({ databaseUrl, dataDir: await tempDataDir(), ...(env ? { env } : {}) })
  const nodes: Array<Node> = [first]
  for (let i = 1; i < count; i++) nodes.push(await startNode({ databaseUrl, dataDir: await copyKeys(first.dataDir), ...(env ? { env } : {}) }))
  const vkey = (await readFile(join(first.dataDir, "log.vkey"), "utf8")).trim()
  return { nodes, vkey }
}

/**
 * A test file's nodes on the test database: `start` puts `count` nodes on a fresh schema
 * (startNodes); every node started so is stopped and its folder removed, and the schemas
 * dropped, after the file's tests. `multiSession` says whether the database can hold them
 * (the real server, not PGlite).
 */
export const nodesOfTestFile = () => {
  const db = testDatabase()
  const scope = Effect.runSync(Scope.make())
  const started: Array<Node> = []
  afterAll(async () => {
    for (const node of started) await node.stop()
    for (const node of started) await removeDir(node.dataDir)
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })
  return {
    multiSession: db.multiSession,
    start: async (count: number, env?: Readonly<Record<string, string>>) => {
      const cluster = await startNodes(await Effect.runPromise(Scope.extend(db.freshSchema, scope)), count, env)
      started.push(...cluster.nodes)
      return cluster
    }
  }
}

/** The line a process logs when it takes the lease (Sequencer.ts). */
export const SEQUENCING_LINE = "this process sequences the log"

/** The live node that took the lease (the one whose current process logged it). */
export const leaderOf = (nodes: ReadonlyArray<Node>): Node | undefined =>
  nodes.find((node) => node.child.exitCode === null && node.child.signalCode === null && node.output().includes(SEQUENCING_LINE))

/** The receipt of an acknowledged write, opened with log.vkey: its index and leaf hash. */
export const receiptOf = (result: WriteResult, vkey: string): { readonly index: number; readonly leafHash: Uint8Array } => {
  const key = parseVerifierKey(nodeCrypto.sha256, vkey)!
  const opened = Either.getOrThrow(openNote(decodeU64(result.json!.receipt_note)!, [key], nodeCrypto.ed25519))
  const receipt = parseReceipt(opened.text)
  if (receipt?._tag !== "Receipt") throw new Error(`not an acceptance receipt: ${opened.text}`)
  return { index: receipt.index, leafHash: receipt.leafHash }
}

/**
 * The log verified from a node's tiles (independentVerifier.ts) once its checkpoint covers
 * `size` leaves, waiting up to `timeoutMs` for the publisher.
 */
export const verifiedAtLeast = async (node: RunningServer, vkey: string, size: number, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const verified = await verifyLogFromTiles(node.baseUrl, vkey).catch((error: unknown) => {
      if (Date.now() > deadline) throw error
      return undefined
    })
    if (verified !== undefined && verified.size >= size) return verified
    if (Date.now() > deadline) throw new Error(`${node.baseUrl}: the checkpoint covers ${verified?.size} leaves, not ${size}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** Every acknowledged receipt's leaf, in the verified tiles; each key's seqs in log order. */
export const expectIncludedInOrder = (verified: { readonly tiles: TileHashes }, acknowledged: ReadonlyArray<WriteResult>, vkey: string) => {
  const byIndex = new Map<number, WriteResult>()
  for (const result of acknowledged) {
    const receipt = receiptOf(result, vkey)
    expect(equal(verified.tiles.leafHash(receipt.index), receipt.leafHash), `leaf ${receipt.index}`).toBe(true)
    expect(byIndex.has(receipt.index), `index ${receipt.index} acknowledged twice`).toBe(false)
    byIndex.set(receipt.index, result)
  }
  const lastSeq = new Map<string, number>()
  for (const index of [...byIndex.keys()].sort((x, y) => x - y)) {
    const { write } = byIndex.get(index)!
    const prior = lastSeq.get(write.kid)
    expect(write.seq, `${write.kid} at ${index}`).toBe(prior === undefined ? 0 : prior + 1)
    lastSeq.set(write.kid, write.seq)
  }
}
