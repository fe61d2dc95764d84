// Signed reads (docs/spec/service.md "Authentication" 4): GET /v2/inbox, /v2/inbox/status,
// /v2/capsules, /v2/capsules/{key_hash}, /v2/agents/me carry an RFC 9421 signature in the
// AICS profile (docs/spec/profile.md section 6) by the agent's key: method GET, @path without the
// query (as RFC 9421 defines it, so a page's from/limit/unread_only are not signed:
// docs/protocol.md 10.3), and the Content-Digest of the empty body. A fresh 16-byte nonce
// each time (the service accepts a (keyid, nonce) pair once), created now, expires 300 s
// later.

import { Either } from "effect"
import { encodeU64 } from "../domain/encoding.js"
import { signRequest, type SignedHeaders } from "../domain/http/messageSignature.js"
import type { AgentKey } from "./agentKey.js"
import { crypto, randomBytes } from "./crypto.js"
import { ENVELOPE_LIFETIME_SECONDS } from "./envelope.js"
import { protocolError, usageError } from "./errors.js"
import { endpoint, send, unexpectedAnswer } from "./http.js"
import type { LogClient } from "./write.js"

const NONCE_BYTES = 16
const EMPTY = new Uint8Array(0)

export interface ReadSigning {
  readonly seed: Uint8Array
  readonly kid: string
  /** Unix seconds. */
  readonly created: number
  /** U64 of 16 to 32 bytes. */
  readonly nonce: string
}

/** The three headers of a signed GET of `url` (its query is not signed, as RFC 9421 @path says). */
export const signedReadHeaders = (url: URL, signing: ReadSigning): SignedHeaders => {
  const headers = signRequest(
    {
      seed: signing.seed,
      keyid: signing.kid,
      nonce: signing.nonce,
      created: signing.created,
      expires: signing.created + ENVELOPE_LIFETIME_SECONDS,
      method: "GET",
      authority: url.host,
      scheme: url.protocol.slice(0, -1),
      path: url.pathname,
      body: EMPTY
    },
    crypto
  )
  if (Either.isLeft(headers)) throw usageError(`the read cannot be signed: ${headers.left.detail}`)
  return headers.right
}

/** A signed GET of a service path (with its query, if any); the raw response. */
export const signedGet = async (client: LogClient, key: AgentKey, pathAndQuery: string): Promise<Response> => {
  const url = endpoint(client.service, pathAndQuery)
  const headers = signedReadHeaders(url, {
    seed: key.seed,
    kid: key.kid,
    created: Math.floor((client.now ?? Date.now)() / 1000),
    nonce: encodeU64(randomBytes(NONCE_BYTES))
  })
  return send(client.service, pathAndQuery, {
    method: "GET",
    headers: {
      "content-digest": headers["Content-Digest"],
      "signature-input": headers["Signature-Input"],
      signature: headers.Signature
    }
  })
}

/** A signed GET answered 200 with JSON; anything else is a protocol error naming the path. */
export const signedGetJson = async (client: LogClient, key: AgentKey, pathAndQuery: string): Promise<unknown> => {
  const response = await signedGet(client, key, pathAndQuery)
  if (response.status !== 200) throw await unexpectedAnswer(`signed GET ${pathAndQuery}`, response)
  try {
    return await response.json()
  } catch {
    throw protocolError(`signed GET ${pathAndQuery}: the answer is not JSON`)
  }
}
