// Byte helpers shared by every format in the domain: concatenation, comparison, text and
// big-endian integers. Pure functions over Uint8Array, no Node Buffer, so the same code runs
// in the portable client.

const encoder = new TextEncoder()
const decoder = new TextDecoder("utf-8", { fatal: true })

/** UTF-8 bytes of a string. */
export const utf8 = (text: string): Uint8Array => encoder.encode(text)

/** Decodes UTF-8, throwing on malformed input rather than inventing replacement characters. */
export const fromUtf8 = (bytes: Uint8Array): string => decoder.decode(bytes)

/** Whether the bytes are well-formed UTF-8: what a text body must be (write/submission.ts). */
export const isUtf8 = (bytes: Uint8Array): boolean => {
  try {
    fromUtf8(bytes)
    return true
  } catch {
    return false
  }
}

export const concat = (...parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  let length = 0
  for (const part of parts) length += part.length
  const out = new Uint8Array(length)
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}

export const equal = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!
  return diff === 0
}

export const toHex = (bytes: Uint8Array): string => {
  let out = ""
  for (const b of bytes) out += b.toString(16).padStart(2, "0")
  return out
}

/** Lower-case hex only, even length; anything else is not a hex string here. */
export const fromHex = (hex: string): Uint8Array | undefined => {
  if (hex.length % 2 !== 0 || !/^[0-9a-f]*$/.test(hex)) return undefined
  const out = new Uint8Array(hex.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16)
  return out
}

export const uint16BE = (n: number): Uint8Array => Uint8Array.of((n >>> 8) & 0xff, n & 0xff)

export const uint32BE = (n: number): Uint8Array =>
  Uint8Array.of((n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff)

export const readUint16BE = (bytes: Uint8Array, offset: number): number =>
  (bytes[offset]! << 8) | bytes[offset + 1]!

export const readUint32BE = (bytes: Uint8Array, offset: number): number =>
  ((bytes[offset]! << 24) >>> 0) + (bytes[offset + 1]! << 16) + (bytes[offset + 2]! << 8) + bytes[offset + 3]!
