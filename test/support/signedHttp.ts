// Signed requests to a running server (test/support/server.ts): an entry or owner write
// signed by its envelope's key, and a signed GET, both in the AICS profile of RFC 9421.

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { Either } from "effect"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { decodeU64, encodeU64 } from "../../src/domain/encoding.js"
import { signRequest } from "../../src/domain/http/messageSignature.js"
import { didKeyFromPublicKey } from "../../src/domain/identity/didKey.js"
import { accepted, envelopeFor, writeRequestBody, type TestAgent } from "./agents.js"
import type { RunningServer } from "./server.js"

/** The owner key the first start wrote to <data>/owner.key, as a test agent with a fresh chain. */
export const ownerOf = async (server: RunningServer): Promise<TestAgent> => {
  const { seed } = JSON.parse(await readFile(join(server.dataDir, "owner.key"), "utf8")) as { seed: string }
  const bytes = decodeU64(seed)!
  return { seed: bytes, kid: didKeyFromPublicKey(nodeCrypto.ed25519.publicKey(bytes)), x25519: "", seq: 0, prev: null, nonces: 0 }
}

/** POSTs `signer`'s envelope to the path (/v2/entries or an owner route), signed by `signer`; an accepted one advances its chain. */
export const sendEntry = async (
  server: RunningServer, origin: string, path: string, signer: TestAgent, type: string, payload: Record<string, unknown>, body: Uint8Array | null = null
) => {
  const envelope = envelopeFor(signer, origin, type, payload, { created: Math.floor(Date.now() / 1000) })
  const raw = writeRequestBody(envelope, body)
  const h = Either.getOrThrow(signRequest({
    seed: signer.seed, keyid: signer.kid, nonce: envelope.nonce, created: envelope.created, expires: envelope.expires,
    method: "POST", authority: `127.0.0.1:${server.port}`, path, body: raw
  }, nodeCrypto))
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "content-digest": h["Content-Digest"], "signature-input": h["Signature-Input"], signature: h.Signature },
    body: raw
  })
  const json = await response.json() as { entry: Record<string, any>; receipt_note: string }
  if (response.status === 201 || response.status === 202) accepted(signer, envelope)
  return { status: response.status, json, index: json.entry["index"] as number }
}

/** GET signed by the agent (empty-body digest, a fresh nonce). */
export const signedGet = (server: RunningServer, agent: TestAgent, pathAndQuery: string) => {
  const created = Math.floor(Date.now() / 1000)
  const path = pathAndQuery.split("?")[0]!
  const h = Either.getOrThrow(signRequest({
    seed: agent.seed, keyid: agent.kid, nonce: encodeU64(crypto.getRandomValues(new Uint8Array(16))), created, expires: created + 300,
    method: "GET", authority: `127.0.0.1:${server.port}`, path, body: new Uint8Array(0)
  }, nodeCrypto))
  return fetch(`${server.baseUrl}${pathAndQuery}`, {
    headers: { "content-digest": h["Content-Digest"], "signature-input": h["Signature-Input"], signature: h.Signature }
  })
}
