// BodyStore on PostgreSQL: one row per body in aics_bodies (digest primary key, bytes).
//
// put(bodies) refuses, before writing anything, what FsBodyStore refuses (a digest that
// is not 32 bytes, a body over MAX_BODY_SIZE, bytes that do not hash to their digest),
// drops duplicates within the batch, then inserts the rest with ON CONFLICT DO NOTHING,
// which makes it idempotent across batches and processes. A batch is one multi-row INSERT
// (node-postgres sends the bytea parameters in binary), or several in one transaction when
// it passes MAX_STATEMENT_BODIES or MAX_STATEMENT_BYTES: durable, all of it, when its
// commit returns. The bytes are copied when checked: what is stored is what was hashed,
// whatever the caller does with its arrays while the put waits for a connection.
// remove(digests, fence) deletes the rows in one transaction that first share-locks the lease
// epoch row where the epoch is the fence's (leaseEpoch.ts): no such row means a later lease
// exists, and it deletes nothing and answers "superseded"; otherwise the DELETE commits
// before any new holder's raise of the epoch, hence before any of its puts, which store
// again what was deleted (docs/operations.md, "Retention"). Durable when the commit returns.
// get reads a row; has asks only whether it exists (the primary key's index, not the bytes).

import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, Option } from "effect"
import { equal, toHex } from "../../domain/bytes.js"
import { BodyStore, type RemoveOutcome, type StoredBody } from "../../ports/BodyStore.js"
import { Crypto } from "../../ports/Crypto.js"
import type { LeaseFence } from "../../ports/LeaseFence.js"
import { StorageError } from "../../ports/StorageError.js"
import { MAX_BODY_SIZE } from "../fs/bodyLayout.js"
import { digestName, digestNames } from "../fs/bodyName.js"
import { holdLeaseEpoch } from "./leaseEpoch.js"
import { storage, toBytes, transact } from "./pgValues.js"

const MAX_STATEMENT_BODIES = 1_000
const MAX_STATEMENT_BYTES = 64 * 1024 * 1024

const refuse = (detail: string) => Effect.fail(new StorageError({ operation: "put", detail }))

/** Groups of bodies, each small enough for one statement. */
const statementGroups = (bodies: ReadonlyArray<StoredBody>): Array<Array<StoredBody>> => {
  const groups: Array<Array<StoredBody>> = []
  let bytes = 0
  for (const body of bodies) {
    const last = groups[groups.length - 1]
    if (last !== undefined && last.length < MAX_STATEMENT_BODIES && bytes + body.bytes.length <= MAX_STATEMENT_BYTES) {
      last.push(body)
      bytes += body.bytes.length
    } else {
      groups.push([body])
      bytes = body.bytes.length
    }
  }
  return groups
}

export const PgBodyStoreLive: Layer.Layer<BodyStore, never, SqlClient.SqlClient | Crypto> = Layer.effect(
  BodyStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { sha256 } = yield* Crypto

    const insert = (group: ReadonlyArray<StoredBody>) =>
      sql`INSERT INTO aics_bodies ${sql.insert(group.map((body) => ({ digest: body.digest, bytes: body.bytes })))}
        ON CONFLICT (digest) DO NOTHING`

    const put = (bodies: ReadonlyArray<StoredBody>) =>
      Effect.suspend(() => {
        const unique = new Map<string, StoredBody>()
        for (const body of bodies) {
          const name = digestName("put", body.digest)
          if (name instanceof StorageError) return Effect.fail(name)
          if (body.bytes.length > MAX_BODY_SIZE) return refuse(`body ${name} has ${body.bytes.length} bytes, more than ${MAX_BODY_SIZE}`)
          const bytes = body.bytes.slice()
          if (!equal(sha256(bytes), body.digest)) return refuse(`the bytes of body ${toHex(body.digest)} do not hash to its digest`)
          unique.set(name, { digest: body.digest.slice(), bytes })
        }
        const groups = statementGroups([...unique.values()])
        if (groups.length === 0) return Effect.void
        if (groups.length === 1) return insert(groups[0]!).pipe(Effect.asVoid, storage("put"))
        return transact(sql, "put", Effect.forEach(groups, insert, { discard: true }))
      })

    const getMany = (digests: ReadonlyArray<Uint8Array>) =>
      Effect.suspend(() => {
        const names = digestNames("get", digests)
        if (names instanceof StorageError) return Effect.fail(names)
        if (digests.length === 0) return Effect.succeed([])
        return sql<{ digest: Uint8Array; bytes: Uint8Array }>`SELECT digest, bytes FROM aics_bodies WHERE digest = ANY(${digests}::bytea[])`.pipe(
          Effect.map((rows) => {
            const found = new Map(rows.map((row) => [toHex(toBytes(row.digest)), toBytes(row.bytes)]))
            return names.map((name) => Option.fromNullable(found.get(name)))
          }),
          storage("get")
        )
      })

    const get = (digest: Uint8Array) => Effect.map(getMany([digest]), ([body]) => body!)

    const has = (digest: Uint8Array) =>
      Effect.suspend(() => {
        const name = digestName("has", digest)
        if (name instanceof StorageError) return Effect.fail(name)
        return sql`SELECT 1 FROM aics_bodies WHERE digest = ${digest}`.pipe(
          Effect.map((rows) => rows.length > 0),
          storage("has")
        )
      })

    const remove = (digests: ReadonlyArray<Uint8Array>, fence: LeaseFence) =>
      Effect.suspend(() => {
        const names = digestNames("remove", digests)
        if (names instanceof StorageError) return Effect.fail(names)
        return transact(sql, "remove", Effect.gen(function*() {
          if (!(yield* holdLeaseEpoch(sql, fence))) return "superseded" satisfies RemoveOutcome
          if (digests.length > 0) yield* sql`DELETE FROM aics_bodies WHERE digest = ANY(${digests}::bytea[])`
          return "removed" satisfies RemoveOutcome
        }))
      })

    // No files to find short: the database answers for its own integrity.
    return BodyStore.of({ put, get, getMany, has, remove, shortfallAtOpen: undefined })
  })
)
