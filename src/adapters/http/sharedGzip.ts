// A gzip stream (RFC 1952) whose compressed blocks are shared between many streams: what
// lets GET /v2/stream compress a dispatch's events once and send the same bytes to every
// subscriber that accepts gzip (sseWire.ts), as Bluesky's Jetstream does with zstd.
//
// A gzip member is a header, DEFLATE blocks (RFC 1951) and a trailer (the CRC-32 and the
// length of everything uncompressed). Blocks carry no state between them when each piece is
// compressed on its own (a fresh compressor, no back-reference to an earlier piece) and
// ended with a sync flush (non-final blocks ending on a byte boundary): such pieces can
// follow each other in any order, in any stream. What is per stream is only the trailer,
// and its CRC-32 is made from the pieces' own, computed once each, by crc32Combine (zlib's
// crc32_combine): a few dozen operations a piece, not a pass over its bytes per subscriber.

import { constants, crc32, deflateRawSync } from "node:zlib"

/** The gzip header: deflate, no name or time, unknown OS (RFC 1952 section 2.3). */
export const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff])

/** An empty final block with fixed codes (RFC 1951 3.2.6): BFINAL 1, BTYPE 01, end of block. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00])

/** Speed over size: a piece is compressed once whatever the subscribers, on the event loop. */
const LEVEL = 1

/** One piece of uncompressed bytes as DEFLATE blocks any gzip stream can carry. */
export interface DeflatedPiece {
  readonly blocks: Buffer
  /** CRC-32 of the uncompressed bytes. */
  readonly crc: number
  /** Their length. */
  readonly length: number
}

export const deflatePiece = (bytes: Uint8Array): DeflatedPiece => ({
  blocks: deflateRawSync(bytes, { level: LEVEL, finishFlush: constants.Z_SYNC_FLUSH }),
  crc: crc32(bytes),
  length: bytes.length
})

/** The running CRC-32 and length of what a gzip stream has carried so far. */
export interface GzipTally {
  crc: number
  length: number
}

export const emptyTally = (): GzipTally => ({ crc: 0, length: 0 })

/** Counts the piece into the stream's tally (to be called for each piece sent, in order). */
export const tallyPiece = (tally: GzipTally, piece: DeflatedPiece): void => {
  tally.crc = crc32Combine(tally.crc, piece.crc, piece.length)
  tally.length += piece.length
}

/** What ends the stream: a final empty block, then the CRC-32 and the length modulo 2^32. */
export const gzipEnd = (tally: GzipTally): Buffer => {
  const trailer = Buffer.alloc(8)
  trailer.writeUInt32LE(tally.crc >>> 0, 0)
  trailer.writeUInt32LE(tally.length % 2 ** 32, 4)
  return Buffer.concat([FINAL_BLOCK, trailer])
}

/**
 * A whole answer as one gzip member of a single piece: what the pages are sent as to a
 * client that takes gzip (pageDelivery.ts), by the same code as the stream's pieces.
 */
export const gzipWhole = (bytes: Uint8Array): Buffer => {
  const piece = deflatePiece(bytes)
  const tally = emptyTally()
  tallyPiece(tally, piece)
  return Buffer.concat([GZIP_HEADER, piece.blocks, gzipEnd(tally)])
}

// CRC-32 arithmetic in GF(2) modulo the reflected polynomial (zlib's crc32.c, multmodp
// and x2nmodp): the CRC of A followed by B is crc(A) times x^(8 * length(B)), plus crc(B).
const POLY = 0xedb88320
const TOP = 0x80000000

/** a(x) times b(x) modulo p(x), bits reflected. */
const multModP = (a: number, b: number): number => {
  let p = 0
  for (let m = TOP; m !== 0; m >>>= 1) {
    if ((a & m) !== 0) {
      p ^= b
      if ((a & (m - 1)) === 0) break
    }
    b = (b & 1) !== 0 ? (b >>> 1) ^ POLY : b >>> 1
  }
  return p >>> 0
}

/** x^(2^k) modulo p(x), for k in 0..31. */
const X2N = (() => {
  const table = new Array<number>(32)
  let p = TOP >>> 1 // x^1
  table[0] = p
  for (let k = 1; k < 32; k++) table[k] = p = multModP(p, p)
  return table
})()

/** x^(n * 2^k) modulo p(x). */
const x2nModP = (n: number, k: number): number => {
  let p = TOP // x^0
  while (n > 0) {
    if (n % 2 === 1) p = multModP(X2N[k & 31]!, p)
    n = Math.floor(n / 2)
    k++
  }
  return p
}

/** The CRC-32 of A followed by B, from crc(A), crc(B) and B's length. */
export const crc32Combine = (crcA: number, crcB: number, lengthB: number): number =>
  lengthB === 0 ? crcA >>> 0 : (multModP(x2nModP(lengthB, 3), crcA >>> 0) ^ crcB) >>> 0
