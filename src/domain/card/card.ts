// The assurance card (docs/spec/service.md "Discovery" `/.well-known/aics-card.json`: "the assurance
// card, signed with the policy key, exact bytes"; docs/spec/profile.md section 2; AICS-1 section 13;
// docs/protocol.md section 12). One JSON document saying what an agent should pin: the
// origin and keys, the charter, the terms, where the tiles are, the SUP asset and the
// contribution addresses (if any).
//
// The signature rides in the document, exactly as an envelope's does (docs/spec/profile.md
// section 3): the card's `kid` is the policy key, `auth` is {"alg": "ed25519-jcs", "sig"},
// and the signing input is the UTF-8 of JCS(card with auth.sig removed). The served bytes
// are JCS(whole card), so the same terms always give the same bytes (Ed25519 signatures
// are deterministic), and their SHA-256 is the `document_hash` a `policy` leaf of kind
// `card` names once the owner logs the card.

import * as Either from "effect/Either"
import { fromUtf8, utf8 } from "../bytes.js"
import type { Ed25519 } from "../crypto.js"
import { decodeU64, encodeU64 } from "../encoding.js"
import type { PublishedLimits } from "../admission/budgets.js"
import { jcs } from "../envelope/jcs.js"
import { publicKeyFromDidKey } from "../identity/didKey.js"
import { parseStrictJson } from "../envelope/strictJson.js"

export const CARD_TYPE = "aics-card"
export const CARD_AUTH_ALG = "ed25519-jcs"

/** A place to send a voluntary contribution (compare it with the card before sending). */
export interface ContributionAddress {
  readonly network: string
  readonly asset: string
  readonly address: string
}

export interface CardTerms {
  readonly origin: string
  readonly instanceDomain: string
  /** Absolute URL of the API, without a trailing slash. */
  readonly publicUrl: string
  readonly logVkey: string
  readonly policyKid: string
  readonly ownerKid: string
  /** Leaf 0's charter document: U64 SHA-256 and length. */
  readonly charterHash: string
  readonly charterSize: number
  readonly noticePeriodSeconds: number
  readonly retentionDays: number
  readonly mmdSeconds: number
  /** Tile prefixes, canonical first. */
  readonly tiles: ReadonlyArray<string>
  /** U64 SHA-256 of the SUP asset descriptor (/v2/sup/asset). */
  readonly assetHash: string
  readonly contributions: ReadonlyArray<ContributionAddress>
  /** Fair admission's budgets and proof-of-work difficulty (docs/protocol.md "Fair admission"); absent: not said. */
  readonly limits?: PublishedLimits | undefined
  /** Witnessing (docs/protocol.md "Witnessing"); the card names none when absent. */
  readonly witnessing?: CardWitnessing | undefined
}

/**
 * What the card says about witnesses: this service's own witness (its cosignature key, its
 * add-checkpoint URL, the logs it witnesses) and the witnesses this log submits its
 * checkpoints to, with the quorum it aims for, so a client can pick the keys to require.
 */
export interface CardWitnessing {
  readonly witnessVkey: string
  readonly witnessedLogs: ReadonlyArray<string>
  readonly witnesses: ReadonlyArray<{ readonly url: string; readonly vkey: string }>
  readonly quorum: number
}

/** The card without its signature: what the policy key signs (with auth = {alg}). */
export const unsignedCard = (terms: CardTerms) => ({
  v: "AICS-1",
  type: CARD_TYPE,
  origin: terms.origin,
  instance_domain: terms.instanceDomain,
  api: terms.publicUrl,
  kid: terms.policyKid,
  keys: { log_vkey: terms.logVkey, policy_kid: terms.policyKid, owner_kid: terms.ownerKid },
  charter: { index: 0, document_hash: terms.charterHash, size: terms.charterSize, url: `${terms.publicUrl}/charter` },
  notice_period_seconds: terms.noticePeriodSeconds,
  retention_days: terms.retentionDays,
  mmd_seconds: terms.mmdSeconds,
  tiles: [...terms.tiles],
  sup: { asset_hash: terms.assetHash, asset_url: `${terms.publicUrl}/v2/sup/asset` },
  contributions: terms.contributions.map((c) => ({ network: c.network, asset: c.asset, address: c.address })),
  ...(terms.limits === undefined ? {} : { limits: terms.limits }),
  ...(terms.witnessing === undefined ? {} : {
    witnessing: {
      witness: { vkey: terms.witnessing.witnessVkey, add_checkpoint: `${terms.publicUrl}/add-checkpoint`, logs: [...terms.witnessing.witnessedLogs] },
      witnesses: terms.witnessing.witnesses.map((w) => ({ url: w.url, vkey: w.vkey })),
      quorum: terms.witnessing.quorum
    }
  }),
  auth: { alg: CARD_AUTH_ALG }
})

/** UTF-8 bytes the policy key signs. */
export const cardSigningInput = (terms: CardTerms): Uint8Array => utf8(Either.getOrThrow(jcs(unsignedCard(terms))))

/** The exact bytes served: JCS of the card with its signature (U64 of 64 bytes). */
export const signedCardBytes = (terms: CardTerms, signature: Uint8Array): Uint8Array => {
  const card = unsignedCard(terms)
  return utf8(Either.getOrThrow(jcs({ ...card, auth: { ...card.auth, sig: encodeU64(signature) } })))
}

/**
 * Whether the bytes are a card in JCS form whose auth.sig verifies under the policy key
 * (a did:key) it must come from: what an agent checks before trusting anything it says.
 */
export const verifyCard = (bytes: Uint8Array, policyKid: string, ed25519: Ed25519): boolean => {
  let text: string
  try {
    text = fromUtf8(bytes)
  } catch {
    return false
  }
  const parsed = Either.getOrUndefined(parseStrictJson(text))
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return false
  const card = parsed as Record<string, unknown>
  const auth = card["auth"] as Record<string, unknown> | undefined
  if (card["type"] !== CARD_TYPE || card["kid"] !== policyKid || typeof auth !== "object" || auth === null) return false
  if (auth["alg"] !== CARD_AUTH_ALG || typeof auth["sig"] !== "string") return false
  const canonical = jcs(card)
  if (Either.isLeft(canonical) || canonical.right !== text) return false
  const { sig, ...rest } = auth
  const input = jcs({ ...card, auth: rest })
  const publicKey = publicKeyFromDidKey(policyKid)
  const signature = decodeU64(sig as string)
  return Either.isRight(input) && publicKey !== undefined && signature !== undefined && signature.length === 64 &&
    ed25519.verify(publicKey, utf8(input.right), signature)
}
