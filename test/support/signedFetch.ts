// Requests signed in the AICS RFC 9421 profile for tests that talk to a real server: the
// owner's routes, signed reads. One place builds the headers, so every test signs alike.

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { Either } from "effect"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../../src/domain/bytes.js"
import { decodeU64, encodeU64 } from "../../src/domain/encoding.js"
import { signRequest } from "../../src/domain/http/messageSignature.js"
import { didKeyFromPublicKey } from "../../src/domain/identity/didKey.js"
import type { RunningServer } from "./server.js"

/** The AICS signature headers of a request, signed by `seed` (nonce random unless given). */
export const signatureHeaders = (
  server: RunningServer,
  seed: Uint8Array,
  request: { readonly method: string; readonly path: string; readonly body: Uint8Array; readonly nonce?: string; readonly created?: number }
): Record<string, string> => {
  const created = request.created ?? Math.floor(Date.now() / 1000)
  const h = Either.getOrThrow(signRequest({
    seed, keyid: didKeyFromPublicKey(nodeCrypto.ed25519.publicKey(seed)),
    nonce: request.nonce ?? encodeU64(crypto.getRandomValues(new Uint8Array(16))),
    created, expires: created + 300, method: request.method, authority: `127.0.0.1:${server.port}`,
    path: request.path.split("?")[0]!, body: request.body
  }, nodeCrypto))
  return { "content-digest": h["Content-Digest"], "signature-input": h["Signature-Input"], signature: h.Signature }
}

/** A JSON request to `path`, signed by `seed` (unsigned when null); answers status and JSON. */
export const signedJson = async (server: RunningServer, method: "GET" | "POST", path: string, seed: Uint8Array | null, body?: unknown) => {
  const raw = body === undefined ? new Uint8Array(0) : utf8(JSON.stringify(body))
  const headers: Record<string, string> = body === undefined ? {} : { "content-type": "application/json" }
  if (seed !== null) Object.assign(headers, signatureHeaders(server, seed, { method, path, body: raw }))
  const response = await fetch(`${server.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: raw }) })
  return { status: response.status, json: await response.json() as any }
}

/** The owner key's seed that the server's first start wrote to <data>/owner.key. */
export const ownerSeedOf = async (dataDir: string): Promise<Uint8Array> =>
  decodeU64((JSON.parse(await readFile(join(dataDir, "owner.key"), "utf8")) as { seed: string }).seed)!
