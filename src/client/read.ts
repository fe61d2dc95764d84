// GET /v2/entries/<index>, trusting nothing but the verifier key: the bundle's checkpoint
// note must be the log key's, the entry bytes must be under its root by the inclusion
// proof, the envelope shown must be the one in those bytes with a valid signature, and a
// body that rides along must hash to what the payload names. A body that never rides (an
// owner's document named by hash alone: an audit report, a completion's result) is fetched
// from GET /v2/bodies/{digest} while its status says available, and checked the same way.

import { requireWitnessedCover } from "./witnesses.js"
import { Either } from "effect"
import { equal, fromUtf8 } from "../domain/bytes.js"
import { bodyReference } from "../domain/bodyReference.js"
import { decodeB64, decodeU64, encodeU64 } from "../domain/encoding.js"
import { decodeEnvelope, type Envelope } from "../domain/envelope/envelope.js"
import { jcs } from "../domain/envelope/jcs.js"
import { entryBytes } from "../domain/envelope/leaf.js"
import { verifyEnvelopeSignature } from "../domain/envelope/signature.js"
import { verifyInclusion } from "../domain/tlog/inclusion.js"
import { verifyCheckpointNote } from "./checkpoint.js"
import { crypto, hasher } from "./crypto.js"
import { protocolError, usageError, verificationError } from "./errors.js"
import { getBytes, getJson } from "./http.js"
import type { LogClient } from "./write.js"

export interface EntryRead {
  readonly index: number
  /** Unix milliseconds. */
  readonly logged: number
  /** U64 of the RFC 6962 leaf hash. */
  readonly leafHash: string
  readonly envelope: Envelope
  /** The body the payload names, checked against its hash; null when it is not available. */
  readonly body: Uint8Array | null
  /** X-AICS-Body-Status: available, tombstoned;..., expired;..., unavailable; null when the payload names no body. */
  readonly bodyStatus: string | null
  /** Size of the verified checkpoint the inclusion proof is against. */
  readonly checkpointSize: number
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

const u64 = (value: unknown, what: string): Uint8Array => {
  const bytes = typeof value === "string" ? decodeU64(value) : undefined
  if (bytes === undefined) throw protocolError(`the wire bundle's ${what} is not U64`)
  return bytes
}

/** The {envelope, index, logged} inside entry bytes, with the envelope's signature checked. */
const readLeaf = (bytes: Uint8Array, index: number): { envelope: Envelope; logged: number } => {
  let leaf: unknown
  try {
    leaf = JSON.parse(fromUtf8(bytes))
  } catch {
    throw verificationError(`entry ${index}: the entry bytes are not JSON`)
  }
  if (!isRecord(leaf) || leaf["index"] !== index || typeof leaf["logged"] !== "number") {
    throw verificationError(`entry ${index}: the entry bytes are not {envelope, index, logged} of this index`)
  }
  const envelope = decodeEnvelope(leaf["envelope"])
  if (Either.isLeft(envelope)) throw verificationError(`entry ${index}: the logged envelope is malformed`)
  const logged = leaf["logged"]
  // Canonical bytes only: the same leaf has one spelling, so its hash is the log's.
  const canonical = entryBytes(envelope.right, index, logged)
  if (Either.isLeft(canonical) || !equal(canonical.right, bytes)) throw verificationError(`entry ${index}: the entry bytes are not canonical`)
  if (!verifyEnvelopeSignature(envelope.right, crypto.ed25519)) throw verificationError(`entry ${index}: the envelope's signature does not verify`)
  return { envelope: envelope.right, logged }
}

/** The body that came with the entry, checked against the payload's hash and size. */
const checkedBody = (envelope: Envelope, body: Uint8Array | null, index: number): Uint8Array | null => {
  if (body === null) return null
  const reference = bodyReference(envelope.payload)
  if (reference === undefined) throw verificationError(`entry ${index}: a body came with an entry that names none`)
  if (!equal(crypto.sha256(body), reference.digest) || (reference.size !== undefined && reference.size !== body.length)) {
    throw verificationError(`entry ${index}: the body does not match the payload's ${reference.member} and size`)
  }
  return body
}

export const getEntry = async (client: LogClient, index: number): Promise<EntryRead> => {
  if (!Number.isSafeInteger(index) || index < 0) throw usageError(`not an entry index: ${index}`)
  const { json, headers } = await getJson(client.service, `/v2/entries/${index}`)
  if (!isRecord(json) || json["index"] !== index || !Array.isArray(json["inclusion_proof"])) {
    throw protocolError(`GET /v2/entries/${index}: not a wire bundle of this index`)
  }
  const bytes = u64(json["entry_bytes"], "entry_bytes")
  const checkpoint = verifyCheckpointNote(u64(json["checkpoint_note"], "checkpoint_note"), client.vkey, "the bundle's checkpoint")
  if (client.witnesses !== undefined) {
    await requireWitnessedCover(client.service, client.vkey, client.witnesses, checkpoint, (note) => verifyCheckpointNote(note, client.vkey, "the checkpoint"))
  }
  const proof = json["inclusion_proof"].map((h) => (typeof h === "string" ? decodeB64(h) : undefined))
  if (proof.some((h) => h === undefined)) throw protocolError(`GET /v2/entries/${index}: a proof hash is not B64`)
  const leafHash = hasher.leafHash(bytes)
  if (!verifyInclusion(hasher, index, checkpoint.size, leafHash, proof as Array<Uint8Array>, checkpoint.rootHash)) {
    throw verificationError(`entry ${index} is not in the checkpoint of size ${checkpoint.size} by the proof given`)
  }
  const { envelope, logged } = readLeaf(bytes, index)
  if (envelope.origin !== client.vkey.name) throw verificationError(`entry ${index} names origin ${envelope.origin}`)
  // The bundle repeats the envelope for convenience; it must be the logged one.
  const shown = jcs(json["envelope"])
  if (Either.isLeft(shown) || shown.right !== Either.getOrThrow(jcs(envelope))) {
    throw verificationError(`entry ${index}: the bundle's envelope is not the logged one`)
  }
  const bodyStatus = headers.get("x-aics-body-status")
  const reference = bodyReference(envelope.payload)
  const body = reference !== undefined && !reference.rides && bodyStatus === "available"
    ? await getBytes(client.service, `/v2/bodies/${encodeU64(reference.digest)}`)
    : json["body_or_ct"] === null ? null : u64(json["body_or_ct"], "body_or_ct")
  return { index, logged, leafHash: encodeU64(leafHash), envelope, body: checkedBody(envelope, body, index), bodyStatus, checkpointSize: checkpoint.size }
}
