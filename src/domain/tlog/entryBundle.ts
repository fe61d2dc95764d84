// C2SP tlog-tiles entry bundles: the entries under one level-0 tile, each prefixed by its
// length as a big-endian uint16. A bundle holds 1 to 256 entries (empty tiles are never
// served), so no entry can exceed 65,535 bytes.
//
// Encoding a bundle that cannot exist is a caller bug and throws a RangeError (the sequencer
// bounds entry sizes before accepting them). Decoding reads untrusted bytes and returns
// undefined for anything but a well-formed bundle, trailing bytes included.

import { readUint16BE } from "../bytes.js"
import { TILE_WIDTH } from "./tile.js"

export const MAX_ENTRY_SIZE = 0xffff

export const encodeEntryBundle = (entries: ReadonlyArray<Uint8Array>): Uint8Array => {
  if (entries.length < 1 || entries.length > TILE_WIDTH) {
    throw new RangeError(`an entry bundle holds 1 to ${TILE_WIDTH} entries, not ${entries.length}`)
  }
  let length = 0
  for (const entry of entries) {
    if (entry.length > MAX_ENTRY_SIZE) {
      throw new RangeError(`entry of ${entry.length} bytes exceeds the ${MAX_ENTRY_SIZE}-byte bundle limit`)
    }
    length += 2 + entry.length
  }
  const bundle = new Uint8Array(length)
  let offset = 0
  for (const entry of entries) {
    bundle[offset] = entry.length >>> 8
    bundle[offset + 1] = entry.length & 0xff
    bundle.set(entry, offset + 2)
    offset += 2 + entry.length
  }
  return bundle
}

/** The entries of a bundle, or undefined if the bytes are not exactly 1 to 256 length-prefixed entries. */
export const decodeEntryBundle = (bundle: Uint8Array): ReadonlyArray<Uint8Array> | undefined => {
  const entries: Array<Uint8Array> = []
  let offset = 0
  while (offset < bundle.length) {
    if (entries.length === TILE_WIDTH || offset + 2 > bundle.length) return undefined
    const end = offset + 2 + readUint16BE(bundle, offset)
    if (end > bundle.length) return undefined
    entries.push(bundle.slice(offset + 2, end))
    offset = end
  }
  return entries.length === 0 ? undefined : entries
}
