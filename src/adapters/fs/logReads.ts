// FsLogStore's reads: positional reads (FileHandle.read at an offset) of the committed part
// of the files. Each takes the committed end as it was when the read began; bytes below it
// never change, so reads need no lock and run alongside an append, which only writes after
// the end and moves it once its sync is done.

import { Effect } from "effect"
import { HASH_SIZE, type Hash } from "../../domain/tlog/hasher.js"
import { storedHashCount } from "../../domain/tlog/storedHash.js"
import { StorageError } from "../../ports/StorageError.js"
import { readExactly, readRanges } from "./fileIo.js"
import type { LogEnd } from "./logAppend.js"
import type { LogFiles } from "./logFiles.js"
import { OFFSET_SIZE, readUint32, readUint64, recordSize } from "./logLayout.js"

/**
 * Positions closer than this are read together: a few hundred extra bytes cost less than
 * another read call, and proofs ask for hashes that sit near each other.
 */
const COALESCE_GAP = 16

const outOfRange = (operation: string, detail: string) => new StorageError({ operation, detail })

const corrupt = (detail: string) => new StorageError({ operation: "readEntries", detail: `leaves file: ${detail}` })

const isRange = (from: number, to: number, limit: number) =>
  Number.isSafeInteger(from) && Number.isSafeInteger(to) && from >= 0 && from <= to && to <= limit

/** Splits bytes read from the hashes file into 32-byte hashes (copies, so callers own them). */
const splitHashes = (bytes: Uint8Array): Array<Hash> => {
  const hashes: Array<Hash> = []
  for (let at = 0; at < bytes.length; at += HASH_SIZE) hashes.push(bytes.slice(at, at + HASH_SIZE))
  return hashes
}

export const readEntries = (files: LogFiles, end: LogEnd, from: number, to: number) =>
  Effect.gen(function*() {
    if (!isRange(from, to, end.size)) {
      return yield* outOfRange("readEntries", `entries [${from}, ${to}) of a log of ${end.size}`)
    }
    const count = to - from
    if (count === 0) return []
    // The offsets of from..to-1, and of `to` itself when it is committed (else the end).
    const withNext = to < end.size ? count + 1 : count
    const offsetBytes = yield* readExactly(files.offsets, OFFSET_SIZE * withNext, OFFSET_SIZE * from, "offsets")
    const offsetOf = (i: number) => (i < withNext ? readUint64(offsetBytes, OFFSET_SIZE * i) : end.leavesEnd)
    const first = offsetOf(0)
    const last = offsetOf(count)
    if (!(first < last && last <= end.leavesEnd)) return yield* corrupt(`records of [${from}, ${to}) at bytes [${first}, ${last})`)
    const bytes = yield* readExactly(files.leaves, last - first, first, "leaves")
    const entries: Array<Uint8Array> = []
    for (let i = 0; i < count; i++) {
      const start = offsetOf(i) - first
      const stop = offsetOf(i + 1) - first
      const length = stop - start >= 4 && stop <= bytes.length ? readUint32(bytes, start) : -1
      if (length < 0 || recordSize(length) !== stop - start) return yield* corrupt(`record of leaf ${from + i}`)
      // The buffer was read for this call alone, so views of it are the caller's.
      entries.push(bytes.subarray(start + 4, start + 4 + length))
    }
    return entries
  })

export const readHashRange = (files: LogFiles, end: LogEnd, from: number, to: number) =>
  Effect.gen(function*() {
    const total = storedHashCount(end.size)
    if (!isRange(from, to, total)) return yield* outOfRange("readHashRange", `hashes [${from}, ${to}) of ${total}`)
    if (from === to) return []
    return splitHashes(yield* readExactly(files.hashes, HASH_SIZE * (to - from), HASH_SIZE * from, "hashes"))
  })

export const readHashes = (files: LogFiles, end: LogEnd, indexes: ReadonlyArray<number>) =>
  Effect.gen(function*() {
    const total = storedHashCount(end.size)
    for (const index of indexes) {
      if (!(Number.isSafeInteger(index) && index >= 0 && index < total)) {
        return yield* outOfRange("readHashes", `hash ${index} of ${total}`)
      }
    }
    // Runs [start, stop) of nearby positions, each one read.
    const sorted = [...new Set(indexes)].sort((a, b) => a - b)
    const runs: Array<{ start: number; stop: number }> = []
    for (const position of sorted) {
      const run = runs[runs.length - 1]
      if (run !== undefined && position <= run.stop + COALESCE_GAP) run.stop = position + 1
      else runs.push({ start: position, stop: position + 1 })
    }
    const read = yield* readRanges(files.hashes, runs.map((run) => ({ position: HASH_SIZE * run.start, length: HASH_SIZE * (run.stop - run.start) })), "hashes")
    // Each asked position, found in its run (runs and positions are both sorted).
    const byPosition = new Map<number, Uint8Array>()
    let r = 0
    for (const position of sorted) {
      while (runs[r]!.stop <= position) r++
      const at = HASH_SIZE * (position - runs[r]!.start)
      byPosition.set(position, read[r]!.subarray(at, at + HASH_SIZE))
    }
    return indexes.map((index) => byPosition.get(index)!.slice())
  })
