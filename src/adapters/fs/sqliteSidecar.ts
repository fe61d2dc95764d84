// Opening a SQLite sidecar: a file beside a store's files that can always be made again
// (leafSidecar.ts for the log's findLeaf index and bodySidecar.ts for the body store's
// index, which the store's files rebuild; FsNonceStore.ts for the replay store, whose pairs
// a new file forgets, as a restart of a store in memory would). What they share is how such
// a file is opened and what is done when it cannot be used.
//
// Pragmas as state.db's (SqliteProjectionStore.ts): exclusive locking before WAL, so the
// WAL index lives in this process's memory and an existing file opens on a full disk
// without writing; synchronous=NORMAL, so a commit is not fsynced: losing the last commits
// to a power cut only moves the sidecar's count back, and the next open indexes that tail
// again. SQLite's page cache is its default (about 2 MiB), whatever the size of the store.

import { rename } from "node:fs/promises"
import { Cause, Effect, ExecutionStrategy, Exit, Scope } from "effect"
import { StorageError } from "../../ports/StorageError.js"
import { openSqliteConnection, type SqliteConnection } from "../sqlite/sqliteConnection.js"
import { isDamaged, sqliteErrors } from "../sqlite/sqliteErrors.js"

export const SIDECAR_PRAGMAS = [
  "PRAGMA locking_mode = EXCLUSIVE",
  "PRAGMA journal_mode = WAL",
  "PRAGMA synchronous = NORMAL"
]

/**
 * The first 8 bytes of a hash, big-endian, as SQLite's signed 64-bit INTEGER: the key both
 * sidecars index a hash by (a prefix match is only a candidate, confirmed by the full hash).
 */
export const keyPrefix = (hash: Uint8Array): bigint => new DataView(hash.buffer, hash.byteOffset, 8).getBigInt64(0)

export interface SidecarSpec<S> {
  /** The file's name in its folder, which the log lines and errors carry. */
  readonly name: string
  /** Statements run after the pragmas at every open (CREATE ... IF NOT EXISTS). */
  readonly schema: ReadonlyArray<string>
  /** The sidecar's operations on an open file (its hot lookups as prepared reads). */
  readonly make: (connection: SqliteConnection) => S
  /** A read run at open, so that a damaged file fails there rather than at a lookup. */
  readonly probe: (sidecar: S) => Effect.Effect<unknown, StorageError>
  /** What rebuilds it, for the log line when it is moved aside ("the log's hashes file"). */
  readonly rebuiltFrom: string
}

/** Why an open sidecar must not be used (it belongs to another store, say), or undefined to use it. */
export type SidecarCheck<S> = (sidecar: S) => Effect.Effect<string | undefined, StorageError>

/** Opens the file in `scope` (closed with it) and reads it once, so a damaged file fails here. */
const openIn = <S>(filename: string, spec: SidecarSpec<S>, scope: Scope.Scope) =>
  Effect.gen(function*() {
    // WAL is set by the pragmas, after the locking mode.
    const connection = yield* Scope.extend(openSqliteConnection(filename), scope)
    yield* Effect.forEach([...SIDECAR_PRAGMAS, ...spec.schema], (statement) => connection.sql.unsafe(statement), { discard: true })
    const sidecar = spec.make(connection)
    yield* spec.probe(sidecar)
    return sidecar
  })

/**
 * The sidecar `filename`, created when missing. A file that is damaged (not a database,
 * corrupt pages) or that `check` refuses is moved aside with a loud log line and a new,
 * empty one takes its place: it is only a cache of the store's files, which rebuild it.
 */
export const openSqliteSidecar = <S>(filename: string, spec: SidecarSpec<S>, check: SidecarCheck<S>): Effect.Effect<S, StorageError, Scope.Scope> =>
  Effect.gen(function*() {
    const { describe } = sqliteErrors(spec.name)
    const outer = yield* Effect.scope
    const attemptOpen = Effect.gen(function*() {
      const scope = yield* Scope.fork(outer, ExecutionStrategy.sequential)
      const exit = yield* Effect.exit(Effect.flatMap(openIn(filename, spec, scope), (sidecar) =>
        Effect.map(check(sidecar), (refused) => ({ sidecar, refused }))))
      if (Exit.isSuccess(exit) && exit.value.refused === undefined) return { sidecar: exit.value.sidecar }
      yield* Scope.close(scope, Exit.void)
      if (Exit.isSuccess(exit)) return { refused: exit.value.refused! }
      const error = Cause.squash(exit.cause)
      if (isDamaged(error)) return { refused: `damaged (${describe(error)})` }
      return yield* Effect.fail(error instanceof StorageError ? error : new StorageError({ operation: `open ${spec.name}`, detail: describe(error), cause: error }))
    })
    const first = yield* attemptOpen
    if (first.sidecar !== undefined) return first.sidecar
    const aside = `${filename}.damaged-${Date.now()}`
    yield* Effect.logError(`${spec.name} cannot be used: ${first.refused}; moved to ${aside}, it is rebuilt from ${spec.rebuiltFrom}`)
    for (const suffix of ["", "-wal", "-shm"]) {
      yield* Effect.tryPromise(() => rename(`${filename}${suffix}`, `${aside}${suffix}`)).pipe(Effect.ignore)
    }
    const second = yield* attemptOpen
    if (second.sidecar !== undefined) return second.sidecar
    return yield* new StorageError({ operation: `open ${spec.name}`, detail: `a new ${spec.name} cannot be used either: ${second.refused}` })
  })
