// PostgreSQL helpers of bench/write (issue 5, Benchmark): a schema of its own per run on
// the server AICS_DATABASE_URL names, and the pgbench-style baseline, single-row INSERT
// commits per second on that server (CLIENTS connections, each committing one row per
// statement in a loop, for SECONDS), so the durable entries/s of the service can be read
// as a share of what the server commits at all.

import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Redacted } from "effect"

/** Runs `use` on a pool of its own to the server `url` names. */
export const onServer = <A>(url: string, maxConnections: number, use: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(Effect.flatMap(SqlClient.SqlClient, use).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections })),
    Effect.scoped
  ))

/** The schema `schema` (made if it is not there), and the URL whose connections use it. */
export const schemaOn = async (url: string, schema: string): Promise<{ readonly url: string; readonly drop: () => Promise<void> }> => {
  await onServer(url, 1, (sql) => sql.unsafe(`CREATE SCHEMA IF NOT EXISTS ${schema}`))
  const scoped = new URL(url)
  scoped.searchParams.set("options", `-c search_path=${schema}`)
  return { url: scoped.toString(), drop: () => onServer(url, 1, (sql) => sql.unsafe(`DROP SCHEMA ${schema} CASCADE`)).then(() => undefined) }
}

/** A new schema, and the URL whose connections use it. */
export const freshSchema = (url: string) => schemaOn(url, `aics_bench_${process.pid}_${Math.random().toString(36).slice(2, 8)}`)

/** Single-row INSERT commits per second with `clients` connections for `seconds`. */
export const insertCommitsPerSecond = async (url: string, clients = 16, seconds = 5): Promise<number> => {
  const { url: scoped, drop } = await freshSchema(url)
  try {
    return await onServer(scoped, clients, (sql) =>
      Effect.gen(function*() {
        yield* sql.unsafe("CREATE TABLE bench_rows (id bigserial PRIMARY KEY, payload bytea NOT NULL)")
        const payload = Buffer.alloc(200, 7)
        const until = Date.now() + seconds * 1000
        let commits = 0
        const started = performance.now()
        yield* Effect.all(Array.from({ length: clients }, () =>
          Effect.gen(function*() {
            while (Date.now() < until) {
              yield* sql`INSERT INTO bench_rows (payload) VALUES (${payload})`
              commits++
            }
          })), { concurrency: "unbounded" })
        return commits / ((performance.now() - started) / 1000)
      }))
  } finally {
    await drop()
  }
}
