// docs/spec/profile.md section 1: the two base64 forms on the wire.
//   U64 = base64url without padding (RFC 4648 section 5): hashes, nonces, keys and
//         signatures in JSON members.
//   B64 = standard base64 with padding (RFC 4648 section 4): signed notes and proof hashes,
//         as C2SP signed-note, tlog-checkpoint and RFC 9162 write them.
//
// Decoding is strict: every byte string has exactly one accepted spelling, so a value
// that is signed, hashed or compared as text cannot be re-spelled by a third party
// (another alphabet, missing or extra padding, non-zero trailing bits). Anything else
// decodes to undefined rather than throwing, so callers treat it as malformed input.
// Decimal integers in note texts (tree sizes, indices, times) follow the same rule.

// The codec is written out here rather than taken from @scure/base: every write decodes
// and encodes a dozen of these strings (keys, nonces, signatures, hashes, the body, the
// receipt), and @scure/base's general radix conversion cost about a tenth of the write
// checks' CPU (bench/README.md). Strictness is explicit: the alphabet, the length, the
// padding and zero trailing bits are each checked, and a property test holds decoding to
// "the string is the encoding of the bytes" and to @scure/base's answers.

const U64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
const B64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

interface Alphabet {
  /** The two letters of every 12-bit value: one lookup per two letters when encoding. */
  readonly pairs: ReadonlyArray<string>
  readonly letters: string
  /** The character codes of the letters. */
  readonly codes: Uint8Array
  /** The 6-bit value of each character code below 128, -1 for characters outside the alphabet. */
  readonly values: Int8Array
}

const alphabet = (letters: string): Alphabet => {
  const pairs: Array<string> = []
  for (let i = 0; i < 4096; i++) pairs.push(letters[i >> 6]! + letters[i & 63]!)
  const codes = new Uint8Array(64)
  const values = new Int8Array(128).fill(-1)
  for (let i = 0; i < 64; i++) {
    codes[i] = letters.charCodeAt(i)
    values[codes[i]!] = i
  }
  return { pairs, letters, codes, values }
}

const U64 = alphabet(U64_ALPHABET)
const B64 = alphabet(B64_ALPHABET)

/**
 * Inputs from this length on are encoded into a byte array that one native call turns into
 * a string; shorter ones (hashes, keys, signatures) by joining letters, which is faster for
 * them. For a leaf or a body of a few hundred bytes the array takes about half the time,
 * and the string it gives is flat, which JSON.stringify then copies without walking a rope.
 */
const ARRAY_FROM = 96
const ascii = new TextDecoder("latin1")

const encode = (alphabet: Alphabet, bytes: Uint8Array, pad: boolean): string => {
  if (bytes.length >= ARRAY_FROM) return encodeToArray(alphabet, bytes, pad)
  const { pairs, letters } = alphabet
  let out = ""
  const whole = bytes.length - (bytes.length % 3)
  for (let i = 0; i < whole; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!
    out += pairs[n >> 12]! + pairs[n & 0xfff]!
  }
  if (bytes.length - whole === 1) {
    const n = bytes[whole]!
    out += letters[n >> 2]! + letters[(n & 3) << 4]! + (pad ? "==" : "")
  } else if (bytes.length - whole === 2) {
    const n = (bytes[whole]! << 8) | bytes[whole + 1]!
    out += letters[n >> 10]! + letters[(n >> 4) & 63]! + letters[(n & 15) << 2]! + (pad ? "=" : "")
  }
  return out
}

const PAD = 61 // "="

const encodeToArray = ({ codes }: Alphabet, bytes: Uint8Array, pad: boolean): string => {
  const whole = bytes.length - (bytes.length % 3)
  const rest = bytes.length - whole
  const out = new Uint8Array((whole / 3) * 4 + (rest === 0 ? 0 : pad ? 4 : rest + 1))
  let o = 0
  for (let i = 0; i < whole; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!
    out[o++] = codes[n >> 18]!
    out[o++] = codes[(n >> 12) & 63]!
    out[o++] = codes[(n >> 6) & 63]!
    out[o++] = codes[n & 63]!
  }
  if (rest === 1) {
    const n = bytes[whole]!
    out[o++] = codes[n >> 2]!
    out[o++] = codes[(n & 3) << 4]!
    if (pad) {
      out[o++] = PAD
      out[o++] = PAD
    }
  } else if (rest === 2) {
    const n = (bytes[whole]! << 8) | bytes[whole + 1]!
    out[o++] = codes[n >> 10]!
    out[o++] = codes[(n >> 4) & 63]!
    out[o++] = codes[(n & 15) << 2]!
    if (pad) out[o++] = PAD
  }
  return ascii.decode(out)
}

/**
 * The bytes of `length` letters of the alphabet, or undefined if a character is outside it
 * or the unused trailing bits of the last letter are not zero (the two ways one byte string
 * could otherwise have several spellings). The caller has checked the length and padding.
 */
const decodeLetters = ({ values }: Alphabet, text: string, length: number): Uint8Array | undefined => {
  const rest = length % 4
  if (rest === 1) return undefined
  const out = new Uint8Array(((length - rest) / 4) * 3 + (rest === 0 ? 0 : rest - 1))
  const value = (i: number) => {
    const c = text.charCodeAt(i)
    return c < 128 ? values[c]! : -1
  }
  let o = 0
  const whole = length - rest
  for (let i = 0; i < whole; i += 4) {
    const n = (value(i) << 18) | (value(i + 1) << 12) | (value(i + 2) << 6) | value(i + 3)
    // A -1 anywhere makes n negative: a character outside the alphabet.
    if (n < 0) return undefined
    out[o++] = n >> 16
    out[o++] = (n >> 8) & 0xff
    out[o++] = n & 0xff
  }
  if (rest === 2) {
    const a = value(whole)
    const b = value(whole + 1)
    if (a < 0 || b < 0 || (b & 15) !== 0) return undefined
    out[o] = (a << 2) | (b >> 4)
  } else if (rest === 3) {
    const a = value(whole)
    const b = value(whole + 1)
    const c = value(whole + 2)
    if (a < 0 || b < 0 || c < 0 || (c & 3) !== 0) return undefined
    out[o++] = (a << 2) | (b >> 4)
    out[o] = ((b & 15) << 4) | (c >> 2)
  }
  return out
}

export const encodeU64 = (bytes: Uint8Array): string => encode(U64, bytes, false)

/** The bytes of a canonical U64 string (no padding), or undefined. */
export const decodeU64 = (text: string): Uint8Array | undefined => decodeLetters(U64, text, text.length)

export const encodeB64 = (bytes: Uint8Array): string => encode(B64, bytes, true)

/** The bytes of a canonical B64 string (padded to a multiple of 4 letters), or undefined. */
export const decodeB64 = (text: string): Uint8Array | undefined => {
  if (text.length % 4 !== 0) return undefined
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0
  // Letters then padding: an "=" left among the letters is outside the alphabet.
  return decodeLetters(B64, text, text.length - padding)
}

const DECIMAL = /^(?:0|[1-9][0-9]*)$/

/**
 * A non-negative safe integer written in canonical decimal (no sign, no leading zeros, no
 * spaces), or undefined. C2SP tlog-checkpoint requires this of the tree size; the receipt
 * lines of docs/spec/profile.md section 4 use it too.
 */
export const parseDecimal = (text: string): number | undefined => {
  if (!DECIMAL.test(text)) return undefined
  const n = Number(text)
  return Number.isSafeInteger(n) ? n : undefined
}
