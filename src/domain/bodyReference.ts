// Which off-leaf body a payload names (docs/spec/service.md "Entry wire bundle", docs/spec/profile.md section 4).
// A body named by `body_hash`, `ct_hash` or `document_hash` together with a `size` rides in
// the wire bundle's `body_or_ct`; an owner's document named by its hash alone
// (`report_hash` of an audit report, `result_hash` of a completion; entryRule.ts, kind
// `document`) is fetched at /v2/bodies/{digest}. Both get X-AICS-Body-Status.

import { decodeU64 } from "./encoding.js"

export const RIDING_BODY_MEMBERS = ["body_hash", "ct_hash", "document_hash"] as const
export const BODY_HASH_MEMBERS = [...RIDING_BODY_MEMBERS, "report_hash", "result_hash"] as const

export interface BodyReference {
  readonly member: (typeof BODY_HASH_MEMBERS)[number]
  /** SHA-256 of the body. */
  readonly digest: Uint8Array
  /** Declared size in bytes, when the payload gives one. */
  readonly size: number | undefined
  /** Whether the body rides in the wire bundle. */
  readonly rides: boolean
}

const hashOf = (value: unknown): Uint8Array | undefined => {
  if (typeof value !== "string") return undefined
  const digest = decodeU64(value)
  return digest !== undefined && digest.length === 32 ? digest : undefined
}

/** The body a payload names, or undefined when it names none. */
export const bodyReference = (payload: Readonly<Record<string, unknown>>): BodyReference | undefined => {
  const size = typeof payload["size"] === "number" && Number.isSafeInteger(payload["size"]) && payload["size"] >= 0
    ? payload["size"]
    : undefined
  for (const member of BODY_HASH_MEMBERS) {
    const digest = hashOf(payload[member])
    if (digest === undefined) continue
    const rides = (RIDING_BODY_MEMBERS as ReadonlyArray<string>).includes(member) && size !== undefined
    return { member, digest, size, rides }
  }
  return undefined
}
