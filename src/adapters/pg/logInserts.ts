// The INSERTs of one append (PgLogStore.ts), batched: the leaves of a batch are one
// statement, and its stored hashes another, not a statement or parameters per leaf. The entry bytes of
// the batch travel as one bytea parameter (node-postgres sends a Buffer in binary, no hex)
// with int[] arrays of offsets and lengths, and the server cuts it with substring; the
// stored hashes likewise travel as one bytea of 32-byte hashes, and the digests of the bodies
// the leaves name as another, with an int[] saying which leaf names one and whether it
// rides (-1 none, 0 no, 1 yes). A statement never carries
// more than MAX_STATEMENT_BYTES of entries or MAX_STATEMENT_HASHES hashes: a larger batch
// is several statements, in the same transaction.
//
// The statements are built before the append takes its lock: building copies the bytes
// into the parameters (what is written is what was checked, whatever the caller does with
// its arrays), and the lock is then held for the database's work only. A statement runs on
// the connection of the transaction it runs in, not the one it was built in.

import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { Effect } from "effect"
import { HASH_SIZE, type Hash } from "../../domain/tlog/hasher.js"
import type { AppendedLeaf } from "../../ports/LogStore.js"

const MAX_STATEMENT_BYTES = 16 * 1024 * 1024
const MAX_STATEMENT_LEAVES = 16_384
const MAX_STATEMENT_HASHES = 65_536

/** The statements that insert the leaves at positions first, first + 1, ... with their leaf hashes. */
export const leafInserts = (sql: SqlClient.SqlClient, first: number, leaves: ReadonlyArray<AppendedLeaf>) => {
  const statements: Array<Effect.Effect<unknown, SqlError>> = []
  let from = 0
  while (from < leaves.length) {
    let to = from
    let bytes = 0
    while (to < leaves.length && to - from < MAX_STATEMENT_LEAVES && (to === from || bytes + leaves[to]!.bytes.length <= MAX_STATEMENT_BYTES)) {
      bytes += leaves[to]!.bytes.length
      to++
    }
    const blob = Buffer.allocUnsafe(bytes)
    const leafHashes = Buffer.allocUnsafe(HASH_SIZE * (to - from))
    const bodyDigests = Buffer.alloc(HASH_SIZE * (to - from))
    const offsets: Array<number> = []
    const lengths: Array<number> = []
    const rides: Array<number> = []
    let at = 0
    for (let i = from; i < to; i++) {
      const leaf = leaves[i]!
      blob.set(leaf.bytes, at)
      leafHashes.set(leaf.hashes[0]!, HASH_SIZE * (i - from))
      if (leaf.body !== undefined) bodyDigests.set(leaf.body.digest, HASH_SIZE * (i - from))
      rides.push(leaf.body === undefined ? -1 : leaf.body.rides ? 1 : 0)
      offsets.push(at)
      lengths.push(leaf.bytes.length)
      at += leaf.bytes.length
    }
    statements.push(sql`INSERT INTO aics_leaves (idx, bytes, leaf_hash, body_digest, body_rides)
      SELECT ${first + from}::bigint + t.i - 1,
             substring(${blob}::bytea FROM t.off + 1 FOR t.len),
             substring(${leafHashes}::bytea FROM (t.i::int - 1) * 32 + 1 FOR 32),
             CASE WHEN t.rides >= 0 THEN substring(${bodyDigests}::bytea FROM (t.i::int - 1) * 32 + 1 FOR 32) END,
             CASE WHEN t.rides >= 0 THEN t.rides = 1 END
      FROM unnest(${offsets}::int[], ${lengths}::int[], ${rides}::int[]) WITH ORDINALITY AS t(off, len, rides, i)`)
    from = to
  }
  return statements
}

/** The statements that insert the stored hashes at positions first, first + 1, ... */
export const hashInserts = (sql: SqlClient.SqlClient, first: number, hashes: ReadonlyArray<Hash>) => {
  const statements: Array<Effect.Effect<unknown, SqlError>> = []
  for (let from = 0; from < hashes.length; from += MAX_STATEMENT_HASHES) {
    const count = Math.min(MAX_STATEMENT_HASHES, hashes.length - from)
    const blob = Buffer.allocUnsafe(HASH_SIZE * count)
    for (let i = 0; i < count; i++) blob.set(hashes[from + i]!, HASH_SIZE * i)
    statements.push(sql`INSERT INTO aics_hashes (idx, hash)
      SELECT ${first + from}::bigint + g, substring(${blob}::bytea FROM g * 32 + 1 FOR 32)
      FROM generate_series(0, ${count - 1}::int) AS g`)
  }
  return statements
}
