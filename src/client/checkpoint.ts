// The log's current checkpoint, verified with the out-of-band verifier key. Its first line
// is the log's origin, which the client signs into every envelope: taking it from a note
// the log key signed, rather than from configuration or an unsigned API field, means an
// envelope can only ever name the log the agent meant to write to.

import { Either } from "effect"
import { parseCheckpoint, type Checkpoint } from "../domain/note/checkpoint.js"
import { openNote } from "../domain/note/signedNote.js"
import type { VerifierKey } from "../domain/note/verifierKey.js"
import { crypto } from "./crypto.js"
import { verificationError } from "./errors.js"
import { getBytes, type Service } from "./http.js"
import { noteProblem } from "./noteProblem.js"
import { requireCosignatures, type WitnessPolicy } from "./witnesses.js"

/** Opens a checkpoint note with the verifier key and checks it names the key's log. */
export const verifyCheckpointNote = (note: Uint8Array, vkey: VerifierKey, what: string): Checkpoint => {
  const opened = openNote(note, [vkey], crypto.ed25519)
  if (Either.isLeft(opened)) throw verificationError(`${what} ${noteProblem(opened.left, vkey)}`)
  const checkpoint = parseCheckpoint(opened.right.text)
  if (checkpoint === undefined) throw verificationError(`${what} is not a checkpoint`)
  // The key name is the origin (docs/spec/profile.md section 2); a checkpoint of another origin
  // signed by the same key would be a second log under one key.
  if (checkpoint.origin !== vkey.name) throw verificationError(`${what} names origin ${checkpoint.origin}, not ${vkey.name}`)
  return checkpoint
}

/** The checkpoint at /checkpoint, with a quorum of the witnesses' cosignatures when a policy is given. */
export const fetchCheckpoint = async (service: Service, vkey: VerifierKey, witnesses?: WitnessPolicy): Promise<Checkpoint> => {
  const note = await getBytes(service, "/checkpoint")
  const checkpoint = verifyCheckpointNote(note, vkey, "the checkpoint")
  if (witnesses !== undefined) requireCosignatures(note, vkey, witnesses, "the checkpoint")
  return checkpoint
}
