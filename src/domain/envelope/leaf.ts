// docs/spec/profile.md section 4 (AICS-1 section 12.1): the bytes of a log entry.
//   entry_bytes = UTF-8 of JCS({"envelope": <envelope>, "index": <leaf index>, "logged": <ms>})
// at most 65,535 bytes, because a C2SP tlog-tiles entry bundle prefixes each entry with
// its length in 2 bytes. The leaf hash is RFC 6962 SHA-256(0x00 || entry_bytes)
// (tlog/hasher.ts). The index and time are inside the leaf so a leaf cannot be replayed
// at another position or claimed to be logged at another time.

import * as Data from "effect/Data"
import * as Either from "effect/Either"
import { utf8 } from "../bytes.js"
import type { Envelope } from "./envelope.js"
import { jcsBytes, type JcsError } from "./jcs.js"

export const MAX_ENTRY_BYTES = 0xffff

export class EntryTooLarge extends Data.TaggedError("EntryTooLarge")<{ readonly size: number }> {}

/** The entry bytes of an envelope sequenced at `index` at `logged` (Unix ms). */
export const entryBytes = (
  envelope: Envelope,
  index: number,
  logged: number
): Either.Either<Uint8Array, JcsError | EntryTooLarge> =>
  Either.flatMap(jcsBytes({ envelope, index, logged }), (bytes) =>
    bytes.length > MAX_ENTRY_BYTES ? Either.left(new EntryTooLarge({ size: bytes.length })) : Either.right(bytes)
  )

/**
 * The same bytes as entryBytes, from the envelope's JCS text already computed: the members
 * "envelope", "index", "logged" are in JCS order and the envelope's JCS is canonical as it
 * stands, so concatenation is JCS. It spares the sequencer a second canonicalisation.
 */
export const entryBytesFromJcs = (
  envelopeJcs: string,
  index: number,
  logged: number
): Either.Either<Uint8Array, EntryTooLarge> => {
  const bytes = utf8(`{"envelope":${envelopeJcs},"index":${index},"logged":${logged}}`)
  return bytes.length > MAX_ENTRY_BYTES ? Either.left(new EntryTooLarge({ size: bytes.length })) : Either.right(bytes)
}
