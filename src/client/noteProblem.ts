// One phrase for why a signed note was not accepted, for error lines.

import type { NoteError } from "../domain/note/signedNote.js"
import { keyHashHex, type VerifierKey } from "../domain/note/verifierKey.js"

export const noteProblem = (error: NoteError, vkey: VerifierKey): string => {
  const key = `${vkey.name}+${keyHashHex(vkey.keyHash)}`
  switch (error._tag) {
    case "UnverifiedNote":
      return `is not signed by the log key ${key}`
    case "InvalidNoteSignature":
      return `carries a signature by ${key} that does not verify`
    case "MalformedNote":
      return `is not a signed note (${error.reason})`
    case "AmbiguousVerifier":
      return `cannot be checked: two keys share the ID of ${key}`
  }
}
