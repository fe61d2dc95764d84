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
//                      of one file, a symlink, share the queue), waited in up to the same
//                      deadline as the lock file;
//   across processes:  the lock file `<key file>.lock` beside the real file, made
//                      exclusively (written under a temporary name and linked into place,
//                      so it never exists without its holder; where the file system has no
//                      hard links, created with O_EXCL and written at once) and removed when
//                      done. It names its holder: {pid, host, thread, token, since}. A lock
//                      whose holder is gone (the process crashed or was killed mid-write) is
//                      stale and taken over, by one breaker at a time (`<lock>.break`); a
//                      live holder is waited for in short polls up to a deadline, then the
//                      write fails with a key_file error naming the lock file and its holder.
//                      A holder on another host (`host`, this machine's hostname when it
//                      took the lock) cannot be checked and is never judged stale: its
//                      error says so, with the host, pid and age of the lock and the `rm`
//                      that removes it, for an operator who knows that holder is gone. A
//                      lock file that names no host (nor the rest) names no holder, as before.
//
// A write that needs two key files (recover: the agent's and the recovery key's) takes both
// with withKeyFileLocks, in the order of their real paths, so that two such writes with the
// same files in opposite roles cannot each hold one and wait for the other. Inside a body,
// the locks it holds are held: taking one of them again (writeWithKeyFile inside recover)
// runs at once, in the same turn.
//
// Reads that only read take no lock: a save replaces the file by an atomic rename
// (keyFile.ts), so a reader sees the old file or the new one, never a mix.

import { AsyncLocalStorage } from "node:async_hooks"
import { hostname } from "node:os"
import { link, open, readFile, realpath, rename, rm, stat, writeFile } from "node:fs/promises"
import { resolve } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { threadId } from "node:worker_threads"
import { encodeU64 } from "../domain/encoding.js"
import { randomBytes } from "./crypto.js"
import { keyFileError } from "./errors.js"

export interface LockTiming {
  /** How long to wait for the lock (this process's earlier writes, then another process's) before giving up. */
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
  /** The worker thread (0: the main thread). Only said, and used for this thread's own leftovers. */
  readonly thread?: number | undefined
  /** Random: tells this holder's lock from a later one of the same pid. */
  readonly token: string
  /** ISO time the lock was taken: tells a lock of this process from one of an earlier process with the same pid. */
  readonly since: string
}

interface HeldLock {
  readonly path: string
  /** The lock file's exact text: only a lock holding it is ours to remove. */
  readonly text: string
  readonly token: string
}

export const lockPathOf = (keyFile: string): string => `${keyFile}.lock`
export const breakPathOf = (lockPath: string): string => `${lockPath}.break`

/**
 * Runs `body` (a read-modify-save of the key file at `keyPath`) alone: after every earlier
 * one of this process, and while no other process holds the file's lock. The lock is
 * released however `body` ends. Within `body`, taking the same file's lock again runs at once.
 */
export const withKeyFileLock = <A>(keyPath: string, body: () => Promise<A>, timing: LockTiming = DEFAULT_LOCK_TIMING): Promise<A> =>
  withKeyFileLocks([keyPath], body, timing)

/**
 * withKeyFileLock for several key files at once: their locks are taken in the order of the
 * files' real paths (whatever the order given), so that writes taking the same files in
 * different orders cannot deadlock; a file that is not there takes no lock. The wait for
 * all of them together is bounded by `timing.waitMs`.
 */
export const withKeyFileLocks = async <A>(keyPaths: ReadonlyArray<string>, body: () => Promise<A>, timing: LockTiming = DEFAULT_LOCK_TIMING): Promise<A> => {
  const held = heldHere.getStore() ?? new Set<string>()
  const real = await Promise.all(keyPaths.map(realKeyFile))
  // No file there: nothing to protect, and the body's own read says what is missing.
  const keyFiles = [...new Set(real.filter((file): file is string => file !== undefined && !held.has(file)))].sort(byCodeUnits)
  if (keyFiles.length === 0) return body()
  const deadline = Date.now() + timing.waitMs
  const inner = new Set([...held, ...keyFiles])
  const step = (i: number): Promise<A> =>
    i === keyFiles.length
      ? heldHere.run(inner, body).finally(() => inner.clear()) // a task the body left running holds nothing once it ends
      : inTurn(keyFiles[i]!, deadline, timing, async () => {
        const lock = await acquire(lockPathOf(keyFiles[i]!), deadline, timing)
        try {
          return await step(i + 1)
        } finally {
          await release(lock)
        }
      })
  return step(0)
}

const realKeyFile = (path: string): Promise<string | undefined> => realpath(resolve(path)).catch(() => undefined)

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** The real paths of the key files whose locks the running body holds. */
const heldHere = new AsyncLocalStorage<Set<string>>()

// ---------------------------------------------------------------------------------------
// In this process: one queue per key file

/** The last turn queued for each key file; a turn runs once the one before it has ended. */
const lastTurns = new Map<string, Promise<void>>()

const inTurn = async <A>(keyFile: string, deadline: number, timing: LockTiming, body: () => Promise<A>): Promise<A> => {
  const before = lastTurns.get(keyFile)
  let end!: () => void
  const ended = new Promise<void>((resolve) => { end = resolve })
  // Ends once the turn before has ended and this one has: a turn that gives up waiting
  // ends at once, and the next one still waits for the one before it.
  const mine = (before ?? Promise.resolve()).then(() => ended)
  lastTurns.set(keyFile, mine)
  const forget = () => {
    // The queue is empty again: forget the file, so a long-lived process holds no map of every file it wrote.
    if (lastTurns.get(keyFile) === mine) lastTurns.delete(keyFile)
  }
  if (before !== undefined && !(await settledBy(before, deadline))) {
    end()
    void mine.then(forget)
    throw keyFileError(
      `another write with ${keyFile} in this process did not end within ${Math.round(timing.waitMs / 1000)} s; ` +
        `try again when it is done (a write that takes several key files, recover, takes them in one order, so two cannot wait for each other)`
    )
  }
  try {
    return await body()
  } finally {
    end()
    forget()
  }
}

/** Whether `promise` settles by `deadline`. */
const settledBy = async (promise: Promise<void>, deadline: number): Promise<boolean> => {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now())) })
  try {
    return await Promise.race([promise.then(() => true as const), late])
  } finally {
    clearTimeout(timer)
  }
}

// ---------------------------------------------------------------------------------------
// Across processes: the lock file

/**
 * The tokens of the locks taken and not yet released by any copy of this library in this
 * thread (kept on globalThis, so that two copies of it share them): a lock of this pid and
 * thread whose token is not among them is a leftover (a release that failed), not a holder.
 */
const TOKENS = Symbol.for("aics.keyFileLock.tokens")
const liveTokens = (): Set<string> => {
  const global = globalThis as { [TOKENS]?: Set<string> }
  return (global[TOKENS] ??= new Set<string>())
}

/** Wall-clock time this process started: a lock of this pid taken before is of another process that had the pid. */
const PROCESS_STARTED = Date.now() - process.uptime() * 1000
/** Slack for the two clocks the start is computed from: a lock this close to the start is not judged a leftover. */
const START_SLACK_MS = 1_000

const newHolder = (): Holder =>
  ({ pid: process.pid, host: hostname(), thread: threadId, token: encodeU64(randomBytes(12)), since: new Date().toISOString() })

/**
 * Takes the lock file at `lockPath` for this process (exported for the tests: withKeyFileLocks is the way to use it;
 * two calls in one process, bypassing the queue, wait for each other as two processes do).
 */
export const acquire = async (lockPath: string, deadline: number, timing: LockTiming): Promise<HeldLock> => {
  const me = newHolder()
  const held: HeldLock = { path: lockPath, text: JSON.stringify(me) + "\n", token: me.token }
  liveTokens().add(me.token)
  let told = false
  try {
    for (;;) {
      const seen = await readOptional(lockPath)
      if (seen === undefined) {
        if (await createLockFile(lockPath, held.text, `${lockPath}.${me.pid}.${me.token}.tmp`)) return held
        continue // another process made it first: look at its holder
      }
      const holder = holderOf(seen)
      if (await isStale(lockPath, seen, holder)) {
        if (await breakStaleLock(lockPath, seen)) continue
        // Another process is breaking it: look again after a poll.
      }
      if (Date.now() >= deadline) throw lockedError(lockPath, holder, timing.waitMs)
      if (!told) timing.waiting?.(lockPath, seen)
      told = true
      await sleep(Math.max(0, Math.min(timing.pollMs, deadline - Date.now())))
    }
  } catch (error) {
    liveTokens().delete(me.token)
    throw error
  }
}

/** Errors of link(2) that say the file system has no hard links (FAT, some network and FUSE file systems). */
const NO_HARD_LINKS: ReadonlySet<string> = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "EXDEV", "ENOSYS"])

type LinkFunction = (existing: string, made: string) => Promise<void>

/**
 * Makes the lock file hold `text`, or returns false when a lock is already there. The text
 * is written under a draft name and linked into place (link fails if the name exists), so
 * the lock file never exists without its holder; the draft is gone at once. Where the file
 * system has no hard links, the lock file is created exclusively (O_EXCL) and written at
 * once: a reader may then see it empty for an instant, and an empty lock is not stale
 * until EMPTY_GRACE_MS has passed (isStale). `linkFile` is there for the tests.
 */
export const createLockFile = async (lockPath: string, text: string, draft: string, linkFile: LinkFunction = link): Promise<boolean> => {
  let linked = false
  try {
    await writeFile(draft, text, { mode: 0o600, flag: "wx" })
    await linkFile(draft, lockPath)
    linked = true
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === "EEXIST") return false
    if (code === undefined || !NO_HARD_LINKS.has(code)) throw keyFileError(`cannot create the lock file ${lockPath}: ${message(error)}`)
  } finally {
    await rm(draft, { force: true })
  }
  return linked || createExclusively(lockPath, text)
}

const createExclusively = async (lockPath: string, text: string): Promise<boolean> => {
  let file
  try {
    file = await open(lockPath, "wx", 0o600)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
    throw keyFileError(`cannot create the lock file ${lockPath}: ${message(error)}`)
  }
  try {
    await file.writeFile(text)
    await file.close()
    return true
  } catch (error) {
    await file.close().catch(() => undefined)
    await rm(lockPath, { force: true })
    throw keyFileError(`cannot write the lock file ${lockPath}: ${message(error)}`)
  }
}

/** Removes the lock if it is still ours. A failure is not the write's: the lock is then stale once this process ends. */
const release = async (held: HeldLock): Promise<void> => {
  try {
    if ((await readOptional(held.path)) === held.text) await rm(held.path, { force: true })
  } catch {
    // Nothing to do: a later writer takes the lock over once this process is gone.
  } finally {
    liveTokens().delete(held.token)
  }
}

/** How long an empty lock file may stay empty: one created without hard links is written right after it is made. */
export const EMPTY_GRACE_MS = 10_000

/**
 * Whether the lock's holder is gone. Only a holder on this host can be checked (its pid
 * means nothing elsewhere): a holder on another host is waited for. A holder with this
 * process's pid is another thread, another copy of this library, or a process in another
 * PID namespace with the same host name, all live, unless the lock was taken before this
 * process started (a process before a restart had the pid) or it is this thread's own
 * leftover (its token is of no lock taken and not released here). An empty lock file is
 * stale once it has been empty for EMPTY_GRACE_MS; any other text that names no holder is
 * waited for (and the error says to delete it).
 */
const isStale = async (lockPath: string, text: string, holder: Holder | undefined): Promise<boolean> => {
  if (holder === undefined) return text === "" && (await olderThan(lockPath, EMPTY_GRACE_MS))
  return isStaleHolder(holder)
}

const isStaleHolder = (holder: Holder): boolean => {
  if (holder.host !== hostname()) return false
  if (holder.pid !== process.pid) return !processIsAlive(holder.pid)
  const since = Date.parse(holder.since)
  if (Number.isFinite(since) && since < PROCESS_STARTED - START_SLACK_MS) return true
  return holder.thread === threadId && !liveTokens().has(holder.token)
}

const olderThan = async (path: string, ms: number): Promise<boolean> => {
  try {
    return Date.now() - (await stat(path)).mtimeMs > ms
  } catch {
    return false // gone: looked at again
  }
}

const processIsAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0) // signal 0: only asks whether the process exists
    return true
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return (error as NodeJS.ErrnoException).code !== "ESRCH"
  }
}

/** A break file older than this is of a breaker that died (breaking takes a read and a remove). */
export const BREAK_STALE_MS = 10_000

/**
 * Removes a stale lock that still holds exactly `seen`, under the break file
 * `<lock>.break` (made exclusively), so that breakers go one at a time: two that judged the
 * same lock stale cannot both remove it, the second removing the first's new lock. Nothing
 * but a breaker removes a lock that is not its own, so the lock read under the break file
 * is the one removed. Returns false when another process holds the break file (look
 * again soon); a break file of a dead process, or older than BREAK_STALE_MS, is removed.
 */
const breakStaleLock = async (lockPath: string, seen: string): Promise<boolean> => {
  const breakPath = breakPathOf(lockPath)
  const mine = JSON.stringify(newHolder()) + "\n"
  try {
    await writeFile(breakPath, mine, { mode: 0o600, flag: "wx" })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw keyFileError(`cannot create ${breakPath}: ${message(error)}`)
    await removeStaleBreakFile(breakPath)
    return false
  }
  try {
    // Still ours (not taken away as stale by a very slow breaker's successor), and the lock still the one judged.
    if ((await readOptional(breakPath)) === mine && (await readOptional(lockPath)) === seen) await rm(lockPath, { force: true })
  } catch (error) {
    throw keyFileError(`cannot remove the stale lock file ${lockPath}: ${message(error)}`)
  } finally {
    if ((await readOptional(breakPath).catch(() => undefined)) === mine) await rm(breakPath, { force: true }).catch(() => undefined)
  }
  return true
}

/**
 * Removes the break file if its breaker is gone (dead on this host, or taking far longer than a break takes):
 * moved aside under a name of our own, and removed only if it is the one judged; one taken by another breaker
 * in between is linked back (it then still checks it holds its break file before it removes any lock).
 */
const removeStaleBreakFile = async (breakPath: string): Promise<void> => {
  const seen = await readOptional(breakPath)
  if (seen === undefined) return
  const holder = holderOf(seen)
  const stale = (holder !== undefined && holder.host === hostname() && holder.pid !== process.pid && !processIsAlive(holder.pid)) ||
    (await olderThan(breakPath, BREAK_STALE_MS))
  if (!stale) return
  const aside = `${breakPath}.${process.pid}.${encodeU64(randomBytes(9))}.stale`
  try {
    await rename(breakPath, aside)
  } catch {
    return // gone already, or cannot be moved: looked at again
  }
  if ((await readOptional(aside).catch(() => undefined)) !== seen) await link(aside, breakPath).catch(() => undefined)
  await rm(aside, { force: true })
}

/**
 * The error of a write that waited for a live lock up to its deadline. A lock of another
 * host is never judged stale (isStaleHolder: its pid cannot be checked from here), so it
 * says so and what to do: the host, the pid, how old the lock is, and the command that
 * removes it, for an operator who knows that holder is gone.
 */
const lockedError = (lockPath: string, holder: Holder | undefined, waitedMs: number, now: number = Date.now()) => {
  const waited = `waited ${Math.round(waitedMs / 1000)} s`
  if (holder === undefined) {
    return keyFileError(
      `${lockPath} exists but does not name its holder (${waited}); if no aics process is writing with this key file, delete it and try again`
    )
  }
  const age = lockAge(holder.since, now)
  const here = hostname()
  if (holder.host !== here) {
    return keyFileError(
      `${lockPath} is held by pid ${holder.pid} on host ${holder.host}, not this host (${here}), since ${holder.since} (${age}; ${waited}): ` +
        `a lock of another host is never taken over by itself, as its process cannot be checked from here. ` +
        `Try again when that write is done; if you know pid ${holder.pid} on ${holder.host} is gone (that host restarted, the process was killed), ` +
        `remove the lock and try again: rm -- ${shellWord(lockPath)}`
    )
  }
  return keyFileError(
    `another aics process (pid ${holder.pid}, since ${holder.since}, ${age}) is writing with this key file and holds ${lockPath} (${waited}); ` +
      `try again when it is done, or if no process ${holder.pid} is running, delete ${lockPath}`
  )
}

/** How old a lock is, from its `since`: "taken 3 min 12 s ago"; said as such when `since` is no time or ahead of this clock. */
const lockAge = (since: string, now: number): string => {
  const taken = Date.parse(since)
  if (!Number.isFinite(taken)) return "age unknown: its time is unreadable"
  const ms = now - taken
  return ms >= 0 ? `taken ${duration(ms)} ago` : `taken ${duration(-ms)} ahead of this host's clock`
}

/** "850 ms", "42 s", "3 min 12 s", "2 h 5 min", "4 d 3 h". */
const duration = (ms: number): string => {
  if (ms < 1000) return `${Math.round(ms)} ms`
  const s = Math.floor(ms / 1000)
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`
}

/** A path as one word of a POSIX shell command: as it is when it is plain, else in single quotes. */
const shellWord = (path: string): string => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`)

/** The holder a lock file names; undefined for any other text (empty, or cut short while being written): such a lock is not judged stale by a pid. */
const holderOf = (text: string): Holder | undefined => {
  try {
    const json = JSON.parse(text) as Partial<Holder>
    const ok = Number.isSafeInteger(json.pid) && (json.pid ?? 0) > 0 && typeof json.host === "string" &&
      typeof json.token === "string" && typeof json.since === "string" &&
      (json.thread === undefined || Number.isSafeInteger(json.thread))
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
