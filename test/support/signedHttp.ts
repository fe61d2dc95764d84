// Signed requests to a running server (test/support/server.ts) in the AICS profile of
// RFC 9421: one place builds the signature headers, so every test signs alike. An entry or
// owner write signed by its envelope's key, a signed GET, and a JSON request signed by a
// bare seed (or unsigned) for the owner's routes.

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { Either } from "effect"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../../src/domain/bytes.js"
import { decodeU64, encodeU64 } from "../../src/domain/encoding.js"
import { signRequest } from "../../src/domain/http/messageSignature.js"
import { didKeyFromPublicKey } from "../../src/domain/identity/didKey.js"
import { accepted, envelopeFor, writeRequestBody, type TestAgent } from "./agents.js"
import { afterAll, beforeAll } from "vitest"
import { removeDir, startServer, tempDataDir, type RunningServer } from "./server.js"

/** The AICS signature headers of a request signed by `seed` (a random nonce and now, unless given). */
export const signatureHeaders = (
  server: RunningServer,
  seed: Uint8Array,
  request: {
    readonly method: string
    readonly path: string
    readonly body: Uint8Array
    readonly nonce?: string
    readonly created?: number
    readonly expires?: number
  }
): Record<string, string> => {
  const created = request.created ?? Math.floor(Date.now() / 1000)
  const h = Either.getOrThrow(signRequest({
    seed, keyid: didKeyFromPublicKey(nodeCrypto.ed25519.publicKey(seed)),
    nonce: request.nonce ?? encodeU64(crypto.getRandomValues(new Uint8Array(16))),
    created, expires: request.expires ?? created + 300, method: request.method, authority: `127.0.0.1:${server.port}`,
    path: request.path.split("?")[0]!, body: request.body
  }, nodeCrypto))
  return { "content-digest": h["Content-Digest"], "signature-input": h["Signature-Input"], signature: h.Signature }
}

/** The owner key's seed that the server's first start wrote to <data>/owner.key. */
export const ownerSeedOf = async (dataDir: string): Promise<Uint8Array> =>
  decodeU64((JSON.parse(await readFile(join(dataDir, "owner.key"), "utf8")) as { seed: string }).seed)!

/** A test agent of a bare seed, with a fresh chain. */
export const agentFromSeed = (seed: Uint8Array): TestAgent =>
  ({ seed, kid: didKeyFromPublicKey(nodeCrypto.ed25519.publicKey(seed)), x25519: "", seq: 0, prev: null, nonces: 0 })

/** The owner key the first start wrote to <data>/owner.key, as a test agent with a fresh chain. */
export const ownerOf = async (server: RunningServer): Promise<TestAgent> => agentFromSeed(await ownerSeedOf(server.dataDir))

/**
 * A server of this test file's own, with its owner key: started on a fresh data folder
 * before the file's tests, stopped and its folder removed after them. Read `server` and
 * `owner` inside the tests (they are set once beforeAll has run).
 */
export const ownedServerForFile = () => {
  const file = {} as { server: RunningServer; owner: TestAgent }
  beforeAll(async () => {
    file.server = await startServer({ dataDir: await tempDataDir() })
    file.owner = await ownerOf(file.server)
  })
  afterAll(async () => {
    await file.server?.stop()
    if (file.server !== undefined) await removeDir(file.server.dataDir)
  })
  return file
}

/**
 * POSTs `signer`'s envelope to the path (/v2/entries or an owner route), signed by
 * `signer` unless `signed` is false; an accepted one advances its chain.
 */
export const sendEntry = async (
  server: RunningServer, origin: string, path: string, signer: TestAgent, type: string, payload: Record<string, unknown>,
  body: Uint8Array | null = null, signed = true
) => {
  const envelope = envelopeFor(signer, origin, type, payload, { created: Math.floor(Date.now() / 1000) })
  const raw = writeRequestBody(envelope, body)
  const headers: Record<string, string> = { "content-type": "application/json" }
  if (signed) {
    Object.assign(headers, signatureHeaders(server, signer.seed, {
      method: "POST", path, body: raw, nonce: envelope.nonce, created: envelope.created, expires: envelope.expires
    }))
  }
  const response = await fetch(`${server.baseUrl}${path}`, { method: "POST", headers, body: raw })
  const json = await response.json() as { entry: Record<string, any>; receipt_note: string }
  if (response.status === 201 || response.status === 202) accepted(signer, envelope)
  return { status: response.status, json, index: json.entry["index"] as number, location: response.headers.get("location") }
}

/** GET signed by the agent (empty-body digest, a fresh nonce unless given). */
export const signedGet = (server: RunningServer, agent: TestAgent, pathAndQuery: string, nonce?: string) =>
  fetch(`${server.baseUrl}${pathAndQuery}`, {
    headers: signatureHeaders(server, agent.seed, { method: "GET", path: pathAndQuery, body: new Uint8Array(0), ...(nonce === undefined ? {} : { nonce }) })
  })

/** A JSON request to `path`, signed by `seed` (unsigned when null); answers status and JSON. */
export const signedJson = async (server: RunningServer, method: "GET" | "POST", path: string, seed: Uint8Array | null, body?: unknown) => {
  const raw = body === undefined ? new Uint8Array(0) : utf8(JSON.stringify(body))
  const headers: Record<string, string> = body === undefined ? {} : { "content-type": "application/json" }
  if (seed !== null) Object.assign(headers, signatureHeaders(server, seed, { method, path, body: raw }))
  const response = await fetch(`${server.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: raw }) })
  return { status: response.status, json: await response.json() as any }
}
