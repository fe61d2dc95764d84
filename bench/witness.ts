// bench/witness: the service as a C2SP tlog-witness (README.md here, "bench/witness.ts").
//
//   npm run build && node dist/bench/witness.js [requests]
//
// (a) in process, no I/O: one add-checkpoint decision (parse, log signature, consistency
//     proof) and one cosignature (Ed25519 over cosignature/v1), per request;
// (b) through the real server (dist/src/main.js, filesystem storage): sequential
//     POST /add-checkpoint requests, each extending the last by 1 to 16 leaves, each
//     answered only once the witness state file is replaced and fsynced.
// A log of 4096 leaves is built in memory and signed with a bench key.

import { spawn } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { Either } from "effect"
import { nodeCrypto } from "../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../src/domain/bytes.js"
import { formatCheckpoint } from "../src/domain/note/checkpoint.js"
import { cosign } from "../src/domain/note/cosignature.js"
import { signNote } from "../src/domain/note/signedNote.js"
import { formatVerifierKey, makeVerifierKey } from "../src/domain/note/verifierKey.js"
import { consistencyProofFromHashes, consistencyProofIndexes } from "../src/domain/tlog/consistency.js"
import { appendLeaf, emptyFrontier } from "../src/domain/tlog/frontier.js"
import { makeTreeHasher, type Hash } from "../src/domain/tlog/hasher.js"
import { treeHashFromHashes, treeHashIndexes } from "../src/domain/tlog/treeHash.js"
import { decideAddCheckpoint, formatAddCheckpointRequest, parseAddCheckpointRequest } from "../src/domain/witness/addCheckpoint.js"
import { serviceProcessEnv } from "./serverProcess.js"

const requests = Number(process.argv[2] ?? 400)
const ORIGIN = "bench.example/log"
const hasher = makeTreeHasher(nodeCrypto.sha256)
const seed = nodeCrypto.sha256(utf8("bench log key"))
const witnessSeed = nodeCrypto.sha256(utf8("bench witness key"))
const logKey = makeVerifierKey(nodeCrypto.sha256, ORIGIN, nodeCrypto.ed25519.publicKey(seed))

// The log: stored hashes of 4096 leaves, as the sequencer keeps them.
const stored: Array<Hash> = []
let frontier = emptyFrontier
for (let i = 0; i < 4096; i++) {
  const appended = appendLeaf(hasher, frontier, hasher.leafHash(utf8(`bench entry ${i}`)))
  frontier = appended.frontier
  stored.push(...appended.stored)
}
const read = (indexes: ReadonlyArray<number>) => indexes.map((i) => stored[i]!)
const root = (n: number) => treeHashFromHashes(hasher, n, read(treeHashIndexes(n)))
const note = (n: number) => utf8(Either.getOrThrow(signNote(formatCheckpoint({ origin: ORIGIN, size: n, rootHash: root(n) }), ORIGIN, seed, nodeCrypto)))

// The sizes submitted: growing by 1 to 16 leaves each time.
const sizes: Array<number> = [1]
while (sizes.length <= requests) sizes.push(Math.min(4096, sizes[sizes.length - 1]! + 1 + (sizes.length * 7) % 16))
const bodies = sizes.slice(1).map((n, i) => {
  const old = sizes[i]!
  return formatAddCheckpointRequest(old, consistencyProofFromHashes(hasher, old, n, read(consistencyProofIndexes(old, n))), note(n))
})
const first = formatAddCheckpointRequest(0, [], note(1))

const stats = (ms: Array<number>) => {
  const sorted = [...ms].sort((a, b) => a - b)
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!.toFixed(3)
  return `p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`
}

// (a) In process.
{
  const logs = [{ origin: ORIGIN, key: logKey }]
  let state = { size: 1, rootHash: root(1) }
  const times: Array<number> = []
  const start = performance.now()
  for (const body of bodies) {
    const t = performance.now()
    const outcome = decideAddCheckpoint(Either.getOrThrow(parseAddCheckpointRequest(body)), logs, () => state, hasher, nodeCrypto.ed25519)
    if (outcome._tag !== "Cosign") throw new Error(`refused: ${outcome.reason}`)
    cosign(outcome.text, "bench.example/witness", witnessSeed, 1_800_000_000, nodeCrypto)
    state = { size: outcome.checkpoint.size, rootHash: outcome.checkpoint.rootHash }
    times.push(performance.now() - t)
  }
  const seconds = (performance.now() - start) / 1000
  console.log(`(a) in process: ${bodies.length} decisions + cosignatures, ${(bodies.length / seconds).toFixed(0)}/s, ${stats(times)}`)
}

// (b) Through the server.
const freePort = () => new Promise<number>((resolve) => {
  const s = createServer()
  s.listen(0, "127.0.0.1", () => {
    const address = s.address()
    s.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
  })
})
const dir = await mkdtemp(join(tmpdir(), "aics-bench-witness-"))
const port = await freePort()
const child = spawn(process.execPath, ["dist/src/main.js"], {
  env: { ...serviceProcessEnv(), AICS_DATA_DIR: dir, AICS_PORT: String(port), AICS_WITNESS_LOGS: formatVerifierKey(logKey) },
  stdio: ["ignore", "pipe", "pipe"]
})
try {
  await new Promise<void>((resolve, reject) => {
    let output = ""
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes("Listening on")) resolve()
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.once("exit", () => reject(new Error(output)))
  })
  const post = async (body: Uint8Array) => {
    const response = await fetch(`http://127.0.0.1:${port}/add-checkpoint`, { method: "POST", body })
    const text = await response.text()
    if (response.status !== 200) throw new Error(`${response.status}: ${text}`)
  }
  await post(first)
  const times: Array<number> = []
  const start = performance.now()
  for (const body of bodies) {
    const t = performance.now()
    await post(body)
    times.push(performance.now() - t)
  }
  const seconds = (performance.now() - start) / 1000
  console.log(`(b) server, fsync per cosignature: ${bodies.length} sequential add-checkpoints, ${(bodies.length / seconds).toFixed(0)}/s, ${stats(times)}`)
} finally {
  child.kill("SIGTERM")
  await new Promise((resolve) => child.once("exit", resolve))
  await rm(dir, { recursive: true, force: true })
}
