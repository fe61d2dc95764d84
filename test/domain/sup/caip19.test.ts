// EIP-55 as the settings check it (eip55Consistent), against viem's checksum: the service
// no longer loads viem unless a network is checked on chain, so its own check must agree.

import fc from "fast-check"
import { getAddress } from "viem"
import { describe, expect, it } from "vitest"
import { eip55Consistent } from "../../../src/domain/sup/caip19.js"

const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => `0x${Buffer.from(bytes).toString("hex")}`)

describe("EIP-55", () => {
  it("takes an address in one case, and in mixed case only its checksum", () => {
    // The EIP's own examples.
    for (const example of ["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359", "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB", "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb"]) {
      expect(eip55Consistent(example), example).toBe(true)
    }
    expect(eip55Consistent("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")).toBe(true)
    expect(eip55Consistent("0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED")).toBe(true)
    expect(eip55Consistent("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD")).toBe(false)
  })

  it("agrees with viem on every address and on every one-letter change of case", () => {
    fc.assert(fc.property(address, fc.nat(), (lower, pick) => {
      const checksummed = getAddress(lower)
      expect(eip55Consistent(checksummed)).toBe(true)
      const letters = [...checksummed.slice(2)].flatMap((c, i) => (/[a-fA-F]/.test(c) ? [i + 2] : []))
      if (letters.length < 2) return
      const at = letters[pick % letters.length]!
      const c = checksummed[at]!
      const flipped = checksummed.slice(0, at) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + checksummed.slice(at + 1)
      // Still mixed case (two letters at least), now off its checksum.
      const mixed = flipped.slice(2) !== flipped.slice(2).toLowerCase() && flipped.slice(2) !== flipped.slice(2).toUpperCase()
      expect(eip55Consistent(flipped)).toBe(!mixed)
    }), { numRuns: 500 })
  })
})
