// The contribution rules (domain/sup/contributions.ts): units that tell intents apart, and
// every outcome of a claim.

import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  decideClaim, intentUnits, makeIntent, nameToCredit, receivesTransfers, tagSpan, type ChainTransfer, type ContributionIntent, type NetworkTerms
} from "../../../src/domain/sup/contributions.js"
import { reportOfTransfers, type ChainReport } from "../../../src/domain/sup/chainReport.js"

const terms: NetworkTerms = { network: "testnet", asset: "usdc", address: "addr-1", unitsPerSup: 1_000_000n }
const T = 1_767_225_600
const intent: ContributionIntent = makeIntent({ network: "testnet", amount: 5, name: "alice" }, terms,
  { now: T, intentSeconds: 3600, claimSeconds: 86_400 }, "i_1", 42)
const paid = (over: Partial<ChainTransfer> = {}): ChainTransfer => ({
  network: "testnet", tx: "0xabc", address: "addr-1", asset: "usdc", units: intent.units, confirmed: true, time: T + 60, ...over
})
const claim = { intent_id: "i_1", tx: "0xabc", created: T + 100 }
const final = (...transfers: ReadonlyArray<ChainTransfer>): ChainReport => ({ _tag: "Final", transfers })
const decide = (over: Partial<Parameters<typeof decideClaim>[0]> = {}) =>
  decideClaim({ claim, intent, intentCredited: undefined, txCredited: undefined, report: final(paid()), now: T + 100, ...over })

describe("intents", () => {
  it("asks for amount x units_per_sup plus a tag below 1 % of one SUP", () => {
    expect(intent).toMatchObject({ units: "5000042", expires: T + 3600, claimUntil: T + 3600 + 86_400, name: "alice" })
    expect(tagSpan(1_000_000n)).toBe(9_999)
    expect(tagSpan(10n ** 18n)).toBe(1_000_000)
    expect(intentUnits({ ...terms, unitsPerSup: 10n ** 18n }, 3, 7)).toBe("3000000000000000007")
  })

  it("never gives two (amount, tag) pairs the same units", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 1e6 }), fc.integer({ min: 1, max: 1e6 }), fc.integer({ min: 1, max: 9_999 }), fc.integer({ min: 1, max: 9_999 }),
      (a1, a2, t1, t2) => (intentUnits(terms, a1, t1) === intentUnits(terms, a2, t2)) === (a1 === a2 && t1 === t2)))
  })

  it("receives transfers (and holds its units) up to and including expires, not until claim_until", () => {
    expect(receivesTransfers(intent, intent.expires)).toBe(true)
    expect(receivesTransfers(intent, intent.expires + 1)).toBe(false)
  })

  it("a later intent with the same units never takes a transfer the earlier one could", () => {
    // Made the second after the first expired: every transfer credits at most one of them.
    fc.assert(fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: -5, max: 30_000 }),
      (gap, seconds, at) => {
        const later = makeIntent({ network: "testnet", amount: 5, name: "bob" }, terms, { now: intent.expires + gap, intentSeconds: seconds, claimSeconds: 86_400 }, "i_2", 42)
        expect(later.units).toBe(intent.units)
        const transfer = paid({ time: intent.created + at })
        const credits = [intent, later].filter((i) =>
          decideClaim({ claim: { ...claim, intent_id: i.intentId }, intent: i, intentCredited: undefined, txCredited: undefined, report: final(transfer), now: i.created + 1 })._tag === "Credit")
        expect(credits.length).toBeLessThanOrEqual(1)
      }))
  })
})

describe("claims", () => {
  it("credits the intent's amount to the intent's name", () => {
    expect(decide()).toEqual({ _tag: "Credit", name: "alice", amount: 5, network: "testnet", tx: "0xabc" })
  })

  const refusals: ReadonlyArray<[string, Partial<Parameters<typeof decideClaim>[0]>]> = [
    ["intent_unknown", { intent: undefined }],
    ["claim_late", { now: intent.claimUntil + 1 }],
    ["tx_used", { intentCredited: 9 }],
    ["tx_used", { txCredited: 9 }],
    ["tx_not_found", { report: { _tag: "Absent" } }],
    ["tx_not_found", { report: final() }],
    ["tx_not_found", { report: final(paid({ address: "addr-2" })) }],
    ["tx_not_found", { report: final(paid({ time: T - 1 })) }],
    ["tx_failed", { report: { _tag: "Failed" } }],
    ["asset_mismatch", { report: final(paid({ asset: "dai" })) }],
    ["amount_mismatch", { report: final(paid({ units: "5000000" })) }],
    ["amount_mismatch", { report: final(paid({ units: (BigInt(intent.units) - 1n).toString() })) }],
    ["intent_expired", { report: final(paid({ time: intent.expires + 1 })) }]
  ]
  for (const [code, over] of refusals) {
    it(`refuses ${code} (${JSON.stringify(Object.keys(over))})`, () => {
      expect(decide(over)).toMatchObject({ _tag: "Refusal", code })
    })
  }

  it("takes the transfer of the intent's asset and units among several of one transaction", () => {
    expect(decide({ report: final(paid({ asset: "dai" }), paid({ units: "1" }), paid()) })._tag).toBe("Credit")
  })

  it("writes nothing while the transaction is not final: it says how many confirmations are missing", () => {
    expect(decide({ report: { _tag: "Pending", missing: 2 } })).toMatchObject({ _tag: "Wait", missing: 2, detail: expect.stringMatching(/2 more confirmations/) })
    expect(decide({ report: reportOfTransfers([paid({ confirmed: false })]) })).toMatchObject({ _tag: "Wait", missing: undefined })
    // Even a transfer of the wrong asset waits: a refusal is final, so it waits for a final transaction.
    expect(decide({ report: { _tag: "Pending", missing: 1 } })._tag).toBe("Wait")
  })

  it("credits the claim's name when the intent named none", () => {
    const unnamed = makeIntent({ network: "testnet", amount: 5 }, terms, { now: T, intentSeconds: 3600, claimSeconds: 86_400 }, "i_3", 43)
    expect(unnamed.name).toBeNull()
    expect(nameToCredit(unnamed, { ...claim, name: "bob" })).toEqual({ name: "bob" })
    expect(nameToCredit(unnamed, claim)).toHaveProperty("error")
    expect(nameToCredit(intent, claim)).toEqual({ name: "alice" })
    expect(nameToCredit(intent, { ...claim, name: "alice" })).toEqual({ name: "alice" })
    expect(nameToCredit(intent, { ...claim, name: "bob" })).toHaveProperty("error")
    expect(decide({ intent: unnamed, name: "bob", report: final(paid({ units: unnamed.units })) })).toMatchObject({ _tag: "Credit", name: "bob" })
  })
})
