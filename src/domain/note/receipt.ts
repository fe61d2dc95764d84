// docs/spec/profile.md section 4: the text of a receipt note, signed by the log key. An accepted
// entry and a refused one each get exactly four lines:
//
//   <origin>                          <origin>
//   receipt <leaf index>              refusal <code>
//   leaf <B64 RFC 6962 leaf hash>     envelope <B64 SHA-256(JCS(envelope))>
//   logged <Unix ms>                  at <Unix ms>
//
// The origin comes first, as in a checkpoint, so a receipt can never be read as another
// log's. Numbers are canonical decimal and hashes canonical B64, so each receipt has one
// text and a signature over it cannot be re-spelled.

import { decodeB64, encodeB64, parseDecimal } from "../encoding.js"

export interface Receipt {
  readonly _tag: "Receipt"
  readonly origin: string
  readonly index: number
  /** RFC 6962 leaf hash of the entry bytes, 32 bytes. */
  readonly leafHash: Uint8Array
  /** Unix milliseconds at which the leaf was sequenced. */
  readonly logged: number
}

export interface Refusal {
  readonly _tag: "Refusal"
  readonly origin: string
  /** A code of the refusal catalogue (docs/spec/profile.md section 7). */
  readonly code: string
  /** SHA-256(JCS(envelope)) of the refused envelope, `auth` included, 32 bytes. */
  readonly envelopeHash: Uint8Array
  /** Unix milliseconds of the refusal. */
  readonly at: number
}

const HASH_SIZE = 32
// Refusal codes are snake_case words (e.g. nonce_reused); nothing else keeps the line
// unambiguous.
const REFUSAL_CODE = /^[a-z][a-z0-9_]*$/

export const isRefusalCode = (code: string): boolean => REFUSAL_CODE.test(code)

export const formatReceipt = (r: Omit<Receipt, "_tag">): string =>
  `${r.origin}\nreceipt ${r.index}\nleaf ${encodeB64(r.leafHash)}\nlogged ${r.logged}\n`

export const formatRefusal = (r: Omit<Refusal, "_tag">): string =>
  `${r.origin}\nrefusal ${r.code}\nenvelope ${encodeB64(r.envelopeHash)}\nat ${r.at}\n`

/** The value after `<keyword> ` on a line, or undefined. */
const field = (line: string, keyword: string): string | undefined =>
  line.startsWith(keyword + " ") ? line.slice(keyword.length + 1) : undefined

const hash = (text: string | undefined): Uint8Array | undefined => {
  const bytes = text === undefined ? undefined : decodeB64(text)
  return bytes !== undefined && bytes.length === HASH_SIZE ? bytes : undefined
}

const decimal = (text: string | undefined): number | undefined =>
  text === undefined ? undefined : parseDecimal(text)

/** Strict parse of a receipt or refusal text (the `text` of an opened note), or undefined. */
export const parseReceipt = (text: string): Receipt | Refusal | undefined => {
  if (!text.endsWith("\n")) return undefined
  const lines = text.slice(0, -1).split("\n")
  if (lines.length !== 4) return undefined
  const [origin, second, third, fourth] = lines as [string, string, string, string]
  if (origin.length === 0) return undefined

  const index = decimal(field(second, "receipt"))
  if (index !== undefined) {
    const leafHash = hash(field(third, "leaf"))
    const logged = decimal(field(fourth, "logged"))
    if (leafHash === undefined || logged === undefined) return undefined
    return { _tag: "Receipt", origin, index, leafHash, logged }
  }

  const code = field(second, "refusal")
  if (code === undefined || !isRefusalCode(code)) return undefined
  const envelopeHash = hash(field(third, "envelope"))
  const at = decimal(field(fourth, "at"))
  if (envelopeHash === undefined || at === undefined) return undefined
  return { _tag: "Refusal", origin, code, envelopeHash, at }
}
