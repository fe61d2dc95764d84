// What the receipt route signs (src/app/ReissuedReceipts.ts): only a leaf whose bytes, read
// back, hash to the leaf hash the tree holds, and nothing while the log is found diverged
// from its published tiles. The stores are stand-ins that answer what a damaged disk would.

import { describe, expect, it } from "vitest"
import { Effect, Either, Layer } from "effect"
import { nodeCrypto, NodeCryptoLive } from "../../src/adapters/crypto/nodeCrypto.js"
import { LogStatus } from "../../src/app/LogStatus.js"
import { reissuedReceipts } from "../../src/app/ReissuedReceipts.js"
import { WriteAnswers } from "../../src/app/WriteAnswers.js"
import { utf8 } from "../../src/domain/bytes.js"
import { makeTreeHasher } from "../../src/domain/tlog/hasher.js"
import { storedHashIndex } from "../../src/domain/tlog/storedHash.js"
import { LogStore } from "../../src/ports/LogStore.js"

const hasher = makeTreeHasher(nodeCrypto.sha256)
const leaf = utf8(JSON.stringify({ envelope: { type: "post", kid: "did:key:z6Mk", seq: 0 }, index: 1, logged: 1_800_000_000_000 }))
const damaged = utf8(JSON.stringify({ envelope: { type: "post", kid: "did:key:z6Mk", seq: 0 }, index: 1, logged: 1_800_000_000_001 }))

/** Re-issues leaf `index` of a log of 2 leaves whose leaf 1 reads as `bytes` and whose tree holds `leaf`'s hash. */
const reissue = (index: number, bytes: Uint8Array, diverged?: string) => {
  const signed: Array<number> = []
  const asked: Array<ReadonlyArray<number>> = []
  const services = Layer.mergeAll(
    NodeCryptoLive,
    // Only the members the route reads of the log's state.
    Layer.succeed(LogStatus, { current: Effect.succeed({ size: 2, diverged }) } as unknown as LogStatus["Type"]),
    Layer.succeed(LogStore, {
      readEntryAndHashes: (_index: number, hashes: ReadonlyArray<number>) => {
        asked.push(hashes)
        return Effect.succeed({ entry: bytes, hashes: [hasher.leafHash(leaf)] })
      }
    } as unknown as LogStore["Type"]),
    Layer.succeed(WriteAnswers, {
      reissued: (i: number) => Effect.sync(() => {
        signed.push(i)
        return { entry: { index: i }, receipt_note: "signed" }
      })
    } as unknown as WriteAnswers["Type"])
  )
  const result = Effect.runSync(Effect.either(Effect.flatMap(reissuedReceipts, (receiptOf) => receiptOf(index))).pipe(Effect.provide(services)))
  return { result, signed, asked }
}

describe("re-issued receipts", () => {
  it("sign a leaf whose bytes hash to the tree's leaf hash, read in the same read as the leaf", () => {
    const { result, signed, asked } = reissue(1, leaf)
    expect(Either.getOrThrow(result)).toMatchObject({ _tag: "Reissued" })
    expect(signed).toEqual([1])
    expect(asked).toEqual([[storedHashIndex(0, 1)]])
  })

  it("sign nothing for a leaf whose bytes no longer hash to it (a damaged file that still parses)", () => {
    const { result, signed } = reissue(1, damaged)
    expect(Either.isLeft(result) && result.left._tag).toBe("StorageError")
    expect(Either.isLeft(result) && result.left.detail).toMatch(/leaf 1 does not match the tree's leaf hash/)
    expect(signed).toEqual([])
  })

  it("sign nothing while the log is found diverged from its published tiles", () => {
    const { result, signed } = reissue(1, leaf, "the tiles disagree")
    expect(Either.isLeft(result) && result.left.detail).toMatch(/diverged/)
    expect(signed).toEqual([])
  })

  it("answer an index past the log as not in it, reading nothing", () => {
    const { result, signed, asked } = reissue(2, leaf)
    expect(Either.getOrThrow(result)).toEqual({ _tag: "NotInLog", size: 2 })
    expect(signed).toEqual([])
    expect(asked).toEqual([])
  })
})
