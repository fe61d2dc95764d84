// One phrase for why a signed note was not accepted, for error lines.

import type { NoteError } from "../domain/note/signedNote.js"
import { keyHashHex, type VerifierKey } from "../domain/note/verifierKey.js"

export const noteProblem = (error: NoteError, vkey: VerifierKey): string => {
  const key = `${vkey.name}+${keyHashHex(vkey.keyHash)}`
  switch (error._tag) {
    case "UnverifiedNote":
      // Most often a verifier key of another log, or a server that is not the log meant.
      return `is not signed by the log key ${key} (check the verifier key, --vkey or AICS_LOG_VKEY, and the service, --server or AICS_SERVER)`
    case "InvalidNoteSignature":
      return `carries a signature by ${key} that does not verify`
    case "MalformedNote":
      return `is not a signed note (${error.reason})`
    case "AmbiguousVerifier":
      return `cannot be checked: two keys share the ID of ${key}`
  }
}
