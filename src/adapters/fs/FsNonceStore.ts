// The replay store on the filesystem (issue 13 item 11, issue 12 "Bounded memory";
// docs/operations.md "Replays across a restart"): the (keyid, nonce) pairs of signed
// requests in a SQLite file, `<AICS_DATA_DIR>/nonces/nonces.db`, so that neither a restart
// forgets them nor the process's memory holds them.
//
// Why not in memory: a pair is remembered until its signature's expires + 300 s, up to 20
// minutes after it is seen (docs/spec/profile.md section 6), so the pairs held are the
// signed requests of the last 10 to 20 minutes, however many that is: at 1,000 signed
// writes a second with 300 s signatures, 600,000 pairs. The store of earlier versions (a
// Set of keys in memory, its expiry buckets, and a map of the same keys for an append-only
// journal beside them) held about 340 bytes of heap a pair, some 200 MiB at that rate, more
// than half the process's memory target; a sustained write load took the process past 1.2
// GiB (bench/README.md "Session 34"). In SQLite a pair is a row of about 40 bytes on disk,
// and the process holds SQLite's page cache of this file (its default, about 2 MiB)
// whatever the rate.
//
// A pair is one row keyed by the first 16 bytes of SHA-256 over its key (pairKey: the
// keyid's length, the keyid, the nonce): fixed-size keys whatever a client sends, and an
// index on `until` that stays small. Two pairs alike in 128 bits are not a
// risk a client can make for another (it would need to know the other's nonce first).
//
// remember(keyid, nonce, until, now) is one statement, as PostgreSQL's (pg/PgNonceStore.ts):
//   INSERT ... ON CONFLICT (pair) DO UPDATE SET until = ... WHERE until < now
// It changes a row, and answers true, when the pair is new or its row has expired (it is
// then remembered again, until the new until); otherwise nothing changes and the answer is
// false. better-sqlite3 runs it whole on the event loop, so two remembers of one pair never
// interleave. A pair is refused while now <= until and accepted again from until + 1 (until
// rounded up, now down: a pair is only ever kept longer).
//
// How durable: WAL, synchronous=NORMAL (sqliteSidecar.ts): each remember is committed to
// the WAL before the request is answered, so it survives the process (a crash, SIGKILL, a
// restart), not a power loss, which may forget the pairs of the last moments before it (a
// replayed write is still refused then: it repeats a seq its key already used).
//
// Expired rows are deleted a few at a time (SWEEP_LIMIT, through the index on `until`) when a
// remember finds SWEEP_SECONDS passed since the last sweep, or at once when the last one
// found more than its limit: at most a millisecond or two of the event loop, never a pause
// that grows with the rows.
//
// A damaged file is moved aside and a new one used (sqliteSidecar.ts): the pairs it held are
// forgotten, which is as safe as PostgreSQL's unlogged table emptied by a crash: a replayed
// write repeats a seq its key already used. A file that cannot be opened at start (a full
// disk where it must be created) does not stop the start: reads that need no signature are
// still served, and each signed request tries to open it again and is refused 503 with the
// storage error until it can (app/ReplayStoreHealth.ts reports it in /healthz).
//
// The journal of earlier versions (nonces.journal, one line a pair) is read once, its
// unexpired pairs kept here, and removed.

import { createHash } from "node:crypto"
import { mkdir, readFile, rm } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Layer, Scope } from "effect"
import { Clock } from "../../ports/Clock.js"
import { NonceStore } from "../../ports/NonceStore.js"
import { StorageError } from "../../ports/StorageError.js"
import type { SqliteConnection } from "../sqlite/sqliteConnection.js"
import { sqliteErrors } from "../sqlite/sqliteErrors.js"
import { isMissingFile } from "./missingFile.js"
import { openSqliteSidecar } from "./sqliteSidecar.js"

export const NONCES_FILE = "nonces.db"
const LEGACY_JOURNAL = "nonces.journal"

/** How often expired rows are looked for, at most. */
const SWEEP_SECONDS = 5
/** Expired rows deleted by one sweep: about a millisecond of the event loop. */
const SWEEP_LIMIT = 1_000

const SCHEMA = [
  // A checkpoint after 10,000 pages of WAL (40 MiB), as state.db's (SqliteProjectionStore.ts):
  // a remember is a commit of its own, and SQLite's default (1,000 pages) copied the same
  // B-tree pages back every few hundred of them (35 against 27 us of CPU a remember, 15
  // against 10 of it the kernel's, on a file of 200,000 pairs).
  "PRAGMA wal_autocheckpoint = 10000",
  `CREATE TABLE IF NOT EXISTS nonces (
    pair BLOB PRIMARY KEY,
    until INTEGER NOT NULL
  ) WITHOUT ROWID`,
  "CREATE INDEX IF NOT EXISTS nonces_by_until ON nonces (until)"
]

const { storage, transact } = sqliteErrors(NONCES_FILE)

/**
 * The key of a pair: the keyid's length first, so that no two pairs join alike (the port
 * takes any strings: with a plain separator ("a b", "c") and ("a", "b c") would be one pair).
 */
export const pairKey = (keyid: string, nonce: string): string => `${keyid.length}:${keyid} ${nonce}`

/** The row's key: the first 16 bytes of SHA-256 over the pair's key. */
const pairDigest = (key: string): Buffer => createHash("sha256").update(key).digest().subarray(0, 16)

/** The pairs of an earlier version's journal still remembered at `now`; a torn or foreign line is skipped. */
export const parseJournal = (text: string, now: number): Array<{ readonly key: string; readonly until: number }> => {
  const pairs: Array<{ key: string; until: number }> = []
  for (const line of text.split("\n")) {
    const space = line.indexOf(" ")
    if (space <= 0) continue
    const until = Number(line.slice(0, space))
    if (!Number.isSafeInteger(until) || until < now) continue
    try {
      pairs.push({ key: decodeURIComponent(line.slice(space + 1)), until })
    } catch {
      continue
    }
  }
  return pairs
}

interface OpenStore {
  /** A read, so that a damaged file fails at open (and nothing is written there: an existing file opens on a full disk). */
  readonly probe: Effect.Effect<unknown, StorageError>
  readonly remember: (key: string, until: number, now: number) => Effect.Effect<boolean, StorageError>
  readonly keep: (pairs: ReadonlyArray<{ readonly key: string; readonly until: number }>) => Effect.Effect<void, StorageError>
}

const storeOn = ({ sql, preparedWrite }: SqliteConnection): OpenStore => {
  const insert = preparedWrite(
    "INSERT INTO nonces (pair, until) VALUES (?, ?) ON CONFLICT (pair) DO UPDATE SET until = excluded.until WHERE nonces.until < ?"
  )
  const deleteExpired = preparedWrite(
    `DELETE FROM nonces WHERE pair IN (SELECT pair FROM nonces WHERE until < ? ORDER BY until LIMIT ${SWEEP_LIMIT})`
  )
  let nextSweep = Number.NEGATIVE_INFINITY
  const sweep = (now: number) =>
    Effect.map(storage("forget expired nonces")(deleteExpired([now])), (deleted) => {
      // A full sweep may have left more: sweep again at the next remember.
      nextSweep = deleted >= SWEEP_LIMIT ? now : now + SWEEP_SECONDS
    })
  return {
    probe: storage("read nonces")(sql`SELECT until FROM nonces LIMIT 1`),
    remember: (key, until, now) =>
      Effect.gen(function*() {
        const current = Math.floor(now)
        if (current >= nextSweep) yield* sweep(current)
        const changed = yield* storage("remember nonce")(insert([pairDigest(key), Math.ceil(until), current]))
        return changed > 0
      }),
    keep: (pairs) =>
      transact(sql, "keep the journal's nonces", Effect.forEach(pairs, ({ key, until }) =>
        sql`INSERT INTO nonces (pair, until) VALUES (${pairDigest(key)}, ${until})
          ON CONFLICT (pair) DO UPDATE SET until = max(nonces.until, excluded.until)`, { discard: true }))
  }
}

/** Keeps the unexpired pairs of an earlier version's journal, then removes it (kept for a later start if they cannot be written). */
const keepJournal = (folder: string, store: OpenStore, now: number) =>
  Effect.gen(function*() {
    const path = join(folder, LEGACY_JOURNAL)
    const text = yield* Effect.tryPromise(() => readFile(path, "utf8").catch((error: unknown) => (isMissingFile(error) ? undefined : Promise.reject(error))))
    if (text === undefined) return
    yield* store.keep(parseJournal(text, now))
    yield* Effect.tryPromise(() => rm(path, { force: true }))
    yield* Effect.logInfo(`the replay store's journal of an earlier version was moved into ${NONCES_FILE}`)
  }).pipe(Effect.catchAll((error) =>
    Effect.logWarning(`the replay store's journal of an earlier version (${LEGACY_JOURNAL}) could not be moved into ${NONCES_FILE}; tried again at the next start`).pipe(
      Effect.annotateLogs({ error: error instanceof StorageError ? error.detail : String(error) }))))

export const FsNonceStoreLive = (folder: string): Layer.Layer<NonceStore, StorageError, Clock> =>
  Layer.scoped(NonceStore, Effect.gen(function*() {
    const clock = yield* Clock
    const scope = yield* Effect.scope
    const filename = join(folder, NONCES_FILE)
    const makeFolder = Effect.tryPromise({
      try: () => mkdir(folder, { recursive: true }),
      catch: (cause) => new StorageError({ operation: `open ${NONCES_FILE}`, detail: `${folder}: ${cause instanceof Error ? cause.message : String(cause)}`, cause })
    })
    const open = Effect.zipRight(makeFolder, Scope.extend(
      openSqliteSidecar(filename, {
        name: NONCES_FILE,
        schema: SCHEMA,
        make: storeOn,
        probe: (store) => store.probe,
        rebuiltFrom: "nothing: the pairs it held are forgotten (a replayed write is still refused, its seq already used)"
      }, () => Effect.succeed(undefined)),
      scope
    ))
    let store: OpenStore | undefined
    const opened = Effect.suspend(() => (store !== undefined ? Effect.succeed(store) : Effect.tap(open, (made) => {
      store = made
    })))
    const now = Math.floor((yield* clock.nowMillis) / 1000)
    yield* opened.pipe(
      Effect.flatMap((made) => keepJournal(folder, made, now)),
      Effect.catchAll((error) =>
        Effect.logWarning(`${NONCES_FILE} cannot be opened: signed requests are refused 503 until it can`).pipe(Effect.annotateLogs({ error: error.detail }))))
    return {
      remember: (keyid, nonce, until, at) => Effect.flatMap(opened, (made) => made.remember(pairKey(keyid, nonce), until, at))
    }
  }))
