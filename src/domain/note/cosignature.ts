// C2SP tlog-cosignature (c2sp.org/tlog-cosignature), the Ed25519 cosignature/v1: a witness's
// note signature on a checkpoint, stating that as of `time` the largest consistent tree it
// has seen for the origin has this root.
//
//   signature line   — <witness name> B64(key ID || timestamp || Ed25519 signature)
//   key ID           SHA-256(name || 0x0A || 0x04 || 32-byte public key)[:4]
//   timestamp        8 bytes, big-endian POSIX seconds, at most 2^63 - 1
//   signed message   "cosignature/v1\n" || "time <timestamp, decimal>\n" || checkpoint text
//   verifier key     <name>+<8 hex key ID>+B64(0x04 || public key)
//
// The key ID's type byte (0x04) differs from a note signature's (0x01), so a client that
// knows only the log key sees a cosignature line as an unknown key's and ignores it: the
// cosigned checkpoint stays a valid note for it (signed-note: unknown keys are skipped).

import * as Either from "effect/Either"
import { concat, utf8 } from "../bytes.js"
import type { Ed25519, Sha256 } from "../crypto.js"
import { InvalidNoteSignature, type NoteSignature, type OpenedNote, signatureLine } from "./signedNote.js"
import { formatVerifierKey, keyHashOf, parseVerifierKey, type VerifierKey } from "./verifierKey.js"

/** The signed-note signature type of an Ed25519 cosignature/v1. */
export const ALG_COSIGNATURE_V1 = 0x04

const TIMESTAMP_SIZE = 8
const ED25519_SIGNATURE_SIZE = 64
/** tlog-cosignature: the timestamp MUST NOT exceed 2^63 - 1; we also keep it a safe integer. */
const MAX_TIMESTAMP = Number.MAX_SAFE_INTEGER

/** A witness's key as a client or a log knows it: name, cosignature key ID, public key. */
export type CosignerKey = VerifierKey

export const makeCosignerKey = (sha256: Sha256, name: string, publicKey: Uint8Array): CosignerKey => ({
  name,
  keyHash: keyHashOf(sha256, name, ALG_COSIGNATURE_V1, publicKey),
  publicKey
})

/** `<name>+<key ID>+B64(0x04 || public key)`, as written to witness.vkey. */
export const formatCosignerKey = (key: CosignerKey): string => formatVerifierKey(key, ALG_COSIGNATURE_V1)

/** Parses a cosignature/v1 verifier key (type 0x04), or undefined. */
export const parseCosignerKey = (sha256: Sha256, vkey: string): CosignerKey | undefined =>
  parseVerifierKey(sha256, vkey, ALG_COSIGNATURE_V1)

/** The message a cosignature/v1 signs: header line, time line, the checkpoint text. */
export const cosignedMessage = (checkpointText: string, timestamp: number): Uint8Array =>
  utf8(`cosignature/v1\ntime ${timestamp}\n${checkpointText}`)

/** timestamped_signature: 8-byte big-endian timestamp || 64-byte Ed25519 signature. */
export const timestampedSignature = (timestamp: number, signature: Uint8Array): Uint8Array => {
  const out = new Uint8Array(TIMESTAMP_SIZE + signature.length)
  new DataView(out.buffer).setBigUint64(0, BigInt(timestamp))
  out.set(signature, TIMESTAMP_SIZE)
  return out
}

/** The timestamp and signature of a cosignature/v1 (the note signature without its key ID), or undefined. */
export const splitCosignature = (raw: Uint8Array): { readonly timestamp: number; readonly signature: Uint8Array } | undefined => {
  if (raw.length !== TIMESTAMP_SIZE + ED25519_SIGNATURE_SIZE) return undefined
  const big = new DataView(raw.buffer, raw.byteOffset, raw.byteLength).getBigUint64(0)
  if (big > BigInt(MAX_TIMESTAMP)) return undefined
  return { timestamp: Number(big), signature: raw.subarray(TIMESTAMP_SIZE) }
}

export const isCosignatureTimestamp = (timestamp: number): boolean =>
  Number.isSafeInteger(timestamp) && timestamp >= 0 && timestamp <= MAX_TIMESTAMP

/** The cosignature line of a checkpoint text, from the finished Ed25519 signature of cosignedMessage. */
export const cosignatureLine = (key: CosignerKey, timestamp: number, signature: Uint8Array): string =>
  signatureLine({ name: key.name, keyHash: key.keyHash, signature: timestampedSignature(timestamp, signature) })

/** Cosigns a checkpoint text with a seed (tests, and clients that hold one). */
export const cosign = (
  checkpointText: string,
  name: string,
  seed: Uint8Array,
  timestamp: number,
  crypto: { readonly sha256: Sha256; readonly ed25519: Ed25519 }
): string => {
  const key = makeCosignerKey(crypto.sha256, name, crypto.ed25519.publicKey(seed))
  return cosignatureLine(key, timestamp, crypto.ed25519.sign(seed, cosignedMessage(checkpointText, timestamp)))
}

/** A verified cosignature: which witness, and when it says it cosigned. */
export interface Cosignature {
  readonly witness: CosignerKey
  readonly timestamp: number
}

/**
 * The cosignatures of known witnesses among a note's signatures (openNote's `unverified`:
 * signatures by keys other than the log's), each verified. A line naming a known witness
 * (name and key ID) that does not verify rejects the whole note, as signed-note requires of
 * a known key; lines of unknown keys are ignored. One cosignature per witness is counted.
 */
export const verifyCosignatures = (
  checkpointText: string,
  signatures: ReadonlyArray<NoteSignature>,
  witnesses: ReadonlyArray<CosignerKey>,
  ed25519: Ed25519
): Either.Either<ReadonlyArray<Cosignature>, InvalidNoteSignature> => {
  const found = new Map<CosignerKey, Cosignature>()
  for (const sig of signatures) {
    const witness = witnesses.find((w) => w.name === sig.name && w.keyHash === sig.keyHash)
    if (witness === undefined) continue
    const parts = splitCosignature(sig.signature)
    if (parts === undefined || !ed25519.verify(witness.publicKey, cosignedMessage(checkpointText, parts.timestamp), parts.signature)) {
      return Either.left(new InvalidNoteSignature({ name: sig.name, keyHash: sig.keyHash }))
    }
    const seen = found.get(witness)
    if (seen === undefined || seen.timestamp < parts.timestamp) found.set(witness, { witness, timestamp: parts.timestamp })
  }
  return Either.right([...found.values()])
}

/** The cosignatures of an opened checkpoint note by the given witnesses. */
export const cosignaturesOf = (opened: OpenedNote, witnesses: ReadonlyArray<CosignerKey>, ed25519: Ed25519) =>
  verifyCosignatures(opened.text, opened.unverified, witnesses, ed25519)

/** Appends signature lines to a signed note (each `— name sig\n`): how a log adds the cosignatures. */
export const withSignatureLines = (note: Uint8Array, lines: ReadonlyArray<string>): Uint8Array =>
  lines.length === 0 ? note : concat(note, utf8(lines.join("")))
