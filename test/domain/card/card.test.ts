// The assurance card's bytes (docs/protocol.md section 12): JCS of the card with its
// ed25519-jcs signature by the policy key, the same bytes for the same terms, and a
// verifier that refuses another key, a changed member and a non-canonical spelling.

import { describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { fromUtf8, utf8 } from "../../../src/domain/bytes.js"
import { cardSigningInput, signedCardBytes, verifyCard, type CardTerms } from "../../../src/domain/card/card.js"
import { makeAgent } from "../../support/agents.js"

const policy = makeAgent("card policy")
const other = makeAgent("card other")

const terms: CardTerms = {
  origin: "card.test/aics",
  instanceDomain: "card.test",
  publicUrl: "https://card.test",
  logVkey: "card.test/aics+00000000+AQ",
  policyKid: policy.kid,
  ownerKid: other.kid,
  charterHash: "lprFCb4HgVArnH-QQ69maKyGmryDeqI-cSwRkkLHHsU",
  charterSize: 1272,
  noticePeriodSeconds: 2_592_000,
  retentionDays: 90,
  mmdSeconds: 1,
  tiles: ["https://card.test/tiles/", "https://mirror.test/aics/"],
  assetHash: "HqcXe9ryITHK4TnkjHTBDm7boy2O0UINDkEmVk-KunA",
  contributions: [{ network: "example-chain", asset: "EXM", address: "ex1qqq" }]
}

const sign = (t: CardTerms, seed = policy.seed) => signedCardBytes(t, nodeCrypto.ed25519.sign(seed, cardSigningInput(t)))

describe("assurance card", () => {
  it("is JCS with the policy key's signature, the same bytes every time", () => {
    const bytes = sign(terms)
    expect(sign(terms)).toEqual(bytes)
    const card = JSON.parse(fromUtf8(bytes)) as Record<string, any>
    expect(card).toMatchObject({
      v: "AICS-1", type: "aics-card", origin: terms.origin, kid: policy.kid, api: terms.publicUrl,
      keys: { log_vkey: terms.logVkey, policy_kid: policy.kid, owner_kid: other.kid },
      charter: { index: 0, document_hash: terms.charterHash, size: 1272, url: "https://card.test/charter" },
      notice_period_seconds: 2_592_000, retention_days: 90, mmd_seconds: 1, tiles: terms.tiles,
      sup: { asset_hash: terms.assetHash, asset_url: "https://card.test/v2/sup/asset" },
      contributions: terms.contributions,
      auth: { alg: "ed25519-jcs", sig: expect.stringMatching(/^[A-Za-z0-9_-]{86}$/) }
    })
    expect(verifyCard(bytes, policy.kid, nodeCrypto.ed25519)).toBe(true)
  })

  it("refuses another key, a changed member and a spelling other than JCS", () => {
    const bytes = sign(terms)
    expect(verifyCard(bytes, other.kid, nodeCrypto.ed25519)).toBe(false)
    expect(verifyCard(sign(terms, other.seed), policy.kid, nodeCrypto.ed25519)).toBe(false)
    const card = JSON.parse(fromUtf8(bytes)) as Record<string, any>
    expect(verifyCard(utf8(JSON.stringify({ ...card, mmd_seconds: 2 })), policy.kid, nodeCrypto.ed25519)).toBe(false)
    expect(verifyCard(utf8(JSON.stringify(card, null, 2)), policy.kid, nodeCrypto.ed25519)).toBe(false)
    expect(verifyCard(utf8("not json"), policy.kid, nodeCrypto.ed25519)).toBe(false)
  })

  it("says what it witnesses and who witnesses it, under the signature, only when witnessing is given", () => {
    expect(JSON.parse(fromUtf8(sign(terms)))["witnessing"]).toBeUndefined()
    const witnessed: CardTerms = {
      ...terms,
      witnessing: {
        witnessVkey: "card.test/witness+00000000+BA",
        witnessedLogs: ["other.test/aics"],
        witnesses: [{ url: "https://other.test", vkey: "other.test/witness+00000000+BA" }],
        quorum: 1
      }
    }
    const bytes = sign(witnessed)
    expect(JSON.parse(fromUtf8(bytes))["witnessing"]).toEqual({
      witness: { vkey: "card.test/witness+00000000+BA", add_checkpoint: "https://card.test/add-checkpoint", logs: ["other.test/aics"] },
      witnesses: [{ url: "https://other.test", vkey: "other.test/witness+00000000+BA" }],
      quorum: 1
    })
    expect(verifyCard(bytes, policy.kid, nodeCrypto.ed25519)).toBe(true)
  })
})
