// LogStore on PostgreSQL (tables in migrations.ts: aics_log_head, aics_leaves,
// aics_hashes), shared by every API process of a deployment.
//
// append(start, leaves, fence) is one transaction:
//   - the batch is checked first, outside it (appendCheck.ts, as every LogStore adapter:
//     leaf hashes, hash counts and sizes), so the locks below are held for the writes only;
//   - the lease epoch row is share-locked where the epoch is the fence's (leaseEpoch.ts):
//     no such row means a later lease exists, and the append writes nothing and fails with
//     LeaseSuperseded. Otherwise no new holder can raise the epoch before this transaction
//     ends, and a new holder reads the log only after its raise: so it reads this batch
//     before it decides or retains anything (docs/operations.md, "The log's appends");
//   - SELECT size FROM aics_log_head FOR UPDATE locks the one head row: appends from every
//     process are serialized there, and start is compared with the size read under the
//     lock, so a second writer at the same start waits, then is refused with nothing
//     written. The primary keys on idx would also refuse a second leaf at a position (a
//     fork), but only after the loser has sent its whole batch and with a unique-violation
//     instead of the port's refusal; the head row also makes `size` one row read;
//   - the leaves and their stored hashes are inserted (logInserts.ts, statements built
//     before the lock), the head row is moved to start + leaves.length, and the
//     transaction commits.
// Durability: the append is durable when COMMIT returns, which with synchronous_commit on
// (the default; PgStorage.ts warns otherwise) is after the commit record is flushed to the
// server's WAL (and to synchronous standbys, if the operator configures them). Readers see
// nothing of a batch before its commit and all of it after, so rows below the head never
// change and reads need no lock. If COMMIT itself fails the outcome is unknown: the append
// fails with a StorageError and the next append at the same start tells (refused if it
// was committed). The append is uninterruptible, so it never ends with a COMMIT in flight.
//
// Reads go to the database every time (another process may have appended): a range read
// is one query whose row count tells whether the range was within the committed log.

import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, Option } from "effect"
import { HASH_SIZE, makeTreeHasher, type Hash } from "../../domain/tlog/hasher.js"
import { isTreeSize, storedHashCount } from "../../domain/tlog/storedHash.js"
import { Crypto } from "../../ports/Crypto.js"
import { LeaseSuperseded, type LeaseFence } from "../../ports/LeaseFence.js"
import { LogStore, type AppendedLeaf } from "../../ports/LogStore.js"
import { StorageError } from "../../ports/StorageError.js"
import { checkAppend } from "../fs/appendCheck.js"
import { holdLeaseEpoch } from "./leaseEpoch.js"
import { hashInserts, leafInserts } from "./logInserts.js"
import { storage, toBytes, toNumber, transact } from "./pgValues.js"

const outOfRange = (operation: string, detail: string) => new StorageError({ operation, detail })

const isRange = (from: number, to: number) => Number.isSafeInteger(from) && Number.isSafeInteger(to) && from >= 0 && from <= to

export const PgLogStoreLive: Layer.Layer<LogStore, never, SqlClient.SqlClient | Crypto> = Layer.effect(
  LogStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const hasher = makeTreeHasher((yield* Crypto).sha256)

    const headSize = (rows: ReadonlyArray<{ readonly size: unknown }>) =>
      rows.length === 1
        ? Effect.succeed(toNumber(rows[0]!.size))
        : Effect.fail(new StorageError({ operation: "size", detail: "the log head row is missing: were the migrations run?" }))

    const size = sql<{ size: string }>`SELECT size FROM aics_log_head`.pipe(Effect.flatMap(headSize), storage("size"))

    const append = (start: number, leaves: ReadonlyArray<AppendedLeaf>, fence: LeaseFence) =>
      Effect.suspend(() => {
        if (!isTreeSize(start)) return Effect.fail(new StorageError({ operation: "append", detail: `append at ${start}: not a log position` }))
        // Everything but the start, which only the locked head row can tell.
        const malformed = checkAppend(hasher, start, start, leaves)
        if (malformed !== undefined) return Effect.fail(malformed)
        const writes = leaves.length === 0 ? [] : [
          ...leafInserts(sql, start, leaves),
          ...hashInserts(sql, storedHashCount(start), leaves.flatMap((leaf) => leaf.hashes)),
          sql`UPDATE aics_log_head SET size = ${start + leaves.length}`
        ]
        return transact(sql, "append", Effect.gen(function*() {
          // Nothing is written before this check: a superseded append commits an empty transaction.
          if (!(yield* holdLeaseEpoch(sql, fence))) return "superseded" as const
          const committed = yield* Effect.flatMap(sql<{ size: string }>`SELECT size FROM aics_log_head FOR UPDATE`, headSize)
          const refused = checkAppend(hasher, committed, start, [])
          if (refused !== undefined) return yield* refused
          for (const write of writes) yield* write
          return "appended" as const
        })).pipe(
          Effect.uninterruptible,
          Effect.flatMap((outcome) => (outcome === "superseded" ? new LeaseSuperseded({ operation: "append", fence }) : Effect.void))
        )
      })

    /** The failure of a read beyond the committed log (one more query, on the failure path only). */
    const beyond = (operation: string, detail: (size: number) => string) =>
      Effect.flatMap(size, (n) => Effect.fail(outOfRange(operation, detail(n))))

    const readEntries = (from: number, to: number) =>
      Effect.gen(function*() {
        const refuse = beyond("readEntries", (n) => `entries [${from}, ${to}) of a log of ${n}`)
        if (!isRange(from, to)) return yield* refuse
        if (from === to) return (yield* size) >= to ? [] : yield* refuse
        const rows = yield* sql<{ bytes: Uint8Array }>`SELECT bytes FROM aics_leaves
          WHERE idx >= ${from} AND idx < ${to} ORDER BY idx`.pipe(storage("readEntries"))
        if (rows.length !== to - from) return yield* refuse
        return rows.map((row) => toBytes(row.bytes))
      })

    const readHashRange = (from: number, to: number) =>
      Effect.gen(function*() {
        const refuse = beyond("readHashRange", (n) => `hashes [${from}, ${to}) of ${storedHashCount(n)}`)
        if (!isRange(from, to)) return yield* refuse
        if (from === to) return storedHashCount(yield* size) >= to ? [] : yield* refuse
        const rows = yield* sql<{ hash: Uint8Array }>`SELECT hash FROM aics_hashes
          WHERE idx >= ${from} AND idx < ${to} ORDER BY idx`.pipe(storage("readHashRange"))
        if (rows.length !== to - from) return yield* refuse
        return rows.map((row) => toBytes(row.hash))
      })

    /** The failure of a read of a stored hash that is not there (or no position at all). */
    const noHash = (index: number) => beyond("readHashes", (n) => `hash ${index} of ${storedHashCount(n)}`)
    const notPositions = (indexes: ReadonlyArray<number>) => indexes.find((index) => !(Number.isSafeInteger(index) && index >= 0))
    /** The hashes at `indexes`, in order, from the rows read for them by position. */
    const inOrder = (indexes: ReadonlyArray<number>, byIndex: ReadonlyMap<number, Uint8Array>) => {
      const missing = indexes.find((index) => !byIndex.has(index))
      return missing !== undefined ? noHash(missing) : Effect.succeed(indexes.map((index) => toBytes(byIndex.get(index))))
    }

    const readHashes = (indexes: ReadonlyArray<number>) =>
      Effect.gen(function*() {
        const bad = notPositions(indexes)
        if (bad !== undefined) return yield* noHash(bad)
        if (indexes.length === 0) return []
        const rows = yield* sql<{ idx: string; hash: Uint8Array }>`SELECT idx, hash FROM aics_hashes
          WHERE idx = ANY(${[...new Set(indexes)]}::bigint[])`.pipe(storage("readHashes"))
        return yield* inOrder(indexes, new Map(rows.map((row) => [toNumber(row.idx), row.hash])))
      })

    // An entry's bundle reads its leaf, its proof's uncached hashes and the body the leaf
    // names: one statement, so one round trip to the server instead of three (each costs
    // the process a socket write and read and the client's handling, more than the rows:
    // bench/README.md "Session 17"). The leaf's row is told from the hashes' by its
    // position, -1; it carries the body's presence in aics_bodies (the same database as
    // PgBodyStore's), and its bytes when it rides, for a leaf appended with its body's digest
    // (migration 0020).
    const readEntryAndHashes = (index: number, hashes: ReadonlyArray<number>) =>
      Effect.gen(function*() {
        const noEntry = () => beyond("readEntries", (n) => `entries [${index}, ${index + 1}) of a log of ${n}`)
        const bad = notPositions(hashes)
        if (bad !== undefined) return yield* noHash(bad)
        if (!isRange(index, index + 1)) return yield* noEntry()
        const rows = yield* sql<{ idx: string; bytes: Uint8Array; body_stored: boolean | null; body_bytes: Uint8Array | null }>`
          SELECT -1::bigint AS idx, l.bytes,
                 CASE WHEN l.body_digest IS NOT NULL THEN b.digest IS NOT NULL END AS body_stored,
                 CASE WHEN l.body_rides THEN b.bytes END AS body_bytes
            FROM aics_leaves l LEFT JOIN aics_bodies b ON b.digest = l.body_digest
            WHERE l.idx = ${index}
          UNION ALL SELECT idx, hash, NULL, NULL FROM aics_hashes WHERE idx = ANY(${[...new Set(hashes)]}::bigint[])`.pipe(storage("readEntryAndHashes"))
        const leaf = rows.find((row) => toNumber(row.idx) === -1)
        if (leaf === undefined) return yield* noEntry()
        const byIndex = new Map(rows.map((row) => [toNumber(row.idx), row.bytes]))
        return {
          entry: toBytes(leaf.bytes),
          hashes: yield* inOrder(hashes, byIndex),
          body: leaf.body_stored === null ? undefined : { stored: leaf.body_stored, bytes: leaf.body_bytes === null ? undefined : toBytes(leaf.body_bytes) }
        }
      })

    const findLeaf = (leafHash: Hash) =>
      leafHash.length !== HASH_SIZE
        ? Effect.succeed(Option.none<number>())
        : sql<{ idx: string }>`SELECT idx FROM aics_leaves WHERE leaf_hash = ${leafHash} ORDER BY idx LIMIT 1`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => toNumber(row.idx))),
          storage("findLeaf")
        )

    return LogStore.of({ size, append, readEntries, readHashes, readEntryAndHashes, readHashRange, findLeaf })
  })
)
