// The lock every read-modify-save of a key file runs under.
//
// Why: a write reads the key file, signs its envelope at the chain position the file holds
// (seq, prev), sends it, and saves the advanced chain with the new receipt. Two of these at
// once (an LLM client's parallel tool calls to `aics mcp`, or `aics post` typed while
// `aics mcp` runs on the same file) sign the same seq: the log refuses all but one
// (seq_mismatch), and the later save overwrites the earlier one, losing its receipt. Under
// this lock they go one after another, each from the position the one before saved.
//
//   in this process:   a queue per key file, keyed by its real absolute path (two spellings
//                      of one file, a symlink, share the queue);
//   across processes:  the lock file `<key file>.lock` beside the real file, made
//                      exclusively (written under a temporary name and linked into place,
//                      so it never exists without its holder) and removed when done. It
//                      names its holder: {pid, host, token, since}. A lock whose holder is
//                      gone (the process crashed or was killed mid-write) is stale and taken
//                      over; a live holder is waited for in short polls up to a deadline,
//                      then the write fails with a key_file error naming the lock file and
//                      its holder.
//
// Reads that only read take no lock: a save replaces the file by an atomic rename
// (keyFile.ts), so a reader sees the old file or the new one, never a mix.

import { hostname } from "node:os"
import { link, readFile, realpath, rename, rm, writeFile } from "node:fs/promises"
import { resolve } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { encodeU64 } from "../domain/encoding.js"
import { randomBytes } from "./crypto.js"
import { keyFileError } from "./errors.js"

export interface LockTiming {
  /** How long to wait for another process's lock before giving up. */
  readonly waitMs: number
  /** How often to look at it meanwhile. */
  readonly pollMs: number
  /** Told once when this write starts to wait for another process's lock: the lock file and what it holds. */
  readonly waiting?: ((lockPath: string, holderText: string) => void) | undefined
}

/**
 * A write holds the lock for a few round trips to the service (each bounded by the HTTP
 * timeout, 30 s), a claim for its proof of work too: two minutes covers a slow one.
 */
export const DEFAULT_LOCK_TIMING: LockTiming = { waitMs: 120_000, pollMs: 50 }

/** What a lock file holds: who made it, so that others can tell whether it still stands. */
interface Holder {
  readonly pid: number
  readonly host: string
  /** Random: tells this holder's lock from a later one of the same pid. */
  readonly token: string
  /** ISO time the lock was taken, for the message of whoever waits. */
  readonly since: string
}

interface HeldLock {
  readonly path: string
  /** The lock file's exact text: only a lock holding it is ours to remove. */
  readonly text: string
}

export const lockPathOf = (keyFile: string): string => `${keyFile}.lock`

/**
 * Runs `body` (a read-modify-save of the key file at `keyPath`) alone: after every earlier
 * one of this process, and while no other process holds the file's lock. The lock is
 * released however `body` ends. Not reentrant: `body` must not take the same file's lock.
 */
export const withKeyFileLock = async <A>(keyPath: string, body: () => Promise<A>, timing: LockTiming = DEFAULT_LOCK_TIMING): Promise<A> => {
  const keyFile = await realKeyFile(keyPath)
  // No file there: nothing to protect, and the body's own read says what is missing.
  if (keyFile === undefined) return body()
  return inTurn(keyFile, async () => {
    const held = await acquire(lockPathOf(keyFile), timing)
    try {
      return await body()
    } finally {
      await release(held)
    }
  })
}

const realKeyFile = (path: string): Promise<string | undefined> => realpath(resolve(path)).catch(() => undefined)

// ---------------------------------------------------------------------------------------
// In this process: one queue per key file

/** The last turn queued for each key file; a turn runs once the one before it has ended. */
const lastTurns = new Map<string, Promise<void>>()

const inTurn = async <A>(keyFile: string, body: () => Promise<A>): Promise<A> => {
  const before = lastTurns.get(keyFile) ?? Promise.resolve()
  let end!: () => void
  const ended = new Promise<void>((resolve) => { end = resolve })
  const mine = before.then(() => ended)
  lastTurns.set(keyFile, mine)
  await before
  try {
    return await body()
  } finally {
    end()
    // The queue is empty again: forget the file, so a long-lived process holds no map of every file it wrote.
    if (lastTurns.get(keyFile) === mine) lastTurns.delete(keyFile)
  }
}

// ---------------------------------------------------------------------------------------
// Across processes: the lock file

const acquire = async (lockPath: string, timing: LockTiming): Promise<HeldLock> => {
  const me: Holder = { pid: process.pid, host: hostname(), token: encodeU64(randomBytes(12)), since: new Date().toISOString() }
  const held: HeldLock = { path: lockPath, text: JSON.stringify(me) + "\n" }
  const deadline = Date.now() + timing.waitMs
  let told = false
  for (;;) {
    const seen = await readOptional(lockPath)
    if (seen === undefined) {
      if (await createdLock(held, `${lockPath}.${me.pid}.${me.token}.tmp`)) return held
      continue // another process made it first: look at its holder
    }
    const holder = holderOf(seen)
    if (holder !== undefined && isStale(holder)) {
      await breakStaleLock(lockPath, seen, me)
      continue
    }
    if (Date.now() >= deadline) throw lockedError(lockPath, holder, timing.waitMs)
    if (!told) timing.waiting?.(lockPath, seen)
    told = true
    await sleep(timing.pollMs)
  }
}

/**
 * Makes the lock file hold `held.text`, or returns false when a lock is already there. The
 * text is written under a draft name and linked into place (link fails if the name
 * exists), so the lock file never exists without its holder; the draft is gone at once.
 */
const createdLock = async (held: HeldLock, draft: string): Promise<boolean> => {
  try {
    await writeFile(draft, held.text, { mode: 0o600, flag: "wx" })
    await link(draft, held.path)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
    throw keyFileError(`cannot create the lock file ${held.path}: ${message(error)}`)
  } finally {
    await rm(draft, { force: true })
  }
}

/** Removes the lock if it is still ours. A failure is not the write's: the lock is then stale once this process ends. */
const release = async (held: HeldLock): Promise<void> => {
  try {
    if ((await readOptional(held.path)) === held.text) await rm(held.path, { force: true })
  } catch {
    // Nothing to do: a later writer takes the lock over once this process is gone.
  }
}

/**
 * Whether the holder is gone. Only a holder on this host can be checked (its pid means
 * nothing elsewhere). This process's own pid is stale too: the queue above lets one lock
 * of this process at a time, so such a lock is a leftover (a failed release, or a process
 * before a restart that had the same pid).
 */
const isStale = (holder: Holder): boolean =>
  holder.host === hostname() && (holder.pid === process.pid || !processIsAlive(holder.pid))

const processIsAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0) // signal 0: only asks whether the process exists
    return true
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return (error as NodeJS.ErrnoException).code !== "ESRCH"
  }
}

/**
 * Takes a stale lock away: moved aside first, so that if another process took it over
 * between our read and the move (the text differs), its lock is put back rather than lost.
 */
const breakStaleLock = async (lockPath: string, seen: string, me: Holder): Promise<void> => {
  const aside = `${lockPath}.${me.pid}.${me.token}.stale`
  try {
    await rename(lockPath, aside)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return // someone else removed it
    throw keyFileError(`cannot remove the stale lock file ${lockPath}: ${message(error)}`)
  }
  if ((await readOptional(aside)) !== seen) await link(aside, lockPath).catch(() => undefined)
  await rm(aside, { force: true })
}

const lockedError = (lockPath: string, holder: Holder | undefined, waitedMs: number) => {
  const waited = `waited ${Math.round(waitedMs / 1000)} s`
  if (holder === undefined) {
    return keyFileError(
      `${lockPath} exists but does not name its holder (${waited}); if no aics process is writing with this key file, delete it and try again`
    )
  }
  const where = holder.host === hostname() ? "" : ` on host ${holder.host}`
  return keyFileError(
    `another aics process (pid ${holder.pid}${where}, since ${holder.since}) is writing with this key file and holds ${lockPath} (${waited}); ` +
      `try again when it is done, or if no process ${holder.pid} is running${where}, delete ${lockPath}`
  )
}

const holderOf = (text: string): Holder | undefined => {
  try {
    const json = JSON.parse(text) as Partial<Holder>
    const ok = Number.isSafeInteger(json.pid) && (json.pid ?? 0) > 0 && typeof json.host === "string" &&
      typeof json.token === "string" && typeof json.since === "string"
    return ok ? json as Holder : undefined
  } catch {
    return undefined
  }
}

const readOptional = (path: string): Promise<string | undefined> =>
  readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined
    throw keyFileError(`cannot read the lock file ${path}: ${message(error)}`)
  })

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error))
