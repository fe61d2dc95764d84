// HPKE as docs/protocol.md section 9 uses it, checked against RFC 9180 and for its AICS
// contexts (info and aad strings, `enc || ct`).
//
// Known-answer vector: RFC 9180 Appendix A.2.1, "DHKEM(X25519, HKDF-SHA256), HKDF-SHA256,
// ChaCha20Poly1305", Base Setup Information (mode 0, kem_id 32, kdf_id 1, aead_id 3), and its
// encryption with sequence number 0 (A.2.1.1), which is what single-shot Seal produces.
// Values copied from the CFRG HPKE repository, github.com/cfrg/draft-irtf-cfrg-hpke,
// auth48/draft-irtf-cfrg-hpke.txt (commit 8fc0f527186afec23fe2f79992066bff9a8ccfec), whose
// test-vector appendix became RFC 9180 Appendix A (the draft numbers it B.2.1).

import { x25519 } from "@noble/curves/ed25519.js"
import { describe, expect, it } from "vitest"
import {
  CAPSULE_INFO,
  capsuleAad,
  capsuleSlot,
  DM_INFO,
  dmAad,
  ENC_BYTES,
  HpkeOpenError,
  hpkeOpen,
  hpkeSeal,
  openCapsule,
  openDm,
  sealCapsule,
  sealDm,
  TAG_BYTES
} from "../../src/client/hpke.js"
import { concat, fromHex, fromUtf8, toHex, utf8 } from "../../src/domain/bytes.js"
import { encodeU64 } from "../../src/domain/encoding.js"
import { nobleCrypto } from "../../src/adapters/crypto/nobleCrypto.js"

const hex = (s: string): Uint8Array => fromHex(s)!

const A21 = {
  // "Ode on a Grecian Urn"
  info: "4f6465206f6e2061204772656369616e2055726e",
  ikmE: "909a9b35d3dc4713a5e72a4da274b55d3d3821a37e5d099e74a647db583a904b",
  pkEm: "1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a",
  skEm: "f4ec9b33b792c372c1d2c2063507b684ef925b8c75a42dbcbf57d63ccd381600",
  pkRm: "4310ee97d88cc1f088a5576c77ab0cf5c3ac797f3d95139c6c84b5429c59662a",
  skRm: "8057991eef8f1f1af18f4a9491d16a1ce333f695d4db8e38da75975c4478e0fb",
  enc: "1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a",
  // sequence number 0
  pt: "4265617574792069732074727574682c20747275746820626561757479",
  aad: "436f756e742d30",
  ct: "1c5250d8034ec2b784ba2cfd69dbdb8af406cfe3ff938e131f0def8c8b60b4db21993c62ce81883d2dd1b51a28"
} as const

const expectOpenError = async (promise: Promise<unknown>) => {
  await expect(promise).rejects.toBeInstanceOf(HpkeOpenError)
}

describe("RFC 9180 A.2.1 (X25519, HKDF-SHA256, ChaCha20Poly1305, base mode)", () => {
  it("the vector's keys are consistent X25519 pairs", () => {
    expect(toHex(x25519.getPublicKey(hex(A21.skRm)))).toBe(A21.pkRm)
    expect(toHex(x25519.getPublicKey(hex(A21.skEm)))).toBe(A21.pkEm)
  })

  it("opens the RFC's enc || ct with the RFC's recipient key to the RFC's plaintext", async () => {
    const pt = await hpkeOpen(hex(A21.skRm), hex(A21.info), hex(A21.aad), concat(hex(A21.enc), hex(A21.ct)))
    expect(toHex(pt)).toBe(A21.pt)
    expect(fromUtf8(pt)).toBe("Beauty is truth, truth beauty")
  })

  it("seals the RFC's plaintext to the RFC's enc || ct with the RFC's ephemeral ikm", async () => {
    const sealed = await hpkeSeal(hex(A21.pkRm), hex(A21.info), hex(A21.aad), hex(A21.pt), { ephemeralIkmForTests: hex(A21.ikmE) })
    expect(toHex(sealed)).toBe(A21.enc + A21.ct)
  })

  it("refuses the RFC's ciphertext under another aad, info, key, or with a flipped bit", async () => {
    const sealed = concat(hex(A21.enc), hex(A21.ct))
    await expectOpenError(hpkeOpen(hex(A21.skRm), hex(A21.info), utf8("Count-1"), sealed))
    await expectOpenError(hpkeOpen(hex(A21.skRm), utf8("Ode on a Grecian Urn."), hex(A21.aad), sealed))
    await expectOpenError(hpkeOpen(hex(A21.skEm), hex(A21.info), hex(A21.aad), sealed))
    for (const at of [0, ENC_BYTES, sealed.length - 1]) {
      const flipped = sealed.slice()
      flipped[at]! ^= 1
      await expectOpenError(hpkeOpen(hex(A21.skRm), hex(A21.info), hex(A21.aad), flipped))
    }
    await expectOpenError(hpkeOpen(hex(A21.skRm), hex(A21.info), hex(A21.aad), sealed.subarray(0, ENC_BYTES + TAG_BYTES - 1)))
  })
})

const ALICE = "did:key:z6Mkqo5bhL3b4Ct3kfhDtyG6io8whxDXdkAaBA4pr8EiXyEB"
const BOB = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"
const ORIGIN = "example.test/aics"

const keyPair = () => {
  const secret = x25519.utils.randomSecretKey()
  return { secret, public: x25519.getPublicKey(secret) }
}

describe("the AICS contexts (docs/protocol.md section 9)", () => {
  it("uses the exact info strings and JCS aad", () => {
    expect(fromUtf8(DM_INFO)).toBe("AICS-1 dm")
    expect(fromUtf8(CAPSULE_INFO)).toBe("AICS-1 capsule")
    expect(fromUtf8(dmAad(ALICE, ORIGIN, BOB))).toBe(`{"from":"${ALICE}","origin":"${ORIGIN}","to":"${BOB}"}`)
    expect(fromUtf8(capsuleAad(ALICE, ORIGIN, "c2xvdA"))).toBe(`{"kid":"${ALICE}","origin":"${ORIGIN}","slot":"c2xvdA"}`)
  })

  it("names a slot by U64 of SHA-256 of its key", () => {
    expect(capsuleSlot("notes")).toBe(encodeU64(nobleCrypto.sha256(utf8("notes"))))
    // SHA-256("abc"), FIPS 180-2 appendix B.1.
    expect(capsuleSlot("abc")).toBe(encodeU64(hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")))
  })

  it("round-trips a DM as enc || ct and binds it to sender, recipient and log", async () => {
    const bob = keyPair()
    const context = { from: ALICE, to: BOB, origin: ORIGIN }
    const text = utf8("hello bob, ünïcødé ✓")
    const sealed = await sealDm(bob.public, context, text)
    expect(sealed.length).toBe(ENC_BYTES + text.length + TAG_BYTES)
    expect(await openDm(bob.secret, context, sealed)).toEqual(text)
    // The same plaintext seals differently each time (a fresh ephemeral key).
    expect(toHex(await sealDm(bob.public, context, text))).not.toBe(toHex(sealed))
    // Wrong aad: another sender, recipient or origin.
    await expectOpenError(openDm(bob.secret, { ...context, from: BOB }, sealed))
    await expectOpenError(openDm(bob.secret, { ...context, to: ALICE }, sealed))
    await expectOpenError(openDm(bob.secret, { ...context, origin: "other.test/aics" }, sealed))
    // Wrong key, and a capsule context for DM bytes (another info).
    await expectOpenError(openDm(keyPair().secret, context, sealed))
    await expectOpenError(hpkeOpen(bob.secret, CAPSULE_INFO, dmAad(ALICE, ORIGIN, BOB), sealed))
  })

  it("round-trips a capsule and binds it to owner, slot and log", async () => {
    const owner = keyPair()
    const context = { kid: ALICE, origin: ORIGIN, slot: capsuleSlot("diary") }
    const sealed = await sealCapsule(owner.public, context, utf8("dear diary"))
    expect(fromUtf8(await openCapsule(owner.secret, context, sealed))).toBe("dear diary")
    await expectOpenError(openCapsule(owner.secret, { ...context, slot: capsuleSlot("other") }, sealed))
    await expectOpenError(openCapsule(owner.secret, { ...context, kid: BOB }, sealed))
    await expectOpenError(openCapsule(owner.secret, { ...context, origin: "other.test/aics" }, sealed))
    await expectOpenError(hpkeOpen(owner.secret, DM_INFO, capsuleAad(ALICE, ORIGIN, context.slot), sealed))
  })

  it("seals an empty plaintext to exactly enc and tag", async () => {
    const bob = keyPair()
    const sealed = await sealDm(bob.public, { from: ALICE, to: BOB, origin: ORIGIN }, new Uint8Array(0))
    expect(sealed.length).toBe(ENC_BYTES + TAG_BYTES)
    expect((await openDm(bob.secret, { from: ALICE, to: BOB, origin: ORIGIN }, sealed)).length).toBe(0)
  })
})
