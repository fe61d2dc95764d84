// docs/spec/profile.md section 4: receipt and refusal notes, signed by the log key, reproduced byte
// for byte from the vectors.

import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { nobleCrypto } from "../../../src/adapters/crypto/nobleCrypto.js"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { fromHex, utf8 } from "../../../src/domain/bytes.js"
import { decodeB64, encodeB64, encodeU64 } from "../../../src/domain/encoding.js"
import { envelopeHash } from "../../../src/domain/envelope/hash.js"
import { formatReceipt, formatRefusal, parseReceipt } from "../../../src/domain/note/receipt.js"
import { openNote, signNote } from "../../../src/domain/note/signedNote.js"
import { parseVerifierKey } from "../../../src/domain/note/verifierKey.js"
import { profileVectors as v } from "../profileVectors.js"

const seed = fromHex(v.log_key.seed_hex)!

describe.each([
  ["node:crypto", nodeCrypto],
  ["@noble", nobleCrypto]
])("the vectors' receipts (%s)", (_, crypto) => {
  const vkey = parseVerifierKey(crypto.sha256, v.log_key.vkey)!

  it("accepted: text, note and receipt_note are reproduced, and the note opens", () => {
    const text = formatReceipt({
      origin: v.origin,
      index: 2,
      leafHash: decodeB64(v.leaf.leaf_hash_b64)!,
      logged: 1795000060123
    })
    expect(text).toBe(v.receipt.text)
    const note = Either.getOrThrow(signNote(text, v.origin, seed, crypto))
    expect(note).toBe(v.receipt.note)
    expect(encodeU64(utf8(note))).toBe(v.receipt.receipt_note_u64)

    const opened = Either.getOrThrow(openNote(utf8(note), [vkey], crypto.ed25519))
    expect(parseReceipt(opened.text)).toEqual({
      _tag: "Receipt",
      origin: v.origin,
      index: 2,
      leafHash: decodeB64(v.leaf.leaf_hash_b64),
      logged: 1795000060123
    })
  })

  it("refused: names the SHA-256 of JCS(envelope 1), and is reproduced", () => {
    const hash = Either.getOrThrow(envelopeHash(crypto.sha256, v.envelopes[1]!.envelope))
    const text = formatRefusal({ origin: v.origin, code: "nonce_reused", envelopeHash: hash, at: 1795000061000 })
    expect(text).toBe(v.refusal.text)
    const note = Either.getOrThrow(signNote(text, v.origin, seed, crypto))
    expect(note).toBe(v.refusal.note)

    const opened = Either.getOrThrow(openNote(utf8(note), [vkey], crypto.ed25519))
    expect(parseReceipt(opened.text)).toEqual({
      _tag: "Refusal",
      origin: v.origin,
      code: "nonce_reused",
      envelopeHash: hash,
      at: 1795000061000
    })
  })

  it("a tampered receipt does not open", () => {
    const tampered = v.receipt.note.replace("receipt 2", "receipt 3")
    expect(Either.isLeft(openNote(utf8(tampered), [vkey], crypto.ed25519))).toBe(true)
  })
})

describe("parseReceipt", () => {
  const leaf = v.leaf.leaf_hash_b64
  it("refuses anything but the four lines", () => {
    const bad = [
      "",
      v.receipt.text.slice(0, -1), // no final newline
      v.receipt.text + "extra\n",
      v.receipt.text.replace("example.test/aics\n", "\n"), // empty origin
      v.receipt.text.replace("receipt 2", "receipt 02"),
      v.receipt.text.replace("receipt 2", "receipt -2"),
      v.receipt.text.replace("receipt 2", "receipt  2"),
      v.receipt.text.replace("receipt 2", "Receipt 2"),
      v.receipt.text.replace("receipt 2", "receipt"),
      v.receipt.text.replace(`leaf ${leaf}`, `leaf ${leaf.slice(0, -1)}`),
      v.receipt.text.replace(`leaf ${leaf}`, `leaf ${encodeB64(new Uint8Array(31))}`),
      v.receipt.text.replace(`leaf ${leaf}`, `envelope ${leaf}`),
      v.receipt.text.replace("logged 1795000060123", "at 1795000060123"),
      v.receipt.text.replace("logged 1795000060123", "logged 1795000060123.0"),
      v.refusal.text.replace("refusal nonce_reused", "refusal "),
      v.refusal.text.replace("refusal nonce_reused", "refusal nonce reused"),
      v.refusal.text.replace("refusal nonce_reused", "refusal Nonce_reused"),
      v.refusal.text.replace("envelope ", "leaf "),
      v.refusal.text.replace("at 1795000061000", "logged 1795000061000"),
      v.refusal.text.replace("at 1795000061000", "at 9007199254740992")
    ]
    for (const text of bad) expect(parseReceipt(text), JSON.stringify(text)).toBeUndefined()
  })

  it("inverts formatReceipt and formatRefusal", () => {
    const hash = fc.uint8Array({ minLength: 32, maxLength: 32 })
    const origin = fc.string({ minLength: 1 }).filter((s) => !s.includes("\n"))
    fc.assert(
      fc.property(origin, fc.maxSafeNat(), hash, fc.maxSafeNat(), (o, index, leafHash, logged) => {
        expect(parseReceipt(formatReceipt({ origin: o, index, leafHash, logged }))).toEqual({
          _tag: "Receipt",
          origin: o,
          index,
          leafHash,
          logged
        })
      })
    )
    fc.assert(
      fc.property(origin, fc.stringMatching(/^[a-z][a-z0-9_]{0,30}$/), hash, fc.maxSafeNat(), (o, code, envelopeHash, at) => {
        expect(parseReceipt(formatRefusal({ origin: o, code, envelopeHash, at }))).toEqual({
          _tag: "Refusal",
          origin: o,
          code,
          envelopeHash,
          at
        })
      })
    )
  })
})
