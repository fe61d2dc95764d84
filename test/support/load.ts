// Pre-signed write requests and a sender that keeps each key's requests in order (a key's
// chain must arrive in seq order) while many keys write at once. Shared by the end-to-end
// write tests, the crash test and bench/write.

import { Either } from "effect"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { encodeU64 } from "../../src/domain/encoding.js"
import { signRequest } from "../../src/domain/http/messageSignature.js"
import { accepted, envelopeFor, makeAgent, postPayload, writeRequestBody, type TestAgent } from "./agents.js"

export interface SignedWrite {
  readonly kid: string
  readonly seq: number
  readonly body: Uint8Array
  readonly headers: Readonly<Record<string, string>>
}

/** `perKey` posts for each of `keys` fresh agents, signed now, valid for 300 s. */
export const presignPosts = (options: {
  readonly keys: number
  readonly perKey: number
  readonly origin: string
  readonly authority: string
  readonly label?: string
}): Array<Array<SignedWrite>> => {
  const created = Math.floor(Date.now() / 1000)
  return Array.from({ length: options.keys }, (_, k) => {
    const agent: TestAgent = makeAgent(`${options.label ?? "load"}-${k}-${created}-${Math.random()}`)
    return Array.from({ length: options.perKey }, (_, i) => {
      const post = postPayload(`post ${i} from key ${k}`)
      const envelope = envelopeFor(agent, options.origin, "post", post.payload, { created })
      accepted(agent, envelope)
      const body = writeRequestBody(envelope, post.body)
      const headers = Either.getOrThrow(signRequest({
        seed: agent.seed,
        keyid: agent.kid,
        nonce: envelope.nonce,
        created: envelope.created,
        expires: envelope.expires,
        method: "POST",
        authority: options.authority,
        path: "/v2/entries",
        body
      }, nodeCrypto))
      return {
        kid: agent.kid,
        seq: envelope.seq,
        body,
        headers: {
          "content-type": "application/json",
          "content-digest": headers["Content-Digest"],
          "signature-input": headers["Signature-Input"],
          signature: headers.Signature
        }
      }
    })
  })
}

export interface WriteResult {
  readonly write: SignedWrite
  readonly status: number
  readonly json: { entry: Record<string, any>; receipt_note: string } | undefined
  /** Milliseconds from send to answer. */
  readonly latency: number
  /** performance.now() at the answer. */
  readonly answeredAt: number
}

/**
 * Sends each key's writes in order, all keys at once. Stops a key at its first answer
 * that is not 202 (the rest of its chain cannot be accepted) or at a network error.
 */
export const sendInOrder = async (
  baseUrl: string,
  perKey: ReadonlyArray<ReadonlyArray<SignedWrite>>,
  onResult?: (result: WriteResult) => void
): Promise<Array<WriteResult>> => {
  const results: Array<WriteResult> = []
  await Promise.all(perKey.map(async (writes) => {
    for (const write of writes) {
      const started = performance.now()
      let status: number
      let json: WriteResult["json"]
      try {
        const response = await fetch(`${baseUrl}/v2/entries`, { method: "POST", headers: write.headers, body: write.body })
        status = response.status
        json = await response.json() as WriteResult["json"]
      } catch {
        return
      }
      const answeredAt = performance.now()
      const result = { write, status, json, latency: answeredAt - started, answeredAt }
      results.push(result)
      onResult?.(result)
      if (status !== 202) return
    }
  }))
  return results
}

export const percentile = (values: ReadonlyArray<number>, p: number): number => {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

export { encodeU64 }
