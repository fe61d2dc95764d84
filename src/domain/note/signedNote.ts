// C2SP signed-note (c2sp.org/signed-note), as golang.org/x/mod/sumdb/note implements it.
//
//   <text, ending in a newline>
//   <blank line>
//   — <key name> <B64(4-byte big-endian key ID || signature)>      one or more lines
//
// The signature is Ed25519 over the text bytes, final newline included, separating blank
// line excluded. Notes are valid UTF-8 with no ASCII control character but newline; the
// text is separated from the signatures by the last blank line.
//
// Signing happens in the app through the Signer port, so building a note is a pure
// function of the text and the finished signatures; signNote does both in one step for
// tests and clients that hold a seed.

import * as Data from "effect/Data"
import * as Either from "effect/Either"
import { concat, equal, readUint32BE, uint32BE, utf8 } from "../bytes.js"
import type { CryptoPrimitives, Ed25519 } from "../crypto.js"
import { decodeB64, encodeB64 } from "../encoding.js"
import { isValidKeyName, keyHash, keyHashHex, type VerifierKey } from "./verifierKey.js"

/** One signature line, the key ID split off. */
export interface NoteSignature {
  readonly name: string
  readonly keyHash: number
  /** The signature proper (64 bytes for Ed25519), without the key ID. */
  readonly signature: Uint8Array
}

export interface OpenedNote {
  /** The signed text, final newline included. */
  readonly text: string
  /** Signatures by known keys, each verified; one per key. */
  readonly signatures: ReadonlyArray<NoteSignature>
  /** Signatures by keys the caller does not know: ignored, as the spec requires. */
  readonly unverified: ReadonlyArray<NoteSignature>
}

export class MalformedNote extends Data.TaggedError("MalformedNote")<{ readonly reason: string }> {}

/** A known key's signature does not verify: the whole note is rejected. */
export class InvalidNoteSignature extends Data.TaggedError("InvalidNoteSignature")<{
  readonly name: string
  readonly keyHash: number
}> {}

/**
 * The note is well formed but no known key signed it. The signers it does name are given
 * (to tell a rotated key from garbage), never the text, which must not be used unverified.
 */
export class UnverifiedNote extends Data.TaggedError("UnverifiedNote")<{
  readonly unverified: ReadonlyArray<NoteSignature>
}> {}

/** Two different known keys share a name and key ID: the caller's key list is wrong. */
export class AmbiguousVerifier extends Data.TaggedError("AmbiguousVerifier")<{
  readonly name: string
  readonly keyHash: number
}> {}

export type NoteError = MalformedNote | InvalidNoteSignature | UnverifiedNote | AmbiguousVerifier

/**
 * Verifiers "MUST accept at least up to 16 signatures"; note.go stops at 100, and so do
 * we, so a hostile note cannot make us verify without bound.
 */
export const MAX_SIGNATURES = 100

/** A bound on the whole note: 100 post-quantum signatures of about 5 kB fit with room. */
export const MAX_NOTE_SIZE = 1 << 20

const SIGNATURE_PREFIX = "— "
const NEWLINE = 0x0a

// The note's own decoder: bytes.ts's fromUtf8 drops a leading byte order mark, and a note
// must give back exactly the text that was signed.
const noteDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
const LONE_SURROGATE = /\p{Cs}/u
const CONTROL_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f]/

/** Why a text cannot be signed as a note, or undefined when it can. */
const textProblem = (text: string): string | undefined => {
  if (!text.endsWith("\n")) return "the text does not end in a newline"
  if (CONTROL_BUT_NEWLINE.test(text)) return "the text holds a control character"
  if (LONE_SURROGATE.test(text)) return "the text is not well-formed Unicode"
  return undefined
}

const malformed = (reason: string) => Either.left(new MalformedNote({ reason }))

/** `— <name> <B64(key ID || signature)>\n`. The name must be valid (isValidKeyName). */
export const signatureLine = (sig: NoteSignature): string =>
  `${SIGNATURE_PREFIX}${sig.name} ${encodeB64(concat(uint32BE(sig.keyHash), sig.signature))}\n`

/** The signed note: text, blank line, one line per signature in the order given. */
export const formatNote = (
  text: string,
  signatures: ReadonlyArray<NoteSignature>
): Either.Either<string, MalformedNote> => {
  const problem = textProblem(text)
  if (problem !== undefined) return malformed(problem)
  if (signatures.length === 0) return malformed("a note needs a signature")
  for (const sig of signatures) {
    if (!isValidKeyName(sig.name)) return malformed(`invalid key name ${JSON.stringify(sig.name)}`)
    if (sig.signature.length === 0) return malformed("empty signature")
  }
  return Either.right(text + "\n" + signatures.map(signatureLine).join(""))
}

/** Signs the text with an Ed25519 seed under the key name and formats the note. */
export const signNote = (
  text: string,
  name: string,
  seed: Uint8Array,
  crypto: CryptoPrimitives
): Either.Either<string, MalformedNote> => {
  const problem = textProblem(text)
  if (problem !== undefined) return malformed(problem)
  const publicKey = crypto.ed25519.publicKey(seed)
  const signature = crypto.ed25519.sign(seed, utf8(text))
  return formatNote(text, [{ name, keyHash: keyHash(crypto.sha256, name, publicKey), signature }])
}

/** Index of the first byte of the last "\n\n", or -1. */
const lastBlankLine = (bytes: Uint8Array): number => {
  for (let i = bytes.length - 2; i >= 0; i--) {
    if (bytes[i] === NEWLINE && bytes[i + 1] === NEWLINE) return i
  }
  return -1
}

/**
 * Opens a signed note against the known keys. Signatures by unknown keys (name or key ID
 * differs) are returned as unverified and otherwise ignored. Fails when the note is
 * malformed, when any signature by a known key does not verify, or when no known key
 * signed. Every signature line by a known key is verified, repeats included (note.go skips
 * repeats; the spec says a known key's signature MUST be verified).
 */
export const openNote = (
  note: Uint8Array,
  verifiers: ReadonlyArray<VerifierKey>,
  ed25519: Ed25519
): Either.Either<OpenedNote, NoteError> => {
  if (note.length > MAX_NOTE_SIZE) return malformed("the note is too large")
  // In UTF-8 every byte of a multi-byte sequence is >= 0x80, so a byte scan finds exactly
  // the ASCII control characters.
  for (const b of note) {
    if (b < 0x20 && b !== NEWLINE) return malformed("the note holds a control character")
  }
  const split = lastBlankLine(note)
  if (split < 0) return malformed("no blank line before the signatures")
  const textBytes = note.subarray(0, split + 1)
  const sigBytes = note.subarray(split + 2)
  if (sigBytes.length === 0 || sigBytes[sigBytes.length - 1] !== NEWLINE) {
    return malformed("the signatures do not end in a newline")
  }
  let text: string
  let sigText: string
  try {
    // Both halves are valid UTF-8 exactly when the whole is: the split is on ASCII bytes.
    text = noteDecoder.decode(textBytes)
    sigText = noteDecoder.decode(sigBytes)
  } catch {
    return malformed("the note is not valid UTF-8")
  }

  const lines = sigText.slice(0, -1).split("\n")
  if (lines.length > MAX_SIGNATURES) return malformed("too many signatures")

  const known = new Map<string, VerifierKey>()
  for (const v of verifiers) {
    const id = `${v.name}+${keyHashHex(v.keyHash)}`
    const other = known.get(id)
    if (other !== undefined && !equal(other.publicKey, v.publicKey)) {
      return Either.left(new AmbiguousVerifier({ name: v.name, keyHash: v.keyHash }))
    }
    known.set(id, v)
  }

  const verified = new Map<string, NoteSignature>()
  const unverified = new Map<string, NoteSignature>()
  for (const line of lines) {
    if (!line.startsWith(SIGNATURE_PREFIX)) return malformed("a signature line does not start with an em dash and a space")
    const rest = line.slice(SIGNATURE_PREFIX.length)
    const space = rest.indexOf(" ")
    if (space < 0) return malformed("a signature line has no signature")
    const name = rest.slice(0, space)
    const raw = decodeB64(rest.slice(space + 1))
    if (!isValidKeyName(name)) return malformed(`invalid key name ${JSON.stringify(name)}`)
    if (raw === undefined || raw.length < 5) return malformed("a signature is not base64 of a key ID and a signature")
    const sig: NoteSignature = {
      name,
      keyHash: readUint32BE(raw, 0),
      signature: raw.slice(4)
    }
    const id = `${name}+${keyHashHex(sig.keyHash)}`
    const key = known.get(id)
    if (key === undefined) {
      if (!unverified.has(line)) unverified.set(line, sig)
      continue
    }
    if (!ed25519.verify(key.publicKey, textBytes, sig.signature)) {
      return Either.left(new InvalidNoteSignature({ name, keyHash: sig.keyHash }))
    }
    if (!verified.has(id)) verified.set(id, sig)
  }
  if (verified.size === 0) return Either.left(new UnverifiedNote({ unverified: [...unverified.values()] }))
  return Either.right({ text, signatures: [...verified.values()], unverified: [...unverified.values()] })
}
