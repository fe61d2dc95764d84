// A pure log for governance, forum and SUP tests: PureLog (identityAgents.ts) plus the
// owner key leaf 0 names and the policy key, each submitting through the stateless checks
// of its route (checkAdminSubmission for the owner, checkEntry with ["policy"] for the
// service's own leaves) and the sequencer's decide, exactly like agents' writes.

import { Either } from "effect"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../../src/domain/bytes.js"
import { encodeU64 } from "../../src/domain/encoding.js"
import type { Signer } from "../../src/domain/entries/entryRule.js"
import { checkEntry } from "../../src/domain/write/submission.js"
import { accepted, envelopeFor, makeAgent, writeRequestBody, type TestAgent } from "./agents.js"
import { ORIGIN, PureLog, type Outcome } from "./identityAgents.js"

const ctx = { origin: ORIGIN, sha256: nodeCrypto.sha256, ed25519: nodeCrypto.ed25519 }

export class GovLog extends PureLog {
  readonly owner: TestAgent
  readonly noticePeriodSeconds = 2_592_000

  constructor(options: { readonly label?: string; readonly start?: number } = {}) {
    super(options)
    // PureLog's charter names makeAgent(`owner <label>`): the same seed, no leaf yet.
    this.owner = makeAgent(`owner ${options.label ?? ""}`)
  }

  /** Submits through the route of `signers` (["owner"] the admin routes, ["policy"] the service's own). */
  submitAs(signers: ReadonlyArray<Signer>, agent: TestAgent, type: string, payload: Record<string, unknown>, body: Uint8Array | null = null): Outcome {
    const envelope = envelopeFor(agent, ORIGIN, type, payload)
    const checked = checkEntry(writeRequestBody(envelope, body), { ...envelope, keyid: envelope.kid }, ctx, signers)
    if (Either.isLeft(checked)) return { refused: checked.left.code }
    const decision = this.decide(checked.right)
    if (Either.isLeft(decision)) return { refused: decision.left.code }
    this.state = decision.right.state
    this.leaves.push(decision.right.entryBytes)
    accepted(agent, envelope)
    return { index: decision.right.index, logged: decision.right.logged, envelope }
  }

  /** An owner operation signed by the owner key. */
  ownerOp(type: string, payload: Record<string, unknown>, body: Uint8Array | null = null): Outcome {
    return this.submitAs(["owner"], this.owner, type, payload, body)
  }

  /** A policy-signed leaf of the service. */
  policyOp(type: string, payload: Record<string, unknown>): Outcome {
    return this.submitAs(["policy"], this.policy, type, payload, null)
  }

  /** Fails the test unless accepted. */
  must(outcome: Outcome, what = "entry"): number {
    if (outcome.refused !== undefined) throw new Error(`${what} refused: ${outcome.refused}`)
    return outcome.index
  }

  /** Unix seconds of the log's clock. */
  get seconds(): number {
    return Math.floor(Math.max(this.now, this.state.lastLogged) / 1000)
  }
}

export const hashOf = (label: string): string => encodeU64(nodeCrypto.sha256(utf8(label)))

export const textBody = (text: string) => {
  const body = utf8(text)
  return { body_hash: encodeU64(nodeCrypto.sha256(body)), size: body.length, body }
}

export const pollPayload = (question: string, options: ReadonlyArray<string>, closes: number, channel = "general") => {
  const { body, ...named } = textBody(question)
  return { payload: { channel, ...named, options: [...options], closes }, body }
}

export const taskPayload = (text: string, reward: number, closes: number) => {
  const { body, ...named } = textBody(text)
  return { payload: { ...named, reward, closes }, body }
}

/** An audit report's payload and its document (the request's body, named by report_hash). */
export const auditReport = (subject: "incident" | "freeze" | "order", text: string) =>
  ({ payload: { kind: "audit", subject, report_hash: hashOf(text) }, body: utf8(text) })

/** A completion's payload and its result (the request's body, named by result_hash). */
export const completion = (quoteIndex: number, text: string) =>
  ({ payload: { quote_index: quoteIndex, result_hash: hashOf(text) }, body: utf8(text) })

/** A policy document (and its payload members), citing the order when given. */
export const policyDocument = (label: string, kind: "change" | "card", notBefore: number, cites?: string) => {
  const body = utf8(`policy ${label}${cites === undefined ? "" : `\nexecutes order ${cites}`}\n`)
  return { payload: { kind, document_hash: encodeU64(nodeCrypto.sha256(body)), size: body.length, not_before: notBefore }, body }
}

export { makeAgent, type TestAgent }
