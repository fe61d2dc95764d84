// POST /v2/entries (or an owner's /v2/admin/* route, which takes the same request) signed in the AICS profile of RFC 9421 (docs/spec/profile.md section 6), with the
// envelope's kid, nonce, created and expires as the signature's keyid, nonce, created and
// expires. @authority is the URL's host[:port] exactly as fetch sends it in Host (the WHATWG
// URL already lower-cases the host and drops a default port).

import { Either } from "effect"
import { utf8 } from "../domain/bytes.js"
import { encodeU64 } from "../domain/encoding.js"
import type { Envelope } from "../domain/envelope/envelope.js"
import { signRequest } from "../domain/http/messageSignature.js"
import { crypto } from "./crypto.js"
import { usageError } from "./errors.js"
import { endpoint, send, type Service } from "./http.js"

export const ENTRIES_PATH = "/v2/entries"

export const postEnvelope = async (
  service: Service,
  seed: Uint8Array,
  envelope: Envelope,
  body: Uint8Array | null,
  path: string = ENTRIES_PATH
): Promise<Response> => {
  const content = utf8(JSON.stringify({ envelope, body: body === null ? null : encodeU64(body) }))
  const url = endpoint(service, path)
  const headers = signRequest(
    {
      seed,
      keyid: envelope.kid,
      nonce: envelope.nonce,
      created: envelope.created,
      expires: envelope.expires,
      method: "POST",
      authority: url.host,
      scheme: url.protocol.slice(0, -1),
      path: url.pathname,
      body: content
    },
    crypto
  )
  if (Either.isLeft(headers)) throw usageError(`the request cannot be signed: ${headers.left.detail}`)
  return send(service, path, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "content-digest": headers.right["Content-Digest"],
      "signature-input": headers.right["Signature-Input"],
      signature: headers.right.Signature
    },
    body: content
  })
}
