// Leaf 0 (docs/spec/profile.md section 5, docs/spec/service.md "Events": "Leaf 0 is the charter leaf"). On the
// first start of an empty log this writes the charter: the document goes to the body store,
// the policy key signs a `charter` envelope naming it by hash, and the envelope becomes
// leaf 0. On every later start leaf 0 is read back and checked against the configuration
// and keys in use, so a data folder cannot silently be served under another origin, domain or
// key.
//
// Leaf 0 is written under the sequencing lease, like every other leaf, with its fence
// (src/ports/LogStore.ts; docs/operations.md, "The log's appends"). Who writes it was settled
// before the keys were opened (LogCreation.ts, which spells out the first start step by step):
// the process that took the lease on the empty log, which has made its keys by now, writes it
// and releases the lease for its sequencer; the others, started at the same time on the same
// database, found leaf 0 and check it here.

import { Context, Data, Effect, Either, Option } from "effect"
import { fromUtf8, utf8 } from "../domain/bytes.js"
import {
  charterDocument, charterPayload, DEFAULT_RETENTION_DAYS, type CharterTerms
} from "../domain/charter.js"
import { decodeU64, encodeU64 } from "../domain/encoding.js"
import { AUTH_ALG, ENVELOPE_VERSION, type Envelope, type UnsignedEnvelope } from "../domain/envelope/envelope.js"
import { entryBytes } from "../domain/envelope/leaf.js"
import { signingInput } from "../domain/envelope/signature.js"
import { didKeyFromPublicKey } from "../domain/identity/didKey.js"
import { BodyStore } from "../ports/BodyStore.js"
import { Clock } from "../ports/Clock.js"
import { Crypto } from "../ports/Crypto.js"
import { Entropy } from "../ports/Entropy.js"
import { LogStore } from "../ports/LogStore.js"
import { OwnerKey } from "../ports/OwnerKey.js"
import { Signer } from "../ports/Signer.js"
import { LogCreationStatus } from "./LogCreation.js"
import { LogNotary } from "./LogNotary.js"
import { LogWriter } from "./LogWriter.js"
import { logLocation, ServiceConfig } from "./ServiceConfig.js"

export interface CharterLeaf {
  readonly envelope: Envelope
  readonly terms: CharterTerms
  /** The document served at /charter, byte for byte. */
  readonly document: Uint8Array
  /** SHA-256 of the document (leaf 0's document_hash). */
  readonly documentHash: Uint8Array
}

/** Leaf 0 disagrees with this start's configuration or keys; the service does not start. */
export class CharterMismatch extends Data.TaggedError("CharterMismatch")<{ readonly message: string }> {}

export class Charter extends Context.Tag("aics/Charter")<Charter, CharterLeaf>() {}

/** Nonce length of service-authored envelopes, in bytes. */
const NONCE_BYTES = 16

export const makeCharter = Effect.gen(function*() {
  const config = yield* ServiceConfig
  const writer = yield* LogWriter
  const store = yield* LogStore
  const bodies = yield* BodyStore
  const signer = yield* Signer
  const owner = yield* OwnerKey
  const notary = yield* LogNotary
  const crypto = yield* Crypto
  const entropy = yield* Entropy
  const clock = yield* Clock
  const creation = yield* LogCreationStatus

  const terms: CharterTerms = {
    origin: config.origin,
    instanceDomain: config.domain,
    logVkey: notary.vkey,
    policyKid: didKeyFromPublicKey(signer.policy.publicKey),
    ownerKid: owner.kid,
    noticePeriodSeconds: config.noticePeriodSeconds,
    retentionDays: DEFAULT_RETENTION_DAYS,
    mmdSeconds: config.mmdSeconds
  }

  const writeCharter = Effect.gen(function*() {
    const document = utf8(charterDocument(terms))
    const documentHash = crypto.sha256(document)
    const now = yield* clock.nowMillis
    const created = Math.floor(now / 1000)
    const unsigned: UnsignedEnvelope = {
      v: ENVELOPE_VERSION,
      origin: config.origin,
      type: "charter",
      kid: terms.policyKid,
      seq: 0,
      prev: null,
      nonce: encodeU64(yield* entropy.randomBytes(NONCE_BYTES)),
      created,
      expires: created + 600,
      payload: charterPayload(terms, encodeU64(documentHash), document.length)
    }
    const input = yield* Either.mapLeft(signingInput(unsigned), (e) => new CharterMismatch({ message: e.reason }))
    const signature = yield* signer.policy.sign(utf8(input))
    const envelope: Envelope = { ...unsigned, auth: { alg: AUTH_ALG, sig: encodeU64(signature) } }
    const leaf = yield* Either.mapLeft(entryBytes(envelope, 0, now), (e) => new CharterMismatch({ message: String(e) }))
    // The body first: a leaf must never name a body the store does not have.
    yield* bodies.put([{ digest: documentHash, bytes: document }])
    return { envelope, terms, document, documentHash, leaf } as const
  })

  if (creation._tag === "Creates") {
    // This process holds the lease on the empty log, and its keys are on disk (FileKeys.ts):
    // leaf 0 may name them now. The lease goes back once leaf 0 is durable, for the sequencer.
    const { leaf, ...charter } = yield* writeCharter
    yield* writer.append(0, [leaf], creation.fence)
    yield* creation.release
    yield* Effect.logInfo("wrote leaf 0, the charter").pipe(Effect.annotateLogs({ origin: config.origin }))
    return charter satisfies CharterLeaf
  }

  // A later start: leaf 0 must be the charter of this origin and domain under these keys.
  const [leafBytes] = yield* store.readEntries(0, 1)
  // The log is where the start found it: the data folder, or the database (never its password).
  const mismatch = (detail: string) =>
    new CharterMismatch({ message: `leaf 0 of ${logLocation(config)} ${detail}` })
  const leaf = JSON.parse(fromUtf8(leafBytes!)) as { envelope: Envelope }
  const envelope = leaf.envelope
  const payload = envelope.payload as Record<string, unknown>
  if (envelope.type !== "charter") return yield* mismatch("is not a charter")
  // The domain before the origin: AICS_ORIGIN defaults to <AICS_DOMAIN>/aics, so a start that
  // changed only AICS_DOMAIN is named by the variable it changed; and with AICS_ORIGIN set,
  // the domain (names' @name.<domain>, the witness key's name, _aics.<domain>) is checked too.
  for (const [member, expected] of [
    ["instance_domain", terms.instanceDomain], ["origin", terms.origin], ["log_vkey", terms.logVkey], ["policy_kid", terms.policyKid],
    ["owner_kid", terms.ownerKid]
  ] as const) {
    if (payload[member] !== expected) {
      return yield* mismatch(`names ${member} ${JSON.stringify(payload[member])}, but this start uses ${JSON.stringify(expected)}`)
    }
  }
  const documentHash = decodeU64(String(payload["document_hash"]))
  const document = documentHash === undefined ? Option.none() : yield* bodies.get(documentHash)
  if (documentHash === undefined || Option.isNone(document)) return yield* mismatch("names a charter document the body store lacks")
  return {
    envelope,
    terms: {
      ...terms,
      instanceDomain: String(payload["instance_domain"]),
      noticePeriodSeconds: Number(payload["notice_period_seconds"]),
      retentionDays: Number(payload["retention_days"]),
      mmdSeconds: Number(payload["mmd_seconds"])
    },
    document: document.value,
    documentHash
  } satisfies CharterLeaf
})
