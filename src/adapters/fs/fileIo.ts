// Positional file I/O for the filesystem adapters, over node:fs/promises FileHandles.
// FileHandle.read and FileHandle.write may move fewer bytes than asked, so every helper
// loops until the whole range is done; every failure becomes a StorageError naming the
// operation, which is what the ports promise their callers.

import { constants, readSync } from "node:fs"
import type { FileHandle } from "node:fs/promises"
import { open } from "node:fs/promises"
import type { Scope } from "effect"
import { Effect } from "effect"
import { equal } from "../../domain/bytes.js"
import { StorageError } from "../../ports/StorageError.js"

/** Runs a Node promise, turning its rejection into a StorageError. */
export const attempt = <A>(operation: string, detail: string, run: () => Promise<A>): Effect.Effect<A, StorageError> =>
  Effect.tryPromise({
    try: run,
    catch: (cause) =>
      new StorageError({ operation, detail: cause instanceof Error ? `${detail}: ${cause.message}` : detail, cause })
  })

/** Reads into the buffer from the position until it is full or the file ends; returns the bytes read. */
export const readInto = async (handle: FileHandle, buffer: Uint8Array, position: number): Promise<number> => {
  let done = 0
  while (done < buffer.length) {
    const { bytesRead } = await handle.read(buffer, done, buffer.length - done, position + done)
    if (bytesRead === 0) break
    done += bytesRead
  }
  return done
}

/** A span of a file to read: `length` bytes from `position`. */
export interface FileRange {
  readonly position: number
  readonly length: number
}

/**
 * Reads of at most this many bytes in all (a request's offsets, leaf, proof hashes, body
 * header) are synchronous `pread`s while they are quick (below); larger ones go through
 * libuv's pool.
 */
const SYNC_READ_BYTES = 64 * 1024

/**
 * A synchronous read that took longer than SLOW_READ_MS most likely came from the disk, not
 * the page cache, and held the event loop meanwhile (or its thread was preempted, which a
 * busy machine does now and then). Each file keeps a decaying count of its slow reads (each
 * read keeps 7/8 of it and adds one if slow); when it passes SLOW_READS, a few slow reads
 * close together, the file's reads go through libuv's pool for ASYNC_SPELL_MS before they
 * are tried synchronously again. A lone preempted read does not switch; a run of reads the
 * page cache misses does, after three of them, at most once a spell.
 *
 * Why 0.15 ms: a request's reads from the page cache take a few µs (4 µs the median of a
 * 512-byte pread here), one from an SSD 0.1-0.35 ms (p10 of the misses 0.1, p90 0.18, p99
 * 0.34 ms). At 1 ms the misses of an SSD were all "quick": on a log of 3,000,000 entries
 * (7 GB) whose files the page cache did not hold, GET /v2/entries/{i} at random indexes
 * spent 38% of the event loop blocked in pread and answered 870-1,060 requests a second,
 * and 1,480-1,490 with 0.15 ms (the same CPU a request, the reads overlapping in the pool);
 * with the files cached both answer alike (bench/README.md "Session 33").
 */
export const SLOW_READ_MS = 0.15
const SLOW_READS = 2.5
export const ASYNC_SPELL_MS = 1000

export interface ReadPace {
  /** The decaying count of slow synchronous reads. */
  slow: number
  /** When reads may be synchronous again (performance.now()). */
  asyncUntil: number
}

const paces = new WeakMap<FileHandle, ReadPace>()

/** The pace of a file's reads, made on its first. */
const paceOf = (handle: FileHandle): ReadPace => {
  let pace = paces.get(handle)
  if (pace === undefined) paces.set(handle, pace = { slow: 0, asyncUntil: 0 })
  return pace
}

/** Counts a synchronous read that took `elapsed` ms, starting an asynchronous spell after several slow ones. */
export const paceRead = (pace: ReadPace, elapsed: number, now: number): void => {
  pace.slow = pace.slow * 7 / 8 + (elapsed > SLOW_READ_MS ? 1 : 0)
  if (pace.slow > SLOW_READS) {
    pace.slow = 0
    pace.asyncUntil = now + ASYNC_SPELL_MS
  }
}

/** readInto with synchronous calls: fills the buffer from the position until it is full or the file ends. */
const readIntoSync = (fd: number, buffer: Uint8Array, position: number): number => {
  let done = 0
  while (done < buffer.length) {
    const read = readSync(fd, buffer, done, buffer.length - done, position + done)
    if (read === 0) break
    done += read
  }
  return done
}

/** The buffers of ranges that were all read whole, or the error naming the first short one. */
const exactly = (
  ranges: ReadonlyArray<FileRange>,
  results: ReadonlyArray<{ readonly buffer: Uint8Array; readonly read: number }>,
  what: string
): Effect.Effect<ReadonlyArray<Uint8Array>, StorageError> => {
  const short = results.findIndex(({ read }, i) => read !== ranges[i]!.length)
  return short < 0
    ? Effect.succeed(results.map(({ buffer }) => buffer))
    : Effect.fail(new StorageError({ operation: "read", detail: `${what}: file ends after ${results[short]!.read} of ${ranges[short]!.length} bytes` }))
}

/**
 * Reads each range exactly (a short file is an error: the store promised those bytes), all
 * at once.
 *
 * Small reads are synchronous: a FileHandle.read is a trip through libuv's pool and back,
 * which cost the main thread about 35 µs a read in a profile of GET /v2/entries/{i} (five
 * reads a request, 14% of its CPU), where a `pread` the page cache answers costs a few µs.
 * This is the trade SQLite already makes on the same thread for state.db and the sidecars.
 * A read the page cache misses would hold the event loop for the disk's latency, so slow
 * ones (ReadPace) send that file's reads back through the pool for a while.
 * Large reads (a document's body) always go through the pool. The asynchronous reads run
 * as one Effect around their promises: a proof's hashes in several runs were read a forked
 * fiber a run, which cost more of the event loop than the reads.
 */
export const readRanges = (
  handle: FileHandle,
  ranges: ReadonlyArray<FileRange>,
  what: string
): Effect.Effect<ReadonlyArray<Uint8Array>, StorageError> =>
  Effect.suspend(() => {
    const total = ranges.reduce((sum, { length }) => sum + length, 0)
    const pace = paceOf(handle)
    const started = performance.now()
    if (total <= SYNC_READ_BYTES && started >= pace.asyncUntil) {
      try {
        const results = ranges.map(({ position, length }) => {
          const buffer = new Uint8Array(length)
          return { buffer, read: readIntoSync(handle.fd, buffer, position) }
        })
        const finished = performance.now()
        paceRead(pace, finished - started, finished)
        return exactly(ranges, results, what)
      } catch (cause) {
        return Effect.fail(new StorageError({ operation: "read", detail: cause instanceof Error ? `${what}: ${cause.message}` : what, cause }))
      }
    }
    return Effect.flatMap(
      attempt("read", what, () =>
        Promise.all(ranges.map(async ({ position, length }) => {
          const buffer = new Uint8Array(length)
          return { buffer, read: await readInto(handle, buffer, position) }
        }))),
      (results) => exactly(ranges, results, what)
    )
  })

/** Reads exactly length bytes at the position; a short file is an error (the store promised them). */
export const readExactly = (
  handle: FileHandle,
  length: number,
  position: number,
  what: string
): Effect.Effect<Uint8Array, StorageError> => Effect.map(readRanges(handle, [{ position, length }], what), ([bytes]) => bytes!)

/** Writes all the bytes at the position. */
export const writeFully = async (handle: FileHandle, bytes: Uint8Array, position: number): Promise<void> => {
  let done = 0
  while (done < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, position + done)
    done += bytesWritten
  }
}

/**
 * fsyncs a folder, which makes the names in it (new files, renames, unlinks) durable: fsync
 * of a file covers its bytes, not the directory entry that points at it.
 */
export const syncFolder = async (folder: string): Promise<void> => {
  const handle = await open(folder, constants.O_RDONLY)
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/**
 * Opens a store file (created when missing) for the lifetime of the scope, read-write with
 * O_DSYNC and without O_APPEND.
 *
 * O_DSYNC makes every write return only once its bytes and the file size are on stable
 * storage, as a write followed by fdatasync would. The difference is the event loop: a
 * write then a sync are two trips through libuv's pool and back through a busy event
 * loop, and each trip waited ~2 ms under bench/write's load (the syscalls took ~0.3 ms), so
 * a batch's commit took 4 trips and ~14 ms; with O_DSYNC it takes one trip per file.
 * Without O_APPEND, appends write at the committed end by position, so bytes a failed
 * write left after it are overwritten rather than kept. Truncations are not covered by
 * O_DSYNC: recovery still syncs after them.
 */
export const openStoreFile = (path: string): Effect.Effect<FileHandle, StorageError, Scope.Scope> =>
  Effect.acquireRelease(
    attempt("open", path, () => open(path, constants.O_RDWR | constants.O_CREAT | constants.O_DSYNC, 0o644)),
    (handle) => attempt("close", path, () => handle.close()).pipe(Effect.ignore)
  )

/** Bytes read ahead per refill when a recovery scan walks a file. */
const SCAN_WINDOW = 1 << 20

/**
 * A reader for a forward scan of records: `bytesAt(at, length)` gives the bytes [at, at +
 * length), or undefined when the file (of `fileLength` bytes) ends first. It reads a window
 * ahead, so a scan of many small records costs few reads.
 */
export const windowedReader = (handle: FileHandle, from: number, fileLength: number) => {
  let buffer = new Uint8Array(0)
  let bufferStart = from
  return async (at: number, length: number): Promise<Uint8Array | undefined> => {
    if (at + length > fileLength) return undefined
    if (at < bufferStart || at + length > bufferStart + buffer.length) {
      buffer = new Uint8Array(Math.min(Math.max(SCAN_WINDOW, length), fileLength - at))
      buffer = buffer.subarray(0, await readInto(handle, buffer, at))
      bufferStart = at
      if (buffer.length < length) return undefined
    }
    return buffer.subarray(at - bufferStart, at - bufferStart + length)
  }
}

/**
 * Makes the file hold exactly `tail` from `from` on (its length now `length`), writing only
 * when it does not already; the caller syncs.
 */
export const settleTail = (handle: FileHandle, name: string, from: number, tail: Uint8Array, length: number) =>
  attempt("recover", `settling the tail of ${name}`, async () => {
    if (length === from + tail.length) {
      const existing = new Uint8Array(tail.length)
      if ((await readInto(handle, existing, from)) === tail.length && equal(existing, tail)) return
    }
    await writeFully(handle, tail, from)
    await handle.truncate(from + tail.length)
  })
