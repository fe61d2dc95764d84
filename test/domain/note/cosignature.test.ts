// C2SP tlog-cosignature, byte for byte against vectors made outside the project
// (test/vectors/witness/README.md): key IDs of type 0x04, the signed message, the
// timestamped signature and the whole signature line.

import { readFileSync } from "node:fs"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { nobleCrypto } from "../../../src/adapters/crypto/nobleCrypto.js"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { fromHex, fromUtf8, readUint32BE, utf8 } from "../../../src/domain/bytes.js"
import { decodeB64 } from "../../../src/domain/encoding.js"
import {
  cosign, cosignaturesOf, cosignedMessage, formatCosignerKey, makeCosignerKey, parseCosignerKey, splitCosignature,
  withSignatureLines
} from "../../../src/domain/note/cosignature.js"
import { openNote, signNote } from "../../../src/domain/note/signedNote.js"
import { keyHashHex, makeVerifierKey, parseVerifierKey } from "../../../src/domain/note/verifierKey.js"

const vectors = (name: string) => JSON.parse(readFileSync(new URL(`../../vectors/witness/${name}`, import.meta.url), "utf8"))
const generated: ReadonlyArray<{
  name: string; seed_hex: string; vkey: string; key_id_hex: string; timestamp: number; checkpoint: string; signed_message: string; line: string
}> = vectors("generated.json")
const published = vectors("published.json")

describe.each([["node:crypto", nodeCrypto], ["@noble", nobleCrypto]])("cosignature/v1 (%s)", (_, crypto) => {
  it.each(generated.map((v) => [v.name, v] as const))("reproduces the independent vector of %s byte for byte", (_name, v) => {
    const seed = fromHex(v.seed_hex)!
    const key = makeCosignerKey(crypto.sha256, v.name, crypto.ed25519.publicKey(seed))
    expect(keyHashHex(key.keyHash)).toBe(v.key_id_hex)
    expect(formatCosignerKey(key)).toBe(v.vkey)
    expect(fromUtf8(cosignedMessage(v.checkpoint, v.timestamp))).toBe(v.signed_message)
    expect(cosign(v.checkpoint, v.name, seed, v.timestamp, crypto)).toBe(v.line)
  })

  it("verifies the independent lines on a log-signed checkpoint, and a client with only the log key still opens it", () => {
    const v = generated[0]!
    const logSeed = crypto.sha256(utf8("a log"))
    const logKey = makeVerifierKey(crypto.sha256, "example.com/behind-the-sofa", crypto.ed25519.publicKey(logSeed))
    const note = utf8(Either.getOrThrow(signNote(v.checkpoint, logKey.name, logSeed, crypto)))
    const cosigned = withSignatureLines(note, [v.line])
    const witness = parseCosignerKey(crypto.sha256, v.vkey)!

    const onlyLog = Either.getOrThrow(openNote(cosigned, [logKey], crypto.ed25519))
    expect(onlyLog.text).toBe(v.checkpoint)
    expect(onlyLog.unverified.map((s) => s.name)).toEqual([v.name])
    expect(Either.getOrThrow(cosignaturesOf(onlyLog, [witness], crypto.ed25519)).map((c) => [c.witness.name, c.timestamp]))
      .toEqual([[v.name, v.timestamp]])

    // A cosignature over another text (here: another timestamp claimed) is an invalid signature of a known key.
    const raw = decodeB64(v.line.slice(v.line.lastIndexOf(" ") + 1, -1))!
    raw[11] = raw[11]! ^ 1
    const forged = `— ${v.name} ${Buffer.from(raw).toString("base64")}\n`
    const opened = Either.getOrThrow(openNote(withSignatureLines(note, [forged]), [logKey], crypto.ed25519))
    expect(Either.isLeft(cosignaturesOf(opened, [witness], crypto.ed25519))).toBe(true)
    // The witness's key as a log key (type 0x01) does not match the line: different key IDs.
    expect(cosignaturesOf(opened, [makeVerifierKey(crypto.sha256, v.name, witness.publicKey)], crypto.ed25519)).toEqual(Either.right([]))
  })
})

describe("published references", () => {
  it("parses a public witness's type-0x04 verifier key, whose key ID is the cosignature one", () => {
    for (const v of published.cosigner_vkeys) {
      const key = parseCosignerKey(nodeCrypto.sha256, v.vkey)
      expect(key).toBeDefined()
      expect(keyHashHex(key!.keyHash)).toBe(v.key_id_hex)
      expect(formatCosignerKey(key!)).toBe(v.vkey)
      // Not a note (0x01) verifier key.
      expect(parseVerifierKey(nodeCrypto.sha256, v.vkey)).toBeUndefined()
    }
  })

  it("reads key ID and timestamp out of published cosignatures", () => {
    for (const v of published.cosignature_timestamps) {
      const raw = decodeB64(v.signature_b64)!
      expect(keyHashHex(readUint32BE(raw, 0))).toBe(v.key_id_hex)
      expect(splitCosignature(raw.subarray(4))?.timestamp).toBe(v.timestamp)
    }
  })

  it("builds the signed message of the C2SP text", () => {
    const m = published.signed_message
    expect(fromUtf8(cosignedMessage(m.checkpoint, m.timestamp))).toBe(m.message)
  })

  it("refuses a timestamp above 2^63 - 1 and a signature of the wrong length", () => {
    const raw = new Uint8Array(72)
    raw[0] = 0x80
    expect(splitCosignature(raw)).toBeUndefined()
    expect(splitCosignature(new Uint8Array(71))).toBeUndefined()
  })
})
