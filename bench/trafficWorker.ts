// The traffic generator's signing and checking, on a worker thread (bench/trafficGenerate.ts):
// it signs each envelope with its agent's key (trafficKeys.ts) and runs checkSubmission on
// the request POST /v2/entries would receive, then hands back what a submission that passed
// the stateless checks carries between processes (domain/write/relayed.ts: the envelope's
// JCS and the body), which the sequencing thread rebuilds with submissionFromRelayed, as the
// service's sequencer does with what another node relayed. The event loop that sequences
// is left the sequencer's work, as the service's check workers leave it.

import { parentPort, workerData } from "node:worker_threads"
import { Either } from "effect"
import { nodeCrypto } from "../src/adapters/crypto/nodeCrypto.js"
import { encodeU64 } from "../src/domain/encoding.js"
import type { Envelope, UnsignedEnvelope } from "../src/domain/envelope/envelope.js"
import { signEnvelope } from "../src/domain/envelope/signature.js"
import { checkSubmission } from "../src/domain/write/submission.js"
import { writeRequestBody } from "../test/support/agents.js"
import { makeSigner } from "./trafficKeys.js"

/** An entry to sign: the envelope without its nonce, times and signature. */
export interface SignJob {
  readonly id: number
  readonly seed: Uint8Array
  readonly envelope: Omit<UnsignedEnvelope, "nonce" | "created" | "expires">
  readonly body: Uint8Array | null
}

export type SignAnswer =
  | { readonly id: number; readonly envelopeJcs: string; readonly body: Uint8Array | null }
  | { readonly id: number; readonly refused: string; readonly detail: string }

/** How long a signed envelope is valid, as the tests' agents sign them. */
const VALID_SECONDS = 300

const signer = makeSigner()
const context = { origin: (workerData as { origin: string }).origin, sha256: nodeCrypto.sha256, ed25519: nodeCrypto.ed25519 }

const answer = (job: SignJob, now: number): SignAnswer => {
  const unsigned: UnsignedEnvelope = {
    ...job.envelope, nonce: encodeU64(crypto.getRandomValues(new Uint8Array(16))), created: now, expires: now + VALID_SECONDS
  }
  const envelope: Envelope = Either.getOrThrow(signEnvelope(unsigned, job.seed, signer))
  const checked = checkSubmission(writeRequestBody(envelope, job.body), {
    keyid: envelope.kid, nonce: envelope.nonce, created: envelope.created, expires: envelope.expires
  }, context)
  return Either.isLeft(checked)
    ? { id: job.id, refused: checked.left.code, detail: checked.left.detail }
    : { id: job.id, envelopeJcs: checked.right.envelopeJcs, body: checked.right.body?.bytes ?? null }
}

parentPort!.on("message", (jobs: ReadonlyArray<SignJob>) => {
  const now = Math.floor(Date.now() / 1000)
  parentPort!.postMessage(jobs.map((job) => answer(job, now)))
})
