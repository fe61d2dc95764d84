// docs/spec/profile.md section 4: the entry bytes and RFC 6962 leaf hash of an envelope at an index.

import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { nobleCrypto } from "../../../src/adapters/crypto/nobleCrypto.js"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { fromUtf8 } from "../../../src/domain/bytes.js"
import { encodeB64, encodeU64 } from "../../../src/domain/encoding.js"
import { entryBytes, MAX_ENTRY_BYTES } from "../../../src/domain/envelope/leaf.js"
import { makeTreeHasher } from "../../../src/domain/tlog/hasher.js"
import { profileVectors as v } from "../profileVectors.js"

describe.each([
  ["node:crypto", nodeCrypto],
  ["@noble", nobleCrypto]
])("entry bytes (%s)", (_, crypto) => {
  it("of envelope 1 at index 2, logged 1795000060123, and its leaf hash", () => {
    const bytes = Either.getOrThrow(entryBytes(v.envelopes[1]!.envelope, 2, 1795000060123))
    expect(fromUtf8(bytes)).toBe(v.leaf.entry_bytes)
    const leafHash = makeTreeHasher(crypto.sha256).leafHash(bytes)
    expect(encodeB64(leafHash)).toBe(v.leaf.leaf_hash_b64)
    expect(encodeU64(leafHash)).toBe(v.leaf.leaf_hash_u64)
  })
})

describe("entryBytes", () => {
  const e = v.envelopes[1]!.envelope
  const base = Either.getOrThrow(entryBytes(e, 2, 1795000060123)).length

  it("accepts up to 65,535 bytes and refuses one more", () => {
    const padTo = (size: number) => ({ ...e, payload: { ...e.payload, pad: "x".repeat(size - base - ',"pad":""'.length) } })
    const atLimit = entryBytes(padTo(MAX_ENTRY_BYTES), 2, 1795000060123)
    expect(Either.isRight(atLimit) && atLimit.right.length).toBe(MAX_ENTRY_BYTES)
    const over = entryBytes(padTo(MAX_ENTRY_BYTES + 1), 2, 1795000060123)
    expect(Either.isLeft(over) && over.left).toMatchObject({ _tag: "EntryTooLarge", size: MAX_ENTRY_BYTES + 1 })
  })

  it("binds index and time: another position is another leaf", () => {
    const a = Either.getOrThrow(entryBytes(e, 2, 1795000060123))
    expect(Either.getOrThrow(entryBytes(e, 3, 1795000060123))).not.toEqual(a)
    expect(Either.getOrThrow(entryBytes(e, 2, 1795000060124))).not.toEqual(a)
  })
})
