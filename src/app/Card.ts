// The assurance card at /.well-known/aics-card.json (docs/spec/service.md "Discovery";
// domain/card/card.ts): built and signed with the policy key once at start, from leaf 0's
// terms, the configured URLs and the SUP asset, so its bytes and hash stay fixed for the
// life of the process (and across starts with the same settings). `leafAt` names the
// `policy` leaf of kind `card` in force that carries exactly these bytes' hash, if any:
// the X-AICS-Card-Leaf header.

import { Context, Effect, Layer } from "effect"
import { cardSigningInput, signedCardBytes, type CardTerms, type ContributionAddress } from "../domain/card/card.js"
import { DEFAULT_LIMITS, publishedLimits } from "../domain/admission/budgets.js"
import { encodeU64 } from "../domain/encoding.js"
import { policyInForce } from "../domain/governance/policyTiming.js"
import type { ResidentState } from "../domain/write/stateSlice.js"
import { Crypto } from "../ports/Crypto.js"
import { Signer } from "../ports/Signer.js"
import { Charter } from "./Charter.js"
import { ServiceConfig, tilePrefixes } from "./ServiceConfig.js"
import { SupAsset } from "./SupAsset.js"
import { Witness } from "./Witness.js"
import { noWitnessing } from "./witnessSettings.js"

export interface AssuranceCard {
  /** The exact bytes served. */
  readonly bytes: Uint8Array
  /** U64 of their SHA-256: X-AICS-Card-SHA256, and the document_hash of the card's policy leaf. */
  readonly hash: string
  /** The card policy leaf in force at `now` (Unix ms) naming these bytes, or undefined (policies are resident). */
  readonly leafAt: (resident: ResidentState, now: number) => number | undefined
}

export class Card extends Context.Tag("aics/Card")<Card, AssuranceCard>() {
  /**
   * The card lists the configured contribution networks (docs/spec/service.md "Contribution
   * intent": network, asset and address are compared with the signed card before
   * sending), none while contributions are closed.
   */
  static readonly layer = Layer.effect(Card, Effect.gen(function*() {
    const charter = yield* Charter
    const config = yield* ServiceConfig
    const signer = yield* Signer
    const crypto = yield* Crypto
    const asset = yield* SupAsset
    const witness = yield* Witness
    const witnessing = config.witnessing ?? noWitnessing(config.domain)
    const terms: CardTerms = {
      origin: charter.terms.origin,
      instanceDomain: charter.terms.instanceDomain,
      publicUrl: config.publicUrl,
      logVkey: charter.terms.logVkey,
      policyKid: charter.terms.policyKid,
      ownerKid: charter.terms.ownerKid,
      charterHash: encodeU64(charter.documentHash),
      charterSize: charter.document.length,
      noticePeriodSeconds: charter.terms.noticePeriodSeconds,
      retentionDays: charter.terms.retentionDays,
      mmdSeconds: charter.terms.mmdSeconds,
      tiles: tilePrefixes(config),
      assetHash: asset.hash,
      contributions: config.contributions.networks.map(({ network, asset, address }): ContributionAddress => ({ network, asset, address })),
      limits: publishedLimits(config.limits ?? DEFAULT_LIMITS),
      witnessing: {
        witnessVkey: witness.vkey,
        witnessedLogs: witness.logs.map((log) => log.origin),
        witnesses: witnessing.witnesses,
        quorum: witnessing.quorum
      }
    }
    const bytes = signedCardBytes(terms, yield* signer.policy.sign(cardSigningInput(terms)))
    const hash = encodeU64(crypto.sha256(bytes))
    return {
      bytes,
      hash,
      leafAt: (resident, now) => {
        const policy = policyInForce(resident, "card", now)
        return policy !== undefined && policy.documentHash === hash ? policy.index : undefined
      }
    }
  }))
}
