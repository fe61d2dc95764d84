// RFC 9530 section 2: the Content-Digest field, a Dictionary (RFC 8941 section 3.2) whose
// keys name a hash algorithm (the IANA "Hash Algorithms for HTTP Digest Fields" registry)
// and whose values are the Byte Sequence digest of the message content.
//
// docs/spec/profile.md section 6: AICS sends `sha-256=:<B64 of SHA-256(body)>:` on every signed
// request, and a request without a body digests the empty string.
//
// Checking a received field: it must parse strictly (structuredFields.ts), every member
// must be a Byte Sequence (RFC 9530 section 2, "Member-values MUST be of type sf-binary"),
// the `sha-256` member must be present and equal to SHA-256 of the raw received body.
// Other algorithms (sha-512, ...) are allowed and ignored, as RFC 9530 section 2 lets a
// recipient do: the domain's crypto port offers SHA-256 only, and one verified digest
// that the signature covers is what binds the body.

import * as Data from "effect/Data"
import * as Either from "effect/Either"
import { equal } from "../bytes.js"
import type { Sha256 } from "../crypto.js"
import { byteSequence, item, parseDictionary, serializeDictionary } from "./structuredFields.js"

export const SHA_256_KEY = "sha-256"

/** The Content-Digest value AICS sends for a body: `sha-256=:<B64>:`. */
export const contentDigest = (sha256: Sha256, body: Uint8Array): string =>
  serializeDictionary([{ key: SHA_256_KEY, value: item(byteSequence(sha256(body))) }])

/** Why a Content-Digest field does not vouch for a body. */
export class ContentDigestError extends Data.TaggedError("ContentDigestError")<{
  /** malformed: not a Dictionary of Byte Sequences; missing: no sha-256 member; mismatch: another digest. */
  readonly reason: "malformed" | "missing" | "mismatch"
  readonly detail: string
}> {}

/**
 * The digests of a Content-Digest field value by algorithm key, or an error if the value
 * is not a Dictionary whose members are all parameter-less Byte Sequences.
 */
export const parseContentDigest = (field: string): Either.Either<ReadonlyMap<string, Uint8Array>, ContentDigestError> =>
  Either.flatMap(
    Either.mapLeft(parseDictionary(field), (e) => new ContentDigestError({ reason: "malformed", detail: e.reason })),
    (dictionary) => {
      const digests = new Map<string, Uint8Array>()
      for (const member of dictionary) {
        const value = member.value
        // No parameters are defined on digests; one carried anyway would be unsigned
        // meaning attached to a signed value, so it is refused rather than ignored.
        if (value._tag !== "Item" || value.value._tag !== "ByteSequence" || value.params.length > 0) {
          return Either.left(
            new ContentDigestError({ reason: "malformed", detail: `member ${member.key} is not a byte sequence` })
          )
        }
        digests.set(member.key, value.value.value)
      }
      return Either.right(digests)
    }
  )

/** Checks a received Content-Digest field against the raw received body bytes. */
export const checkContentDigest = (
  sha256: Sha256,
  field: string,
  body: Uint8Array
): Either.Either<void, ContentDigestError> =>
  Either.flatMap(parseContentDigest(field), (digests) => {
    const claimed = digests.get(SHA_256_KEY)
    if (claimed === undefined) {
      return Either.left(new ContentDigestError({ reason: "missing", detail: "Content-Digest has no sha-256 member" }))
    }
    if (!equal(claimed, sha256(body))) {
      return Either.left(
        new ContentDigestError({ reason: "mismatch", detail: "the sha-256 Content-Digest is not the digest of the body" })
      )
    }
    return Either.right(undefined)
  })
