// C2SP tlog-checkpoint: every checkpoint of the Go reference vectors is reproduced byte for
// byte by signing its body with the log key, and opens with the published verifier key.

import { readdirSync } from "node:fs"
import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { nobleCrypto } from "../../../src/adapters/crypto/nobleCrypto.js"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { fromHex, fromUtf8, utf8 } from "../../../src/domain/bytes.js"
import { decodeB64, encodeB64 } from "../../../src/domain/encoding.js"
import { formatCheckpoint, parseCheckpoint } from "../../../src/domain/note/checkpoint.js"
import { openNote, signNote } from "../../../src/domain/note/signedNote.js"
import { parseVerifierKey } from "../../../src/domain/note/verifierKey.js"
import { profileVectors as v, readTlogVector, tlogVectors } from "../profileVectors.js"

const sizes = readdirSync(tlogVectors)
  .filter((name) => /^n\d+$/.test(name))
  .map((name) => Number(name.slice(1)))
  .sort((a, b) => a - b)

const origin = "example.test/aics"
const seed = fromHex(v.log_key.seed_hex)!
const root = "KE2MuGYwnkuyk4wKiLit7kmbFjjjHWZCCxQb9DdoRWA="

describe.each([
  ["node:crypto", nodeCrypto],
  ["@noble", nobleCrypto]
])("the Go checkpoints (%s)", (_, crypto) => {
  const vkey = parseVerifierKey(crypto.sha256, fromUtf8(readTlogVector("vkey")).trim())!

  it("cover the published sizes", () => {
    expect(sizes).toEqual([1, 2, 3, 255, 256, 257, 1000, 65793])
  })

  it.each(sizes)("n%i: signing the body reproduces the file, which opens with the vkey", (size) => {
    const file = readTlogVector(`n${size}/checkpoint`)
    const rootLine = fromUtf8(file).split("\n")[2]!
    const body = formatCheckpoint({ origin, size, rootHash: decodeB64(rootLine)! })
    expect(Either.getOrThrow(signNote(body, origin, seed, crypto))).toBe(fromUtf8(file))

    const opened = Either.getOrThrow(openNote(file, [vkey], crypto.ed25519))
    expect(opened.text).toBe(body)
    const checkpoint = parseCheckpoint(opened.text)!
    expect(checkpoint.origin).toBe(origin)
    expect(checkpoint.size).toBe(size)
    expect(encodeB64(checkpoint.rootHash)).toBe(rootLine)
    expect(checkpoint.extensions).toEqual([])
  })
})

describe("parseCheckpoint", () => {
  it("returns extension lines", () => {
    const checkpoint = parseCheckpoint(`${origin}\n1\n${root}\next one\next two\n`)!
    expect(checkpoint.extensions).toEqual(["ext one", "ext two"])
  })

  it("reads an empty tree", () => {
    const empty = encodeB64(nodeCrypto.sha256(new Uint8Array(0)))
    expect(parseCheckpoint(`${origin}\n0\n${empty}\n`)?.size).toBe(0)
  })

  it("refuses anything else", () => {
    const bad = [
      "",
      `${origin}\n1\n${root}`, // no final newline
      `${origin}\n1\n`,
      `${origin}\n1\n\n`,
      `\n1\n${root}\n`, // empty origin
      `${origin}\n01\n${root}\n`, // leading zero
      `${origin}\n-1\n${root}\n`,
      `${origin}\n+1\n${root}\n`,
      `${origin}\n 1\n${root}\n`,
      `${origin}\n1.0\n${root}\n`,
      `${origin}\n9007199254740992\n${root}\n`, // beyond a safe integer
      `${origin}\n\n${root}\n`,
      `${origin}\n1\n${root.slice(0, -1)}\n`, // unpadded
      `${origin}\n2\nEIy8g1ilOUrwfw1Zjt7-7aHjlugRL5JA_ySBtTKlftI=\n`, // base64url
      `${origin}\n1\n${encodeB64(new Uint8Array(31))}\n`, // 31 bytes
      `${origin}\n1\n${encodeB64(new Uint8Array(33))}\n`,
      `${origin}\n1\n${root}\n\n`, // empty extension line
      `${origin}\n1\n${root}\next\n\n`
    ]
    for (const text of bad) expect(parseCheckpoint(text), JSON.stringify(text)).toBeUndefined()
  })

  it("inverts formatCheckpoint", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).filter((s) => !s.includes("\n")),
        fc.maxSafeNat(),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        (o, size, rootHash) => {
          const text = formatCheckpoint({ origin: o, size, rootHash })
          expect(parseCheckpoint(text)).toEqual({ origin: o, size, rootHash, extensions: [] })
          expect(utf8(text).at(-1)).toBe(0x0a)
        }
      )
    )
  })
})
