// Appends synthetic leaves straight to a stopped service's stores (its data folder, through
// the real FsLogStore and FsBodyStore, or its database), with the real LogWriter: read-side
// tests work on logs of any size, and tests of time (retention) on leaves logged at a time
// the running service's clock would not give. Each leaf's body is stored first, as the
// sequencer does, and the leaves are appended under the sequencing lease of the stores'
// deployment, with its fence (src/ports/LogStore.ts), as every writer of the log.

import { join } from "node:path"
import { Effect, Either, Layer, SubscriptionRef } from "effect"
import { nodeCrypto, NodeCryptoLive } from "../../src/adapters/crypto/nodeCrypto.js"
import { FsBodyStoreLive } from "../../src/adapters/fs/FsBodyStore.js"
import { FsLogStoreLive } from "../../src/adapters/fs/FsLogStore.js"
import { MemoryCoordinationLive } from "../../src/adapters/memory/MemoryCoordination.js"
import { LogHealth } from "../../src/app/LogHealth.js"
import { LogWriter } from "../../src/app/LogWriter.js"
import { utf8 } from "../../src/domain/bytes.js"
import { encodeU64 } from "../../src/domain/encoding.js"
import type { Envelope, UnsignedEnvelope } from "../../src/domain/envelope/envelope.js"
import { prevOf } from "../../src/domain/envelope/hash.js"
import { entryBytes } from "../../src/domain/envelope/leaf.js"
import { signEnvelope } from "../../src/domain/envelope/signature.js"
import { didKeyFromPublicKey } from "../../src/domain/identity/didKey.js"
import { BodyStore } from "../../src/ports/BodyStore.js"
import { Coordination } from "../../src/ports/Coordination.js"
import type { Crypto } from "../../src/ports/Crypto.js"
import type { LogStore } from "../../src/ports/LogStore.js"

export interface SeededPost {
  readonly index: number
  readonly envelope: Envelope
  readonly body: Uint8Array
}

/** A leaf to append: its envelope, the body it names (or null), and its logged time (Unix ms). */
export interface SeedLeaf {
  readonly envelope: Envelope
  readonly body: Uint8Array | null
  readonly logged: number
}

/**
 * Appends leaves, in order, after the last one of a stopped service's `storage` (its log and
 * body stores): those `leavesFrom` gives for the index of the first. Answers that index.
 */
export const seedLeavesInto = <E>(
  storage: Layer.Layer<LogStore | BodyStore | Coordination, E, Crypto>,
  leavesFrom: (start: number) => ReadonlyArray<SeedLeaf>
) =>
  Effect.gen(function*() {
    const { fence } = yield* (yield* Coordination).lease()
    const writer = yield* LogWriter
    const bodies = yield* BodyStore
    const start = yield* SubscriptionRef.get(writer.size)
    const leaves = leavesFrom(start)
    yield* bodies.put(leaves.flatMap((leaf) => leaf.body === null ? [] : [{ digest: nodeCrypto.sha256(leaf.body), bytes: leaf.body }]))
    yield* writer.append(start, leaves.map((leaf, i) => Either.getOrThrow(entryBytes(leaf.envelope, start + i, leaf.logged))), fence)
    return start
  }).pipe(
    Effect.provide(LogWriter.layer.pipe(Layer.provideMerge(Layer.mergeAll(LogHealth.layer, storage)), Layer.provide(NodeCryptoLive))),
    Effect.scoped
  )

/** The log and body stores of a service's data folder, on the filesystem, and its one process's coordination. */
export const fsStorage = (dataDir: string) =>
  Layer.mergeAll(FsLogStoreLive(join(dataDir, "log")), FsBodyStoreLive(join(dataDir, "bodies")), MemoryCoordinationLive())

/** seedLeavesInto the filesystem stores of the service in `dataDir`. */
export const seedLeaves = (dataDir: string, leavesFrom: (start: number) => ReadonlyArray<SeedLeaf>) =>
  seedLeavesInto(fsStorage(dataDir), leavesFrom)

export const seedPosts = (dataDir: string, origin: string, count: number) =>
  Effect.gen(function*() {
    const seed = nodeCrypto.sha256(utf8("aics test poster"))
    const kid = didKeyFromPublicKey(nodeCrypto.ed25519.publicKey(seed))
    const posts: Array<Omit<SeededPost, "index">> = []
    let prev: string | null = null
    for (let i = 0; i < count; i++) {
      const body = utf8(`post number ${i} of a seeded log`)
      const unsigned: UnsignedEnvelope = {
        v: "AICS-1", origin, type: "post", kid, seq: i, prev,
        nonce: encodeU64(nodeCrypto.sha256(utf8(`nonce ${i}`)).slice(0, 16)),
        created: 1_795_000_000 + i, expires: 1_795_000_300 + i,
        payload: { channel: "general", body_hash: encodeU64(nodeCrypto.sha256(body)), size: body.length }
      }
      const envelope: Envelope = Either.getOrThrow(signEnvelope(unsigned, seed, nodeCrypto.ed25519))
      prev = Either.getOrThrow(prevOf(nodeCrypto.sha256, envelope))
      posts.push({ envelope, body })
    }
    const start = yield* seedLeaves(dataDir, (first) => posts.map((p, i) => ({ ...p, logged: 1_795_000_000_000 + first + i })))
    return posts.map((p, i): SeededPost => ({ ...p, index: start + i }))
  })
