// C2SP tlog-witness (c2sp.org/tlog-witness), `POST <prefix>/add-checkpoint`: the request
// body and the witness's decision, as pure functions of the request, the logs the witness
// is configured for and the last checkpoint it cosigned for the origin.
//
//   old <size>\n                 the size the client thinks the witness last cosigned
//   <B64 hash>\n ...             0 to 63 consistency proof lines, from old size to the new size
//   \n
//   <checkpoint note>            C2SP tlog-checkpoint, signed by the log (and maybe others)
//
// The checks, in the spec's order, and the status each failure answers:
//   body malformed                                               400
//   origin not configured                                        404
//   no signature by a configured key of the origin verifies      403
//   old size above the checkpoint size                           400
//   old size is not the size last cosigned (0 if none)           409, body: that size
//   old size = checkpoint size and the roots differ              409
//   the consistency proof does not verify (non-empty for old 0)  422
// Only when all pass does the witness record the checkpoint and cosign it; recording must
// be atomic with the check of the old size (the WitnessState port's compare-and-swap).

import * as Either from "effect/Either"
import { equal, fromUtf8 } from "../bytes.js"
import type { Ed25519 } from "../crypto.js"
import { decodeB64, encodeB64, parseDecimal } from "../encoding.js"
import { type Checkpoint, parseCheckpoint } from "../note/checkpoint.js"
import { openNote } from "../note/signedNote.js"
import type { VerifierKey } from "../note/verifierKey.js"
import { HASH_SIZE, type Hash, type TreeHasher } from "../tlog/hasher.js"
import { verifyConsistency } from "../tlog/consistency.js"

/** tlog-witness: "The client MUST NOT send more than 63 consistency proof lines." */
export const MAX_PROOF_LINES = 63

/** The largest body the witness reads: 63 proof lines and a note of many signatures. */
export const MAX_ADD_CHECKPOINT_BYTES = 64 * 1024

export interface AddCheckpointRequest {
  readonly oldSize: number
  readonly proof: ReadonlyArray<Hash>
  /** The checkpoint note, exactly as sent. */
  readonly note: Uint8Array
}

/** A log the witness is configured to witness: its origin and its verifier key. */
export interface WitnessedLog {
  readonly origin: string
  readonly key: VerifierKey
}

/** What the witness last cosigned for an origin. */
export interface CosignedState {
  readonly size: number
  readonly rootHash: Hash
}

export type AddCheckpointOutcome =
  | { readonly _tag: "Cosign"; readonly checkpoint: Checkpoint; readonly text: string }
  | { readonly _tag: "Refused"; readonly status: 400 | 403 | 404 | 409 | 422; readonly reason: string; readonly knownSize?: number }

const refused = (status: 400 | 403 | 404 | 409 | 422, reason: string, knownSize?: number): AddCheckpointOutcome =>
  knownSize === undefined ? { _tag: "Refused", status, reason } : { _tag: "Refused", status, reason, knownSize }

const NEWLINE = 0x0a

/** The request body for a checkpoint note, the size the witness last cosigned and the proof from it. */
export const formatAddCheckpointRequest = (oldSize: number, proof: ReadonlyArray<Hash>, note: Uint8Array): Uint8Array => {
  const head = new TextEncoder().encode(`old ${oldSize}\n${proof.map((h) => `${encodeB64(h)}\n`).join("")}\n`)
  const out = new Uint8Array(head.length + note.length)
  out.set(head)
  out.set(note, head.length)
  return out
}

/** Parses the body, or Left with why it is malformed (400). */
export const parseAddCheckpointRequest = (body: Uint8Array): Either.Either<AddCheckpointRequest, string> => {
  if (body.length > MAX_ADD_CHECKPOINT_BYTES) return Either.left("the body is too large")
  const lines: Array<string> = []
  let start = 0
  // The head ends at the first empty line; the note follows it byte for byte.
  for (;;) {
    const end = body.indexOf(NEWLINE, start)
    if (end < 0) return Either.left("no empty line before the checkpoint")
    if (end === start) {
      start = end + 1
      break
    }
    let line: string
    try {
      line = new TextDecoder("utf-8", { fatal: true }).decode(body.subarray(start, end))
    } catch {
      return Either.left("the head is not UTF-8")
    }
    lines.push(line)
    start = end + 1
    if (lines.length > MAX_PROOF_LINES + 1) return Either.left(`more than ${MAX_PROOF_LINES} consistency proof lines`)
  }
  const [oldLine, ...proofLines] = lines
  if (oldLine === undefined || !oldLine.startsWith("old ")) return Either.left("the first line is not \"old <size>\"")
  const oldSize = parseDecimal(oldLine.slice(4))
  if (oldSize === undefined) return Either.left("the old size is not a canonical decimal")
  const proof: Array<Hash> = []
  for (const line of proofLines) {
    const hash = decodeB64(line)
    if (hash === undefined || hash.length !== HASH_SIZE) return Either.left("a consistency proof line is not the base64 of a 32-byte hash")
    proof.push(hash)
  }
  const note = body.slice(start)
  if (note.length === 0) return Either.left("no checkpoint after the empty line")
  return Either.right({ oldSize, proof, note })
}

/**
 * The witness's decision on a parsed request: whether to cosign, or the status to refuse
 * with. `logs` are the configured logs; `state` what it last cosigned for the request's
 * origin (undefined: never). The origin comes from the note's text before any signature is
 * checked (the spec answers 404 for an unknown origin), and is used only to pick the keys.
 */
export const decideAddCheckpoint = (
  request: AddCheckpointRequest,
  logs: ReadonlyArray<WitnessedLog>,
  state: (origin: string) => CosignedState | undefined,
  hasher: TreeHasher,
  ed25519: Ed25519
): AddCheckpointOutcome => {
  const origin = originOf(request.note)
  if (origin === undefined) return refused(400, "the checkpoint is not a signed note")
  const keys = logs.filter((log) => log.origin === origin).map((log) => log.key)
  if (keys.length === 0) return refused(404, `this witness does not witness ${JSON.stringify(origin)}`)
  const opened = openNote(request.note, keys, ed25519)
  if (Either.isLeft(opened)) {
    const error = opened.left
    return error._tag === "MalformedNote"
      ? refused(400, `the checkpoint note is malformed: ${error.reason}`)
      : refused(403, "no signature by the log's key verifies")
  }
  const checkpoint = parseCheckpoint(opened.right.text)
  if (checkpoint === undefined || checkpoint.origin !== origin) return refused(400, "the note is not a checkpoint")
  if (request.oldSize > checkpoint.size) return refused(400, `old size ${request.oldSize} is above the checkpoint's size ${checkpoint.size}`)
  const known = state(origin)
  const knownSize = known?.size ?? 0
  if (request.oldSize !== knownSize) return refused(409, `the last cosigned size is ${knownSize}`, knownSize)
  if (known !== undefined && known.size === checkpoint.size) {
    if (!equal(known.rootHash, checkpoint.rootHash)) {
      return refused(409, `a checkpoint of size ${known.size} with another root hash was cosigned`, knownSize)
    }
    if (request.proof.length !== 0) return refused(422, "the consistency proof between equal sizes must be empty")
    return { _tag: "Cosign", checkpoint, text: opened.right.text }
  }
  if (request.oldSize === 0) {
    if (request.proof.length !== 0) return refused(422, "the consistency proof from size 0 must be empty")
    if (checkpoint.size === 0 && !equal(checkpoint.rootHash, hasher.emptyRoot)) return refused(422, "an empty tree's root must be the hash of the empty string")
    return { _tag: "Cosign", checkpoint, text: opened.right.text }
  }
  if (!verifyConsistency(hasher, request.oldSize, checkpoint.size, known!.rootHash, checkpoint.rootHash, request.proof)) {
    return refused(422, `the consistency proof from size ${request.oldSize} to ${checkpoint.size} does not verify`)
  }
  return { _tag: "Cosign", checkpoint, text: opened.right.text }
}

/** The first line of a note (a checkpoint's origin), or undefined. */
const originOf = (note: Uint8Array): string | undefined => {
  const end = note.indexOf(NEWLINE)
  if (end <= 0) return undefined
  try {
    return fromUtf8(note.subarray(0, end))
  } catch {
    return undefined
  }
}

/** The body of a 409: the size in decimal and a newline (Content-Type text/x.tlog.size). */
export const TLOG_SIZE_CONTENT_TYPE = "text/x.tlog.size"

/** The known size of a 409 body, or undefined. */
export const parseTlogSize = (body: string): number | undefined =>
  body.endsWith("\n") ? parseDecimal(body.slice(0, -1)) : parseDecimal(body)
