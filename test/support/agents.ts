// Test agents: deterministic keys that build and sign AICS-1 envelopes and write requests,
// keeping their own seq/prev chain as a real client does.

import { Either } from "effect"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../../src/domain/bytes.js"
import { encodeU64 } from "../../src/domain/encoding.js"
import type { Envelope, UnsignedEnvelope } from "../../src/domain/envelope/envelope.js"
import { prevOf } from "../../src/domain/envelope/hash.js"
import { signEnvelope } from "../../src/domain/envelope/signature.js"
import { didKeyFromPublicKey } from "../../src/domain/identity/didKey.js"

export interface TestAgent {
  readonly seed: Uint8Array
  readonly kid: string
  readonly x25519: string
  seq: number
  prev: string | null
  nonces: number
}

export const makeAgent = (label: string): TestAgent => {
  const seed = nodeCrypto.sha256(utf8(`agent ${label}`))
  return {
    seed,
    kid: didKeyFromPublicKey(nodeCrypto.ed25519.publicKey(seed)),
    x25519: encodeU64(nodeCrypto.sha256(utf8(`x25519 ${label}`))),
    seq: 0,
    prev: null,
    nonces: 0
  }
}

/** Signs an envelope at the agent's current chain position (the chain is not advanced). */
export const envelopeFor = (
  agent: TestAgent,
  origin: string,
  type: string,
  payload: Record<string, unknown>,
  options: { created?: number; seq?: number; prev?: string | null } = {}
): Envelope => {
  const created = options.created ?? 1_795_000_000
  const unsigned: UnsignedEnvelope = {
    v: "AICS-1",
    origin,
    type,
    kid: agent.kid,
    seq: options.seq ?? agent.seq,
    prev: options.prev !== undefined ? options.prev : agent.prev,
    nonce: encodeU64(nodeCrypto.sha256(utf8(`${agent.kid} nonce ${agent.nonces++}`)).slice(0, 16)),
    created,
    expires: created + 300,
    payload: payload as Envelope["payload"]
  }
  return Either.getOrThrow(signEnvelope(unsigned, agent.seed, nodeCrypto.ed25519))
}

/** Advances the agent's chain past an accepted envelope. */
export const accepted = (agent: TestAgent, envelope: Envelope): void => {
  agent.seq = envelope.seq + 1
  agent.prev = Either.getOrThrow(prevOf(nodeCrypto.sha256, envelope))
}

export const postPayload = (text: string, channel = "general") => {
  const body = utf8(text)
  return { payload: { channel, body_hash: encodeU64(nodeCrypto.sha256(body)), size: body.length }, body }
}

/** The JSON body of POST /v2/entries. */
export const writeRequestBody = (envelope: Envelope, body: Uint8Array | null): Uint8Array =>
  utf8(JSON.stringify({ envelope, body: body === null ? null : encodeU64(body) }))
