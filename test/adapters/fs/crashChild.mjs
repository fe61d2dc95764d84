// The process the crash test kills: it opens an FsLogStore (running recovery), then appends
// batches of random sizes forever, printing "ack <batch> <size>" after each append returns,
// that is, after the batch is durable. It runs the compiled dist/ that `npm test` builds.
//
//   node crashChild.mjs <directory>

import { Effect, Layer } from "effect"
import { nodeCrypto, NodeCryptoLive } from "../../../dist/src/adapters/crypto/nodeCrypto.js"
import { FsLogStoreLive } from "../../../dist/src/adapters/fs/FsLogStore.js"
import { appendLeaf, frontierFromHashes, frontierIndexes } from "../../../dist/src/domain/tlog/frontier.js"
import { makeTreeHasher } from "../../../dist/src/domain/tlog/hasher.js"
import { LogStore } from "../../../dist/src/ports/LogStore.js"
import { crashEntry } from "./crashEntries.mjs"

const directory = process.argv[2]
const hasher = makeTreeHasher(nodeCrypto.sha256)

// Mostly small batches, sometimes one larger than the store's unsynced window (1024).
const batchSize = () => (Math.random() < 0.05 ? 1000 + Math.floor(Math.random() * 600) : 1 + Math.floor(Math.random() * 40))

const program = Effect.gen(function*() {
  const store = yield* LogStore
  let size = yield* store.size
  let frontier = frontierFromHashes(size, yield* store.readHashes(frontierIndexes(size)))
  process.stdout.write(`open ${size}\n`)
  for (let batch = 0; ; batch++) {
    const leaves = []
    const count = batchSize()
    for (let i = 0; i < count; i++) {
      const bytes = crashEntry(size + i)
      const step = appendLeaf(hasher, frontier, hasher.leafHash(bytes))
      frontier = step.frontier
      leaves.push({ bytes, hashes: step.stored })
    }
    // Any fence: the store of one process takes it unchecked (src/ports/LogStore.ts).
    yield* store.append(size, leaves, { epoch: 1 })
    size += count
    // Synchronous for pipes on Linux: once written, the parent will read it even after a kill.
    process.stdout.write(`ack ${batch} ${size}\n`)
  }
})

Effect.runPromise(program.pipe(Effect.provide(FsLogStoreLive(directory).pipe(Layer.provide(NodeCryptoLive))))).catch(
  (error) => {
    process.stderr.write(`crash child failed: ${error?.stack ?? error}\n`)
    process.exit(1)
  }
)
