// C2SP tlog-checkpoint (c2sp.org/tlog-checkpoint): the text of a checkpoint note.
//
//   <origin>
//   <tree size, decimal, no leading zeros>
//   <root hash, B64 of 32 bytes>
//   [extension lines]
//
// docs/spec/profile.md section 8: this log writes no extension lines. Parsing returns any it finds,
// as the spec allows them; the caller decides whether to accept them.

import { decodeB64, encodeB64, parseDecimal } from "../encoding.js"

export interface CheckpointBody {
  readonly origin: string
  /** Number of leaves; a safe integer. */
  readonly size: number
  /** RFC 6962 root hash of the tree at that size, 32 bytes. */
  readonly rootHash: Uint8Array
}

export interface Checkpoint extends CheckpointBody {
  readonly extensions: ReadonlyArray<string>
}

const HASH_SIZE = 32

/** The checkpoint text. The origin is the log's configured one (a valid key name). */
export const formatCheckpoint = (body: CheckpointBody): string =>
  `${body.origin}\n${body.size}\n${encodeB64(body.rootHash)}\n`

/** Strict parse of a checkpoint text (the `text` of an opened note), or undefined. */
export const parseCheckpoint = (text: string): Checkpoint | undefined => {
  if (!text.endsWith("\n")) return undefined
  const lines = text.slice(0, -1).split("\n")
  if (lines.length < 3) return undefined
  const [origin, sizeLine, rootLine, ...extensions] = lines as [string, string, string, ...Array<string>]
  if (origin.length === 0) return undefined
  const size = parseDecimal(sizeLine)
  const rootHash = decodeB64(rootLine)
  if (size === undefined || rootHash === undefined || rootHash.length !== HASH_SIZE) return undefined
  if (extensions.some((line) => line.length === 0)) return undefined
  return { origin, size, rootHash, extensions }
}
