// The HTTP members of test/vectors/profile/vectors.json (docs/spec/profile.md section 9): a signed
// POST /v2/entries and a signed GET /v2/inbox/status, typed here because the shared
// loader (../profileVectors.ts) does not declare them.

import { fromHex, utf8 } from "../../../src/domain/bytes.js"
import { profileVectors } from "../profileVectors.js"

export interface SignedRequestVector {
  readonly method: string
  readonly url: string
  readonly body?: string
  readonly headers: {
    readonly "Content-Digest": string
    readonly "Signature-Input": string
    readonly Signature: string
  }
  readonly signature_base?: string
}

const raw = profileVectors as unknown as {
  readonly request: SignedRequestVector
  readonly signed_read: SignedRequestVector
}

export const writeVector = raw.request
export const readVector = raw.signed_read
export const agentSeed = fromHex(profileVectors.agent.ed25519_seed_hex)!
export const agentKid = profileVectors.agent.kid

/** The vector's request as the parts signRequest and checkAicsSignature take. */
export const partsOf = (vector: SignedRequestVector) => {
  const url = new URL(vector.url)
  return {
    method: vector.method,
    authority: url.host,
    path: url.pathname,
    query: url.search.replace(/^\?/, ""),
    body: utf8(vector.body ?? "")
  }
}
