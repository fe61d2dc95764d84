// Pieces compressed once each, carried by several gzip streams in different orders: every
// stream must be a valid gzip file (zlib's gunzip checks the trailer's CRC-32 and length)
// decoding to exactly its pieces' bytes in its order.

import { crc32, gunzipSync } from "node:zlib"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { crc32Combine, deflatePiece, emptyTally, GZIP_HEADER, gzipEnd, gzipWhole, tallyPiece, type DeflatedPiece } from "../../../src/adapters/http/sharedGzip.js"

/** A whole gzip stream of these pieces, as sseWire.ts sends it. */
const streamOf = (pieces: ReadonlyArray<DeflatedPiece>): Buffer => {
  const tally = emptyTally()
  for (const piece of pieces) tallyPiece(tally, piece)
  return Buffer.concat([GZIP_HEADER, ...pieces.map((p) => p.blocks), gzipEnd(tally)])
}

describe("crc32Combine", () => {
  it("gives the CRC-32 of the concatenation", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 3000 }), fc.uint8Array({ maxLength: 3000 }), (a, b) => {
      expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(crc32(Buffer.concat([a, b])))
    }))
  })

  it("is the identity for an empty second part, and works from the empty first part", () => {
    expect(crc32Combine(crc32("abc"), crc32(""), 0)).toBe(crc32("abc"))
    expect(crc32Combine(0, crc32("abc"), 3)).toBe(crc32("abc"))
  })
})

describe("a gzip stream of shared pieces", () => {
  it("decodes to its pieces in its order, whichever pieces and order", () => {
    fc.assert(fc.property(
      fc.array(fc.oneof(fc.uint8Array({ maxLength: 5000 }), fc.string({ maxLength: 2000 }).map((s) => Buffer.from(s.repeat(3)))), { minLength: 1, maxLength: 6 }),
      fc.array(fc.nat(), { maxLength: 12 }),
      (contents, order) => {
        const pieces = contents.map((bytes) => deflatePiece(bytes))
        const picked = order.map((i) => i % pieces.length)
        const decoded = gunzipSync(streamOf(picked.map((i) => pieces[i]!)))
        expect(decoded.equals(Buffer.concat(picked.map((i) => Buffer.from(contents[i]!))))).toBe(true)
      }), { numRuns: 200 })
  })

  it("carries events smaller than what they were", () => {
    const events = Array.from({ length: 100 }, (_, i) => `event: leaf\nid: ${i}\ndata: {"index":${i},"type":"post","payload":{"channel":"help-desk"}}\n\n`).join("")
    const piece = deflatePiece(Buffer.from(events))
    expect(piece.blocks.length).toBeLessThan(events.length / 3)
    expect(gunzipSync(streamOf([piece, piece])).toString()).toBe(events + events)
  })

  it("an empty stream is a valid gzip file too", () => {
    expect(gunzipSync(streamOf([])).length).toBe(0)
  })
})

describe("a whole answer as one gzip member (the pages, pageDelivery.ts)", () => {
  it("decodes to exactly its bytes, the same bytes each time", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 20000 }), (bytes) => {
      const zipped = gzipWhole(bytes)
      expect(gunzipSync(zipped).equals(Buffer.from(bytes))).toBe(true)
      expect(gzipWhole(bytes).equals(zipped)).toBe(true)
    }), { numRuns: 100 })
    const page = Buffer.from("<!doctype html><p>a page</p>\n".repeat(200))
    expect(gzipWhole(page).length).toBeLessThan(page.length / 10)
  })
})
