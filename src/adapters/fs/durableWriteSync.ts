// The durable batch write of durableWrite.ts, step by step, with synchronous node:fs calls.
// It runs on the file-writer thread (fileWriterThread.ts), never on the event loop: there
// each call would block every request for the length of an fsync. The steps (the Sunlight
// sequence, done for many files at once so a batch pays one round of fsyncs rather than one
// per file):
//   1. create the folders, with their names made durable (durableFolders.ts);
//   2. for a file that must never change (`immutable`, a full tile): if it exists with the
//      same bytes it is skipped; with other bytes the batch fails before anything is written;
//   3. write each file's bytes to a temporary name in its final folder, and fsync it, so
//      the bytes are on disk before any name points at them (fsync rather than fdatasync:
//      the file is new, so its size and allocation are metadata the bytes need);
//   4. rename each temporary file over its final name, which POSIX makes atomic: a reader
//      sees the old file or the new one, never a mix;
//   5. fsync each folder that received a rename, once, so the new names survive a power loss.
// Temporary names start with "." so they never collide with a published path (the sinks
// refuse path segments that start with a dot). A crash can leave one behind: nothing reads
// it, so it is garbage at worst; a failed batch removes its own.

import { closeSync, constants, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs"
import { basename, dirname, join } from "node:path"
import { threadId } from "node:worker_threads"
import { type DurableFolderSet, syncPath } from "./durableFolders.js"
import { isMissingFile } from "./missingFile.js"

export interface FileToWrite {
  /** Absolute path inside the writer's root. */
  readonly path: string
  readonly bytes: Uint8Array
  /** Never rewritten: equal bytes are skipped, different bytes fail the batch. */
  readonly immutable?: boolean
}

/** Why a batch failed: the operation and the path, as StorageError names them. */
export class DurableWriteFailure extends Error {
  constructor(readonly operation: string, readonly detail: string) {
    super(`${operation}: ${detail}`)
  }
}

const readIfPresent = (path: string): Uint8Array | undefined => {
  try {
    return readFileSync(path)
  } catch (error) {
    if (isMissingFile(error)) return undefined
    throw error
  }
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && Buffer.compare(a, b) === 0

// Unique within the machine: process, thread (each writer has its own thread), counter.
let counter = 0
const temporaryName = (path: string): string =>
  join(dirname(path), `.${basename(path)}.${process.pid}.${threadId}.${counter++}.tmp`)

const step = <A>(operation: string, path: string, run: () => A): A => {
  try {
    return run()
  } catch (error) {
    if (error instanceof DurableWriteFailure) throw error
    throw new DurableWriteFailure(operation, `${path}: ${error instanceof Error ? error.message : String(error)}`)
  }
}

const writeTemporary = (temp: string, bytes: Uint8Array): void => {
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644)
  try {
    for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done, done)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** Writes every file atomically; durable when it returns; throws DurableWriteFailure. */
export const writeFilesDurablySync = (folders: DurableFolderSet, files: ReadonlyArray<FileToWrite>): void => {
  const toWrite: Array<FileToWrite> = []
  for (const file of files) {
    if (file.immutable === true) {
      const existing = step("read", file.path, () => readIfPresent(file.path))
      if (existing !== undefined) {
        if (sameBytes(existing, file.bytes)) continue
        throw new DurableWriteFailure("write", `${file.path} exists with different bytes: refusing to fork the published log`)
      }
    }
    toWrite.push(file)
  }
  if (toWrite.length === 0) return
  const touched = [...new Set(toWrite.map((file) => dirname(file.path)))]
  for (const folder of touched) step("mkdir", folder, () => folders.ensure(folder))
  const staged = toWrite.map((file) => ({ ...file, temp: temporaryName(file.path) }))
  try {
    for (const file of staged) step("write", file.path, () => writeTemporary(file.temp, file.bytes))
  } catch (error) {
    // Leave no temporary files behind on failure; the targets were not touched.
    for (const file of staged) rmSync(file.temp, { force: true })
    throw error
  }
  for (const file of staged) step("rename", file.path, () => renameSync(file.temp, file.path))
  for (const folder of touched) step("fsync", folder, () => syncPath(folder))
}
