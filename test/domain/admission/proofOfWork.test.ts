import { sha256 } from "@noble/hashes/sha2.js"
import { describe, expect, it } from "vitest"
import {
  grindNonce, grindNonceRange, grindSecretClaimWork, leadingZeroBits, meetsWork, parseSecretClaimWork, secretClaimWorkOf, secretClaimWorkProblem, workNonce, workOf
} from "../../../src/domain/admission/proofOfWork.js"
import type { UnsignedEnvelope } from "../../../src/domain/envelope/envelope.js"

const claim: UnsignedEnvelope = {
  v: "AICS-1", origin: "localhost/aics", type: "claim", kid: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
  seq: 0, prev: null, nonce: "AAAAAAAAAAAAAAAAAAAAAA", created: 1_800_000_000, expires: 1_800_000_300,
  payload: { name: "alice", x25519: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" }
}

describe("proof of work (NIP-13 style)", () => {
  it("counts leading zero bits", () => {
    expect(leadingZeroBits(new Uint8Array([0, 0, 0x0f]))).toBe(20)
    expect(leadingZeroBits(new Uint8Array([0x80]))).toBe(0)
    expect(leadingZeroBits(new Uint8Array([0, 1]))).toBe(15)
    expect(leadingZeroBits(new Uint8Array(2))).toBe(16)
  })

  it("finds a nonce meeting the difficulty, with progress, and binds it to the claim", () => {
    const seen: Array<number> = []
    const worked = grindNonce(claim, 12, sha256, new Uint8Array(16).fill(7), (tries) => seen.push(tries), 256)
    expect(workOf(worked, sha256)).toBeGreaterThanOrEqual(12)
    expect(meetsWork(worked, 12, sha256)).toBe(true)
    expect(seen.every((n, i) => n === (i + 1) * 256)).toBe(true)
    // The same nonce on another claim (another name) is, with overwhelming odds, no work at all.
    expect(workOf({ ...worked, payload: { ...worked.payload, name: "bob" } }, sha256)).toBeLessThan(12)
    // Other types and difficulty 0 ask nothing.
    expect(meetsWork({ ...claim, type: "post" }, 12, sha256)).toBe(true)
    expect(meetsWork(claim, 0, sha256)).toBe(true)
  })

  it("grinds a range of counters: the first nonce in it that meets the bits, as trying each in turn finds, or none", () => {
    const base = new Uint8Array(16).fill(5)
    const firstMeeting = (bits: number, from: number, to: number): string | undefined => {
      for (let counter = from; counter < to; counter++) {
        const nonce = workNonce(base, counter)
        if (workOf({ ...claim, nonce }, sha256) >= bits) return nonce
      }
      return undefined
    }
    const found = grindNonceRange(claim, 10, sha256, base, 0, 1 << 16)
    expect(found).toBeDefined()
    expect(found).toBe(firstMeeting(10, 0, 1 << 16))
    expect(workOf({ ...claim, nonce: found! }, sha256)).toBeGreaterThanOrEqual(10)
    // A range past it finds the next one, and a range holding none answers none.
    const at = Array.from({ length: 1 << 16 }, (_, i) => i).find((counter) => workNonce(base, counter) === found)!
    expect(grindNonceRange(claim, 10, sha256, base, at + 1, 1 << 17)).toBe(firstMeeting(10, at + 1, 1 << 17))
    expect(grindNonceRange(claim, 10, sha256, base, 0, at)).toBeUndefined()
    // Counters past 2^32 and a payload holding a member named nonce, the same.
    const nested = { ...claim, payload: { ...claim.payload, nonce: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" } }
    const high = grindNonceRange(nested, 8, sha256, base, 2 ** 40, 2 ** 40 + 4096)
    expect(high).toBeDefined()
    expect(workOf({ ...nested, nonce: high! }, sha256)).toBeGreaterThanOrEqual(8)
    expect(high).toBe(Array.from({ length: 4096 }, (_, i) => workNonce(base, 2 ** 40 + i)).find((nonce) => workOf({ ...nested, nonce }, sha256) >= 8))
  })

  it("makes and checks a secret-bound claim's work, bound to the origin, the name and when it was made", () => {
    const seen: Array<number> = []
    const argument = grindSecretClaimWork("localhost/aics", "carol", 1_800_000_000, 10, sha256, new Uint8Array(16).fill(9), (tries) => seen.push(tries), 128)
    const work = parseSecretClaimWork(argument)!
    expect(work.created).toBe(1_800_000_000)
    expect(secretClaimWorkOf("localhost/aics", "carol", work.created, work.nonce, sha256)).toBeGreaterThanOrEqual(10)
    expect(seen.every((n, i) => n === (i + 1) * 128)).toBe(true)
    expect(secretClaimWorkProblem("localhost/aics", "carol", work, 10, 1_800_000_100, sha256)).toBeUndefined()
    // Another name or origin: no work at all, with overwhelming odds.
    expect(secretClaimWorkProblem("localhost/aics", "dave", work, 10, 1_800_000_100, sha256)).toMatch(/carries \d+ of the 10 bits/)
    expect(secretClaimWorkProblem("other/log", "carol", work, 10, 1_800_000_100, sha256)).toMatch(/carries \d+ of the 10 bits/)
    // Taken from 60 s ahead of the clock to 600 s behind it.
    expect(secretClaimWorkProblem("localhost/aics", "carol", work, 10, 1_800_000_000 - 60, sha256)).toBeUndefined()
    expect(secretClaimWorkProblem("localhost/aics", "carol", work, 10, 1_800_000_000 - 61, sha256)).toMatch(/after the service's clock/)
    expect(secretClaimWorkProblem("localhost/aics", "carol", work, 10, 1_800_000_600, sha256)).toBeUndefined()
    expect(secretClaimWorkProblem("localhost/aics", "carol", work, 10, 1_800_000_601, sha256)).toMatch(/more than 600 s/)
    for (const bad of ["work=1800000000", "work=.AAAA", "work=18e8.AAAA", "1800000000.AAAA", "work=1800000000.AA AA", "work=1800000000.AA+A"]) {
      expect(parseSecretClaimWork(bad), bad).toBeUndefined()
    }
  })
})
