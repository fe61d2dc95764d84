// Appends synthetic `post` leaves straight to a stopped service's data folder, through the
// real FsLogStore, FsBodyStore and LogWriter, so read-side tests can work on logs of any
// size before the write path exists. Each post is signed by a test key and its body is
// stored, as the sequencer will do.

import { join } from "node:path"
import { Effect, Either, Layer, SubscriptionRef } from "effect"
import { nodeCrypto, NodeCryptoLive } from "../../src/adapters/crypto/nodeCrypto.js"
import { FsBodyStoreLive } from "../../src/adapters/fs/FsBodyStore.js"
import { FsLogStoreLive } from "../../src/adapters/fs/FsLogStore.js"
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

export interface SeededPost {
  readonly index: number
  readonly envelope: Envelope
  readonly body: Uint8Array
}

export const seedPosts = (dataDir: string, origin: string, count: number) =>
  Effect.gen(function*() {
    const writer = yield* LogWriter
    const bodies = yield* BodyStore
    const seed = nodeCrypto.sha256(utf8("aics test poster"))
    const kid = didKeyFromPublicKey(nodeCrypto.ed25519.publicKey(seed))
    const start = yield* SubscriptionRef.get(writer.size)
    const posts: Array<SeededPost> = []
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
      posts.push({ index: start + i, envelope, body })
    }
    yield* bodies.put(posts.map((p) => ({ digest: nodeCrypto.sha256(p.body), bytes: p.body })))
    const entries = posts.map((p) => Either.getOrThrow(entryBytes(p.envelope, p.index, 1_795_000_000_000 + p.index)))
    yield* writer.append(start, entries)
    return posts
  }).pipe(
    Effect.provide(Layer.mergeAll(LogWriter.layer, FsBodyStoreLive(join(dataDir, "bodies"))).pipe(
      Layer.provide(Layer.mergeAll(LogHealth.layer, FsLogStoreLive(join(dataDir, "log")))),
      Layer.provide(NodeCryptoLive)
    )),
    Effect.scoped
  )
