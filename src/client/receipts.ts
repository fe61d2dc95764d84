// Checking the log-signed notes that answer a write (docs/spec/profile.md section 4). A receipt is
// the log's signed promise that a leaf is at an index; a refusal note is its signed word
// that an envelope was refused with a code. Either is only worth keeping if it is signed by
// the out-of-band log key and says exactly what the JSON beside it says.

import { Either } from "effect"
import { equal } from "../domain/bytes.js"
import { decodeU64 } from "../domain/encoding.js"
import { parseReceipt, type Receipt, type Refusal } from "../domain/note/receipt.js"
import { openNote } from "../domain/note/signedNote.js"
import type { VerifierKey } from "../domain/note/verifierKey.js"
import { crypto } from "./crypto.js"
import { verificationError } from "./errors.js"
import { noteProblem } from "./noteProblem.js"

const openReceiptNote = (noteU64: string, vkey: VerifierKey, what: string): Receipt | Refusal => {
  const note = decodeU64(noteU64)
  if (note === undefined) throw verificationError(`the ${what} note is not U64`)
  const opened = openNote(note, [vkey], crypto.ed25519)
  if (Either.isLeft(opened)) throw verificationError(`the ${what} note ${noteProblem(opened.left, vkey)}`)
  const parsed = parseReceipt(opened.right.text)
  if (parsed === undefined) throw verificationError(`the ${what} note is not a receipt or a refusal`)
  if (parsed.origin !== vkey.name) throw verificationError(`the ${what} note names origin ${parsed.origin}, not ${vkey.name}`)
  return parsed
}

export interface ExpectedReceipt {
  readonly index: number
  readonly leafHash: Uint8Array
  readonly logged: number
}

/** The receipt in the note, checked against what the client expects of it. */
export const verifyReceiptNote = (noteU64: string, vkey: VerifierKey, expected: ExpectedReceipt): Receipt => {
  const receipt = openReceiptNote(noteU64, vkey, "receipt")
  if (receipt._tag !== "Receipt") throw verificationError("the receipt note of an accepted entry is a refusal")
  if (receipt.index !== expected.index) throw verificationError(`the receipt names index ${receipt.index}, not ${expected.index}`)
  if (!equal(receipt.leafHash, expected.leafHash)) throw verificationError(`the receipt of entry ${receipt.index} names another leaf hash`)
  if (receipt.logged !== expected.logged) throw verificationError(`the receipt of entry ${receipt.index} names another logged time`)
  return receipt
}

/** The refusal in the note, checked to be about this envelope and this code. */
export const verifyRefusalNote = (
  noteU64: string,
  vkey: VerifierKey,
  expected: { readonly code: string; readonly envelopeHash: Uint8Array }
): Refusal => {
  const refusal = openReceiptNote(noteU64, vkey, "refusal")
  if (refusal._tag !== "Refusal") throw verificationError("the note of a refused entry is a receipt of acceptance")
  if (refusal.code !== expected.code) throw verificationError(`the refusal note says ${refusal.code}, the answer ${expected.code}`)
  if (!equal(refusal.envelopeHash, expected.envelopeHash)) throw verificationError("the refusal note is about another envelope")
  return refusal
}
