// C2SP signed-note: formatting, signing and opening, against Go's own example
// (golang.org/x/mod/sumdb/note) and against every way a note can be wrong.

import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { nobleCrypto } from "../../../src/adapters/crypto/nobleCrypto.js"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { concat, fromHex, utf8 } from "../../../src/domain/bytes.js"
import { decodeB64, encodeB64 } from "../../../src/domain/encoding.js"
import {
  formatNote,
  MAX_SIGNATURES,
  type NoteError,
  openNote,
  signatureLine,
  signNote
} from "../../../src/domain/note/signedNote.js"
import { makeVerifierKey, parseVerifierKey, type VerifierKey } from "../../../src/domain/note/verifierKey.js"

const crypto = nodeCrypto
const { sha256, ed25519 } = crypto

// The example in the package documentation of golang.org/x/mod/sumdb/note.
const goSeed = decodeB64("AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz")!.subarray(1)
const goKey = parseVerifierKey(sha256, "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW")!
const goText = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n"
const goLine = "— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"
const enochLine = "— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n"
const goNote = goText + "\n" + goLine

const otherSeed = fromHex("11".repeat(32))!
const otherKey = makeVerifierKey(sha256, "other.example/log", ed25519.publicKey(otherSeed))

const sign = (text: string, name: string, seed: Uint8Array) => Either.getOrThrow(signNote(text, name, seed, crypto))
const open = (note: string | Uint8Array, keys: ReadonlyArray<VerifierKey> = [goKey]) =>
  openNote(typeof note === "string" ? utf8(note) : note, keys, ed25519)
const errorOf = (result: Either.Either<unknown, NoteError>): NoteError => {
  if (Either.isRight(result)) throw new Error("expected the note to be refused")
  return result.left
}
const tagOf = (note: string | Uint8Array, keys?: ReadonlyArray<VerifierKey>) => errorOf(open(note, keys))._tag

describe.each([
  ["node:crypto", nodeCrypto],
  ["@noble", nobleCrypto]
])("Go's example note (%s)", (_, c) => {
  it("is reproduced byte for byte and opens", () => {
    expect(Either.getOrThrow(signNote(goText, "PeterNeumann", goSeed, c))).toBe(goNote)
    const opened = Either.getOrThrow(openNote(utf8(goNote), [goKey], c.ed25519))
    expect(opened.text).toBe(goText)
    expect(opened.signatures.map((s) => [s.name, s.keyHash])).toEqual([["PeterNeumann", 0xc74f20a3]])
    expect(opened.unverified).toEqual([])
  })
})

describe("formatNote and signatureLine", () => {
  it("write text, a blank line and one line per signature", () => {
    const raw = decodeB64(goLine.slice("— PeterNeumann ".length, -1))!
    const sig = { name: "PeterNeumann", keyHash: 0xc74f20a3, signature: raw.subarray(4) }
    expect(signatureLine(sig)).toBe(goLine)
    expect(Either.getOrThrow(formatNote(goText, [sig]))).toBe(goNote)
    const enochRaw = decodeB64(enochLine.slice("— EnochRoot ".length, -1))!
    const enoch = { name: "EnochRoot", keyHash: 0xaf0cfe78, signature: enochRaw.subarray(4) }
    expect(Either.getOrThrow(formatNote(goText, [sig, enoch]))).toBe(goNote + enochLine)
  })

  it("refuse texts and names that cannot make a note", () => {
    const sig = { name: "n", keyHash: 1, signature: new Uint8Array(64) }
    for (const text of ["no newline", "", "tab\there\n", "cr\r\n", "lone \ud800\n"]) {
      expect(Either.isLeft(formatNote(text, [sig])), JSON.stringify(text)).toBe(true)
      expect(Either.isLeft(signNote(text, "n", goSeed, crypto)), JSON.stringify(text)).toBe(true)
    }
    expect(Either.isLeft(formatNote("x\n", []))).toBe(true)
    for (const name of ["", "a b", "a+b"]) expect(Either.isLeft(formatNote("x\n", [{ ...sig, name }]))).toBe(true)
    expect(Either.isLeft(formatNote("x\n", [{ ...sig, signature: new Uint8Array(0) }]))).toBe(true)
  })
})

describe("openNote", () => {
  it("ignores signatures by unknown keys and reports them", () => {
    const opened = Either.getOrThrow(open(goNote + enochLine))
    expect(opened.signatures.map((s) => s.name)).toEqual(["PeterNeumann"])
    expect(opened.unverified.map((s) => [s.name, s.keyHash])).toEqual([["EnochRoot", 0xaf0cfe78]])
    // Unknown first, known second: order does not matter.
    const reordered = goText + "\n" + enochLine + goLine
    expect(Either.getOrThrow(open(reordered)).signatures.length).toBe(1)
  })

  it("opens a note signed by several known keys", () => {
    const text = "two signers\n"
    const a = sign(text, goKey.name, goSeed)
    const b = sign(text, otherKey.name, otherSeed)
    const both = a + b.slice(text.length + 1)
    const opened = Either.getOrThrow(open(both, [goKey, otherKey]))
    expect(opened.signatures.map((s) => s.name)).toEqual([goKey.name, otherKey.name])
  })

  it("refuses a note no known key signed", () => {
    expect(errorOf(open(goText + "\n" + enochLine))).toMatchObject({
      _tag: "UnverifiedNote",
      unverified: [{ name: "EnochRoot", keyHash: 0xaf0cfe78 }]
    })
    expect(tagOf(goNote, [])).toBe("UnverifiedNote")
    expect(tagOf(goNote, [otherKey])).toBe("UnverifiedNote")
  })

  it("treats a known name with another key ID as an unknown key", () => {
    // Same name, key ID off by one: not the known key, so ignored, and then unverified.
    const raw = decodeB64(goLine.slice("— PeterNeumann ".length, -1))!
    raw[3]! ^= 1
    const wrongId = goText + "\n— PeterNeumann " + encodeB64(raw) + "\n"
    expect(tagOf(wrongId)).toBe("UnverifiedNote")
    // A known key ID under another name is another key too.
    const renamed = goText + "\n" + goLine.replace("PeterNeumann", "PeterNeuman")
    expect(tagOf(renamed)).toBe("UnverifiedNote")
  })

  it("refuses the whole note when a known key's signature is bad", () => {
    const tamperedText = goNote.replace("answer", "Answer")
    expect(errorOf(open(tamperedText))).toMatchObject({ _tag: "InvalidNoteSignature", name: "PeterNeumann", keyHash: 0xc74f20a3 })
    const raw = decodeB64(goLine.slice("— PeterNeumann ".length, -1))!
    raw[10]! ^= 0x40
    const tamperedSig = goText + "\n— PeterNeumann " + encodeB64(raw) + "\n"
    expect(tagOf(tamperedSig)).toBe("InvalidNoteSignature")
    // A good signature does not excuse a bad one by the same key.
    expect(tagOf(goNote + tamperedSig.slice(goText.length + 1))).toBe("InvalidNoteSignature")
    // A short signature by a known key is a bad signature, not an unknown one.
    const short = goText + "\n— PeterNeumann " + encodeB64(raw.subarray(0, 5)) + "\n"
    expect(tagOf(short)).toBe("InvalidNoteSignature")
  })

  it("lists a key once when it signed twice", () => {
    const opened = Either.getOrThrow(open(goNote + goLine + enochLine + enochLine))
    expect(opened.signatures.length).toBe(1)
    expect(opened.unverified.length).toBe(1)
  })

  it("refuses malformed notes", () => {
    const sigB64 = goLine.slice("— PeterNeumann ".length, -1)
    const malformed: Array<string | Uint8Array> = [
      "",
      goText, // no signatures
      goText + goLine, // no blank line
      goText + "\n", // blank line, no signature
      goNote.slice(0, -1), // last line without newline
      goNote + "\n", // a blank line after the signatures
      goText + "\n" + goLine.replace("— ", "—"), // no space after the em dash
      goText + "\n" + goLine.replace("— ", "- "), // hyphen, not em dash
      goText + "\n" + goLine.replace("— ", "  "),
      goText + "\n— PeterNeumann\n", // no signature
      goText + "\n— PeterNeumann \n", // empty signature
      goText + "\n—  PeterNeumann " + sigB64 + "\n", // empty name
      goText + "\n— Peter+Neumann " + sigB64 + "\n",
      goText + "\n— PeterNeumann " + sigB64 + " \n",
      goText + "\n— PeterNeumann " + sigB64.slice(0, -1) + "\n", // base64 without its padding
      goText + "\n— PeterNeumann " + sigB64.replace(/\+/g, "-").replace(/\//g, "_") + "\n", // base64url
      goText + "\n— PeterNeumann AAAAAA==\n", // 4 bytes: a key ID and no signature
      goNote.replace("problem,", "problem,\r"), // control characters
      goNote.replace("problem,", "problem,\t"),
      goNote.replace("problem,", "problem,\u0000"),
      concat(utf8(goText.slice(0, 5)), Uint8Array.of(0xff), utf8(goText.slice(5) + "\n" + goLine)), // not UTF-8
      concat(utf8(goText.slice(0, 5)), Uint8Array.of(0xc3), utf8(goText.slice(5) + "\n" + goLine)), // truncated sequence
      goText + "\n" + goLine.repeat(MAX_SIGNATURES + 1), // too many signatures
      "x".repeat(1 << 20) + "\n\n" + goLine // too large
    ]
    for (const note of malformed) {
      const label = typeof note === "string" ? JSON.stringify(note.slice(0, 120)) : "bytes"
      expect(tagOf(note), label).toBe("MalformedNote")
    }
    // The limit itself is accepted: at least 16 signatures must be.
    expect(Either.isRight(open(goText + "\n" + goLine.repeat(MAX_SIGNATURES)))).toBe(true)
  })

  it("separates the text at the last blank line, so texts may hold blank lines", () => {
    const text = "first\n\nthird\n\n"
    const note = sign(text, goKey.name, goSeed)
    expect(note).toBe(text + "\n" + note.slice(text.length + 1))
    expect(Either.getOrThrow(open(note)).text).toBe(text)
  })

  it("gives back exactly the signed text, a leading byte order mark included", () => {
    const text = "\ufeffbom\n"
    expect(Either.getOrThrow(open(sign(text, goKey.name, goSeed))).text).toBe(text)
  })

  it("refuses two different known keys that share a name and key ID", () => {
    const impostor = { ...goKey, publicKey: otherKey.publicKey }
    expect(tagOf(goNote, [goKey, impostor])).toBe("AmbiguousVerifier")
    // The same key listed twice is harmless.
    expect(Either.isRight(open(goNote, [goKey, { ...goKey }]))).toBe(true)
  })

  it("opens every note it signs, with the same text, and no other text", () => {
    const noteText = fc
      .array(fc.string({ unit: "grapheme", maxLength: 20 }).filter((line) => !/[\u0000-\u001f]/.test(line)), {
        minLength: 1,
        maxLength: 5
      })
      .map((lines) => lines.join("\n") + "\n")
    fc.assert(
      fc.property(noteText, fc.nat(), (text, at) => {
        const note = sign(text, goKey.name, goSeed)
        expect(Either.getOrThrow(open(note)).text).toBe(text)
        // Changing any byte of the signed text breaks the note.
        const bytes = utf8(note)
        const i = at % utf8(text).length
        bytes[i] = bytes[i]! ^ 0x01
        expect(Either.isLeft(openNote(bytes, [goKey], ed25519))).toBe(true)
      }),
      { numRuns: 200 }
    )
  })
})
