// bench/merkle: the Merkle tree's throughput and latency at 1,000,000 leaves (README.md here).
//
//   npm run bench:merkle [-- leaves]        (or: npm run build && node dist/bench/merkle.js [leaves])
//
// (a) tree building in memory: leaf hash + frontier appendLeaf, the stored hashes kept in one
//     buffer (as the Go reference keeps them in a slice), no I/O; then the hash tiles' data
//     from that buffer (newTiles + tileHashIndexes + encodeHashTile), as Go's ReadTileData.
//     Best of 3 runs, for Go as well.
// (b) durable appends: batches of 1024 entries through the real LogWriter + FsLogStore
//     (leaf hashing, the store's checks, positional writes, fdatasync of the three files).
// (c) publishing: every 65,536 leaves, as the Publisher's publishTo does it: tileContents +
//     newTiles, FsTileSink.writeTiles (fsync per file), rootAt and a signed checkpoint.
// (d) at the final size, through LogReader on the FsLogStore: inclusion and consistency
//     proofs and roots at random sizes, each timed alone (page cache warm), each proof verified.
// When `go` is on the PATH, bench/go/tlogbuild builds the same tree with golang.org/x/mod's
// tlog and the TypeScript/Go ratio for (a) is printed; the issue's target is at most 1.5.
// Everything is written under a temporary folder, removed at the end.

import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { Effect, Layer } from "effect"
import { nodeCrypto, NodeCryptoLive } from "../src/adapters/crypto/nodeCrypto.js"
import { FsLogStoreLive } from "../src/adapters/fs/FsLogStore.js"
import { FsTileSinkLive } from "../src/adapters/fs/FsTileSink.js"
import { MemoryCoordinationLive } from "../src/adapters/memory/MemoryCoordination.js"
import { LogHealth } from "../src/app/LogHealth.js"
import { LogReader } from "../src/app/LogReader.js"
import { LogWriter } from "../src/app/LogWriter.js"
import { tileContents } from "../src/app/tileContents.js"
import { equal, toHex, utf8 } from "../src/domain/bytes.js"
import { formatCheckpoint } from "../src/domain/note/checkpoint.js"
import { signNote } from "../src/domain/note/signedNote.js"
import { verifyConsistency } from "../src/domain/tlog/consistency.js"
import { appendLeaf, emptyFrontier, frontierRoot } from "../src/domain/tlog/frontier.js"
import { HASH_SIZE, makeTreeHasher, type Hash } from "../src/domain/tlog/hasher.js"
import { verifyInclusion } from "../src/domain/tlog/inclusion.js"
import { storedHashCount } from "../src/domain/tlog/storedHash.js"
import { encodeHashTile, newTiles, tileHashIndexes } from "../src/domain/tlog/tiles.js"
import { Coordination } from "../src/ports/Coordination.js"
import { LogStore } from "../src/ports/LogStore.js"
import { TileSink } from "../src/ports/TileSink.js"

const LEAVES = Number(process.argv[2] ?? 1_000_000)
if (!Number.isSafeInteger(LEAVES) || LEAVES < 2) throw new RangeError(`usage: merkle.js [leaves >= 2], not ${process.argv[2]}`)
const BATCH = 1024
const PUBLISH_EVERY = 65_536
const SAMPLES = 2000
const WARMUP = 200
/** The in-memory builds (ours and Go's) are run this many times; the best time counts. */
const ROUNDS = 3
const ORIGIN = "bench.aics.example/log"
const LOG_SEED = nodeCrypto.sha256(utf8("aics bench log key"))

// ---------------------------------------------------------------------------------------
// Entries: {"seq":<i, 10 digits>,"kind":"bench","body":"<157 letters>"}, 200 bytes, the
// same bytes as bench/go/tlogbuild, so both must print the same root.

const ENTRY_SIZE = 200
const SEQ_AT = 7

const entryTemplate = (): Uint8Array => {
  const head = `{"seq":0000000000,"kind":"bench","body":"`
  const tail = `"}`
  let body = ""
  for (let i = 0; body.length < ENTRY_SIZE - head.length - tail.length; i++) body += String.fromCharCode(97 + (i % 26))
  return utf8(head + body + tail)
}
const TEMPLATE = entryTemplate()

const writeSeq = (entry: Uint8Array, i: number): void => {
  for (let d = SEQ_AT + 9; d >= SEQ_AT; d--) {
    entry[d] = 48 + (i % 10)
    i = Math.floor(i / 10)
  }
}

const entryAt = (i: number): Uint8Array => {
  const entry = TEMPLATE.slice()
  writeSeq(entry, i)
  return entry
}

// ---------------------------------------------------------------------------------------
// Figures.

interface Row {
  readonly what: string
  readonly value: string
  readonly note?: string
}
const rows: Array<Row> = []
const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
const perSecond = (what: string, leaves: number, seconds: number, note?: string) =>
  rows.push({ what, value: `${fmt(leaves / seconds)} leaves/s`, note: `${fmt(seconds, 3)} s${note ? `; ${note}` : ""}` })

const quantile = (sorted: ReadonlyArray<number>, q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
const latency = (what: string, millis: ReadonlyArray<number>, note?: string) => {
  const sorted = [...millis].sort((a, b) => a - b)
  const us = (ms: number) => `${fmt(ms * 1000, 0)} µs`
  rows.push({
    what,
    value: `p50 ${us(quantile(sorted, 0.5))}  p99 ${us(quantile(sorted, 0.99))}`,
    note: `max ${us(sorted[sorted.length - 1]!)}, n=${sorted.length}${note ? `; ${note}` : ""}`
  })
}

/** Deterministic pseudo-random integers in [lo, hi) (mulberry32), so runs are comparable. */
const makeRandom = (seed: number) => (lo: number, hi: number): number => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  const u = ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  return lo + Math.floor(u * (hi - lo))
}

const elapsed = (since: number) => (performance.now() - since) / 1000

// ---------------------------------------------------------------------------------------
// (a) Tree building in memory, then hash tiles' data in memory.

const buildInMemory = () => {
  const hasher = makeTreeHasher(nodeCrypto.sha256)
  const stored = new Uint8Array(storedHashCount(LEAVES) * HASH_SIZE)
  const entry = TEMPLATE.slice()
  let treeSeconds = Infinity
  let root: Hash = hasher.emptyRoot
  for (let round = 0; round < ROUNDS; round++) {
    let frontier = emptyFrontier
    let at = 0
    const started = performance.now()
    for (let i = 0; i < LEAVES; i++) {
      writeSeq(entry, i)
      const step = appendLeaf(hasher, frontier, hasher.leafHash(entry))
      frontier = step.frontier
      for (const hash of step.stored) {
        stored.set(hash, at)
        at += HASH_SIZE
      }
    }
    treeSeconds = Math.min(treeSeconds, elapsed(started))
    root = frontierRoot(hasher, frontier)
  }

  let tileSeconds = Infinity
  let tiles = 0
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now()
    tiles = 0
    for (let from = 0; from < LEAVES; from = Math.min(LEAVES, from + PUBLISH_EVERY)) {
      for (const tile of newTiles(from, Math.min(LEAVES, from + PUBLISH_EVERY))) {
        if (tile.kind !== "hash") continue
        const hashes = tileHashIndexes(tile).map((i) => stored.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE))
        encodeHashTile(tile, hashes)
        tiles++
      }
    }
    tileSeconds = Math.min(tileSeconds, elapsed(started))
  }
  return { treeSeconds, root, tiles, tileSeconds }
}

// ---------------------------------------------------------------------------------------
// Go reference (bench/go/tlogbuild), when `go` and golang.org/x/mod are installed.

interface GoResult {
  readonly treeSeconds: number
  readonly tileSeconds: number
  readonly tiles: number
  readonly root: string
  readonly goVersion: string
}

const runGo = (dir: string): GoResult | string => {
  const version = spawnSync("go", ["version"], { encoding: "utf8" })
  if (version.error !== undefined || version.status !== 0) return "`go` is not on the PATH"
  const source = resolve(dirname(fileURLToPath(import.meta.url)), "../../bench/go/tlogbuild")
  if (!existsSync(join(source, "main.go"))) return `no Go source at ${source}`
  // GOPATH mode against Debian's golang-golang-x-mod-dev (/usr/share/gocode) or the caller's GOPATH.
  const gopath = [process.env["GOPATH"], "/usr/share/gocode"].filter((p) => p !== undefined && p !== "").join(":")
  const env = { ...process.env, GO111MODULE: "off", GOPATH: gopath, GOFLAGS: "" }
  const binary = join(dir, "tlogbuild")
  const build = spawnSync("go", ["build", "-o", binary, "."], { cwd: source, env, encoding: "utf8" })
  if (build.status !== 0) return `go build failed (is golang.org/x/mod in GOPATH=${gopath}?): ${build.stderr.trim()}`
  let best: GoResult | undefined
  for (let round = 0; round < ROUNDS; round++) {
    const run = spawnSync(binary, [String(LEAVES), String(PUBLISH_EVERY)], { encoding: "utf8" })
    const line = run.stdout?.split("\n").find((l) => l.startsWith("RESULT "))
    if (run.status !== 0 || line === undefined) return `the Go benchmark failed: ${run.stderr}`
    const result = JSON.parse(line.slice("RESULT ".length)) as GoResult
    best = best === undefined ? result : {
      ...best,
      treeSeconds: Math.min(best.treeSeconds, result.treeSeconds),
      tileSeconds: Math.min(best.tileSeconds, result.tileSeconds)
    }
  }
  return best!
}

// ---------------------------------------------------------------------------------------
// (b), (c), (d) through the application's services on a temporary folder.

const onDisk = (expectedRoot: Hash) =>
  Effect.gen(function*() {
    const writer = yield* LogWriter
    const reader = yield* LogReader
    const store = yield* LogStore
    const sink = yield* TileSink
    const hasher = reader.hasher
    // The one process's lease, as the sequencer takes it (FsLogStore takes its fence unchecked).
    const { fence } = yield* (yield* Coordination).lease()

    // (b) Durable appends, batch after batch; only the append calls are timed.
    const batchMillis: Array<number> = []
    for (let start = 0; start < LEAVES; start += BATCH) {
      const entries: Array<Uint8Array> = []
      for (let i = start; i < Math.min(LEAVES, start + BATCH); i++) entries.push(entryAt(i))
      const t = performance.now()
      yield* writer.append(start, entries, fence)
      batchMillis.push(performance.now() - t)
    }
    const appendSeconds = batchMillis.reduce((a, b) => a + b, 0) / 1000
    perSecond("(b) durable append (LogWriter + FsLogStore)", LEAVES, appendSeconds, `batches of ${BATCH}, fdatasync each`)
    latency("    append latency per batch", batchMillis)
    const { root } = yield* writer.root
    if (!equal(root, expectedRoot)) throw new Error("the log's root differs from the in-memory tree's")

    // (c) Publishing, as Publisher.publishTo: tiles, then root, signed checkpoint.
    let contentSeconds = 0
    let writeSeconds = 0
    let checkpointSeconds = 0
    let tileCount = 0
    let tileBytes = 0
    for (let from = 0; from < LEAVES;) {
      const to = Math.min(LEAVES, from + PUBLISH_EVERY)
      let t = performance.now()
      const tiles = yield* tileContents(store, newTiles(from, to))
      contentSeconds += elapsed(t)
      t = performance.now()
      yield* sink.writeTiles(tiles)
      writeSeconds += elapsed(t)
      t = performance.now()
      const rootHash = yield* reader.rootAt(to)
      const note = signNote(formatCheckpoint({ origin: ORIGIN, size: to, rootHash }), ORIGIN, LOG_SEED, nodeCrypto)
      if (note._tag === "Left") throw note.left
      yield* sink.writeCheckpoint(utf8(note.right))
      checkpointSeconds += elapsed(t)
      tileCount += tiles.length
      for (const tile of tiles) tileBytes += tile.bytes.length
      from = to
    }
    const publishSeconds = contentSeconds + writeSeconds + checkpointSeconds
    perSecond("(c) publish tiles (tileContents + FsTileSink)", LEAVES, publishSeconds,
      `every ${fmt(PUBLISH_EVERY)} leaves: ${fmt(tileCount)} files, ${fmt(tileBytes / 2 ** 20, 1)} MiB`)
    perSecond("    of which tileContents (read + encode)", LEAVES, contentSeconds)
    perSecond("    of which writeTiles (temp, fsync, rename)", LEAVES, writeSeconds)
    rows.push({ what: "    of which rootAt + sign + checkpoint", value: `${fmt(checkpointSeconds * 1000, 1)} ms`, note: "total" })

    // (d) Proofs and roots at the final size.
    const random = makeRandom(1)
    const timed = <A, E>(samples: Array<number>, effect: Effect.Effect<A, E>) =>
      Effect.gen(function*() {
        const t = performance.now()
        const a = yield* effect
        samples.push(performance.now() - t)
        return a
      })
    const warm: Array<number> = []
    for (let i = 0; i < WARMUP; i++) {
      yield* timed(warm, reader.inclusionProof(random(0, LEAVES), LEAVES))
      yield* timed(warm, reader.consistencyProof(random(1, LEAVES), LEAVES))
      yield* timed(warm, reader.rootAt(random(1, LEAVES + 1)))
    }

    const inclusion: Array<number> = []
    for (let i = 0; i < SAMPLES; i++) {
      const index = random(0, LEAVES)
      const proof = yield* timed(inclusion, reader.inclusionProof(index, LEAVES))
      if (!verifyInclusion(hasher, index, LEAVES, hasher.leafHash(entryAt(index)), proof, root)) {
        throw new Error(`inclusion proof of ${index} does not verify`)
      }
    }
    latency(`(d) inclusion proof at ${fmt(LEAVES)} (LogReader)`, inclusion, "random leaf")

    const consistency: Array<number> = []
    for (let i = 0; i < SAMPLES; i++) {
      const m = random(1, LEAVES)
      const proof = yield* timed(consistency, reader.consistencyProof(m, LEAVES))
      if (!verifyConsistency(hasher, m, LEAVES, yield* reader.rootAt(m), root, proof)) {
        throw new Error(`consistency proof from ${m} does not verify`)
      }
    }
    latency(`(d) consistency proof m -> ${fmt(LEAVES)}`, consistency, "random m")

    const roots: Array<number> = []
    for (let i = 0; i < SAMPLES; i++) yield* timed(roots, reader.rootAt(random(1, LEAVES + 1)))
    latency("(d) rootAt(random size) (LogReader)", roots)
    const fullRoots: Array<number> = []
    for (let i = 0; i < SAMPLES; i++) {
      const r = yield* timed(fullRoots, reader.rootAt(LEAVES))
      if (!equal(r, root)) throw new Error("rootAt disagrees with the writer's root")
    }
    latency(`(d) rootAt(${fmt(LEAVES)})`, fullRoots)
    const frontierRoots: Array<number> = []
    for (let i = 0; i < SAMPLES; i++) yield* timed(frontierRoots, writer.root)
    latency("(d) LogWriter.root (frontier, no I/O)", frontierRoots)
  })

const appLayer = (dir: string) =>
  Layer.mergeAll(LogWriter.layer, LogReader.layer).pipe(
    Layer.provideMerge(Layer.mergeAll(LogHealth.layer, FsLogStoreLive(join(dir, "log")), FsTileSinkLive(join(dir, "tiles")), MemoryCoordinationLive())),
    Layer.provideMerge(NodeCryptoLive)
  )

// ---------------------------------------------------------------------------------------

const main = async () => {
  const dir = await mkdtemp(join(tmpdir(), "aics-bench-merkle-"))
  try {
    console.log(`bench/merkle: ${fmt(LEAVES)} leaves of ${ENTRY_SIZE} bytes, node ${process.version}, folder ${dir}`)
    const memory = buildInMemory()
    perSecond("(a) tree build in memory (leafHash + appendLeaf)", LEAVES, memory.treeSeconds, `best of ${ROUNDS}`)
    perSecond("(a) hash tile data in memory (newTiles + encodeHashTile)", LEAVES, memory.tileSeconds,
      `${fmt(memory.tiles)} tiles, every ${fmt(PUBLISH_EVERY)} leaves`)

    const go = runGo(dir)
    let comparison: string
    if (typeof go === "string") {
      comparison = `Go comparison skipped: ${go}`
    } else {
      if (go.root !== toHex(memory.root)) throw new Error(`Go's root ${go.root} differs from ${toHex(memory.root)}`)
      perSecond(`    Go ${go.goVersion} tlog.StoredHashes`, LEAVES, go.treeSeconds)
      perSecond("    Go tlog.NewTiles + ReadTileData", LEAVES, go.tileSeconds, `${fmt(go.tiles)} tiles`)
      const ratio = memory.treeSeconds / go.treeSeconds
      comparison = `tree build TypeScript/Go time ratio: ${fmt(ratio, 2)} (target <= 1.5: ${ratio <= 1.5 ? "met" : "NOT met"}); same root`
    }

    await Effect.runPromise(Effect.scoped(Effect.provide(onDisk(memory.root), appLayer(dir))))

    const width = Math.max(...rows.map((r) => r.what.length))
    const valueWidth = Math.max(...rows.map((r) => r.value.length))
    console.log("")
    for (const row of rows) console.log(`${row.what.padEnd(width)}  ${row.value.padStart(valueWidth)}  ${row.note ?? ""}`)
    console.log("")
    console.log(comparison)
    console.log(`root ${toHex(memory.root)}`)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

await main()
