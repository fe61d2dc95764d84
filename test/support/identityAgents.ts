// A pure log for identity and messaging tests: leaf 0 is a real charter folded in, then
// every write goes through the stateless checks (checkSubmission) and the sequencer's
// decision (decide), exactly as POST /v2/entries does, with the accepted leaves kept so a
// test can fold them again or cut them into tiles. Agents come from agents.ts and keep
// their own seq/prev chains.

import { Either } from "effect"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { charterDocument, charterPayload } from "../../src/domain/charter.js"
import { utf8 } from "../../src/domain/bytes.js"
import { encodeU64 } from "../../src/domain/encoding.js"
import type { Envelope } from "../../src/domain/envelope/envelope.js"
import { entryBytes } from "../../src/domain/envelope/leaf.js"
import { rotationMessage } from "../../src/domain/identity/possession.js"
import { decodeLeaf, foldEntry } from "../../src/domain/write/applyEntry.js"
import { decide } from "../../src/domain/write/decide.js"
import { emptyLogState, type LogState } from "../../src/domain/write/logState.js"
import type { RefusalCode } from "../../src/domain/write/refusal.js"
import { checkSubmission, type Submission } from "../../src/domain/write/submission.js"
import { accepted, envelopeFor, makeAgent, writeRequestBody, type TestAgent } from "./agents.js"
import { SlicedDecisions } from "./slicedDecisions.js"

export const ORIGIN = "identity.test/aics"
export const INSTANCE_DOMAIN = "identity.test"
export const START = 1_795_000_000_000
const ctx = { origin: ORIGIN, sha256: nodeCrypto.sha256, ed25519: nodeCrypto.ed25519 }

export type Outcome =
  | { readonly refused: RefusalCode; readonly index?: undefined; readonly logged?: undefined }
  | { readonly refused?: undefined; readonly index: number; readonly logged: number; readonly envelope: Envelope }

export class PureLog {
  state: LogState
  readonly leaves: Array<Uint8Array> = []
  now: number
  readonly policy: TestAgent
  /** Every decision again on a slice of a projection store (slicedDecisions.ts). */
  readonly sliced = new SlicedDecisions()

  constructor(options: { readonly retentionDays?: number; readonly label?: string; readonly start?: number } = {}) {
    this.now = options.start ?? START
    this.policy = makeAgent(`policy ${options.label ?? ""}`)
    const terms = {
      origin: ORIGIN,
      instanceDomain: INSTANCE_DOMAIN,
      logVkey: `${ORIGIN}+00000000+AQ`,
      policyKid: this.policy.kid,
      ownerKid: makeAgent(`owner ${options.label ?? ""}`).kid,
      noticePeriodSeconds: 2_592_000,
      retentionDays: options.retentionDays ?? 90,
      mmdSeconds: 1
    }
    const document = utf8(charterDocument(terms))
    const payload = charterPayload(terms, encodeU64(nodeCrypto.sha256(document)), document.length)
    const envelope = envelopeFor(this.policy, ORIGIN, "charter", payload)
    const bytes = Either.getOrThrow(entryBytes(envelope, 0, this.now))
    this.state = Either.getOrThrow(foldEntry(nodeCrypto.sha256, emptyLogState, bytes))
    this.sliced.apply(Either.getOrThrow(decodeLeaf(nodeCrypto.sha256, bytes, 0)))
    this.leaves.push(bytes)
    accepted(this.policy, envelope)
  }

  /** Signs and submits an envelope of the agent's; an accepted one advances its chain. */
  submit(agent: TestAgent, type: string, payload: Record<string, unknown>, body: Uint8Array | null = null): Outcome {
    return this.submitEnvelope(agent, envelopeFor(agent, ORIGIN, type, payload), body)
  }

  submitEnvelope(agent: TestAgent, envelope: Envelope, body: Uint8Array | null): Outcome {
    const checked = checkSubmission(writeRequestBody(envelope, body), { ...envelope, keyid: envelope.kid }, ctx)
    if (Either.isLeft(checked)) return { refused: checked.left.code }
    const decision = this.decide(checked.right)
    if (Either.isLeft(decision)) return { refused: decision.left.code }
    this.state = decision.right.state
    this.leaves.push(decision.right.entryBytes)
    accepted(agent, envelope)
    return { index: decision.right.index, logged: decision.right.logged, envelope }
  }

  /** The sequencer's decision on the whole state, checked against the one on a slice. */
  decide(submission: Submission) {
    const decision = decide(this.state, submission, this.now)
    this.sliced.check(decision, submission, this.now)
    return decision
  }

  /** Like submit, but fails the test unless the entry is accepted. */
  accept(agent: TestAgent, type: string, payload: Record<string, unknown>, body: Uint8Array | null = null): number {
    const outcome = this.submit(agent, type, payload, body)
    if (outcome.refused !== undefined) throw new Error(`${type} refused: ${outcome.refused}`)
    return outcome.index
  }

  /** The state folded from the accepted leaves, from scratch. */
  fold(): LogState {
    let state = emptyLogState
    for (const bytes of this.leaves) state = Either.getOrThrow(foldEntry(nodeCrypto.sha256, state, bytes))
    return state
  }
}

export const claimPayload = (name: string, agent: TestAgent, recovery?: TestAgent) => ({
  name,
  x25519: agent.x25519,
  ...(recovery === undefined ? {} : { recovery: recovery.kid })
})

/** A key.rotate payload with the new key's proof of possession over prevKid (the name's current key). */
export const rotatePayload = (name: string, newAgent: TestAgent, prevKid: string, origin = ORIGIN) => ({
  name,
  new_kid: newAgent.kid,
  new_sig: encodeU64(nodeCrypto.ed25519.sign(newAgent.seed, rotationMessage(name, newAgent.kid, origin, prevKid)))
})

/** A fresh X25519 key (U64) for key.x25519. */
export const x25519Key = (label: string): string => encodeU64(nodeCrypto.sha256(utf8(`x25519 key ${label}`)))

/** Bytes standing for HPKE ciphertext: the service only hashes and stores them. */
export const ciphertext = (label: string, size = 48): Uint8Array => {
  const out = new Uint8Array(size)
  const seed = nodeCrypto.sha256(utf8(label))
  for (let i = 0; i < size; i++) out[i] = seed[i % 32]! ^ (i & 0xff)
  return out
}

export const dmPayload = (to: string, grantIndex: number, x25519Index: number, ct: Uint8Array) => ({
  payload: { to, grant_index: grantIndex, ct_hash: encodeU64(nodeCrypto.sha256(ct)), size: ct.length, x25519_index: x25519Index },
  body: ct
})

/** A capsule write to the slot named by a slot key (slot = U64(SHA-256(slot key))). */
export const capsulePayload = (slotKey: string, ct: Uint8Array) => ({
  payload: { slot: slotOf(slotKey), ct_hash: encodeU64(nodeCrypto.sha256(ct)), size: ct.length },
  body: ct
})

export const slotOf = (slotKey: string): string => encodeU64(nodeCrypto.sha256(utf8(slotKey)))

export { makeAgent, type TestAgent }
