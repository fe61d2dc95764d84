// Disk bytes of a service's stores, for bench/scaleTraffic: on the filesystem the blocks
// allocated (what du counts) under each part of the data folder; on PostgreSQL each table's
// pg_total_relation_size (rows, indexes, TOAST) in the service's schema, grouped alike.

import { readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { onServer } from "./pgInserts.js"

export type DiskParts = ReadonlyArray<readonly [part: string, bytes: number]>

/** Blocks allocated under `path`, a file or a folder (0 when it is absent). */
const allocated = (path: string): number => {
  const stat = statSync(path, { throwIfNoEntry: false })
  if (stat === undefined) return 0
  if (!stat.isDirectory()) return stat.blocks * 512
  return readdirSync(path).reduce((sum, name) => sum + allocated(join(path, name)), stat.blocks * 512)
}

/** The log, bodies, tiles and state.db (with its WAL) of a data folder, and everything else in it. */
export const filesystemParts = (dataDir: string): DiskParts => {
  const parts: Array<readonly [string, number]> = [
    ["log", allocated(join(dataDir, "log"))],
    ["bodies", allocated(join(dataDir, "bodies"))],
    ["tiles", allocated(join(dataDir, "tiles"))],
    ["state.db", ["", "-wal", "-shm"].reduce((sum, suffix) => sum + allocated(join(dataDir, `state.db${suffix}`)), 0)]
  ]
  return [...parts, ["other", allocated(dataDir) - parts.reduce((sum, [, bytes]) => sum + bytes, 0)]]
}

/** Which part a table of the PostgreSQL stores belongs to (src/adapters/pg/migrations.ts). */
const partOfTable = (table: string): string =>
  ["aics_leaves", "aics_hashes", "aics_log_head"].includes(table) ? "log"
    : table === "aics_bodies" ? "bodies"
    : ["aics_tiles", "aics_checkpoint"].includes(table) ? "tiles"
    : table.startsWith("aics_projection_") || table.startsWith("aics_state_") ? "projection"
    : "other"

/** The tables of `schema` on the server `url` names, grouped as filesystemParts. */
export const postgresParts = (url: string, schema: string): Promise<DiskParts> =>
  onServer(url, 1, (sql: SqlClient.SqlClient) =>
    Effect.map(
      sql<{ table: string; bytes: string }>`SELECT c.relname AS table, pg_total_relation_size(c.oid)::text AS bytes
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ${schema} AND c.relkind = 'r'`,
      (rows) => {
        const parts = new Map<string, number>(["log", "bodies", "tiles", "projection", "other"].map((part) => [part, 0]))
        for (const row of rows) parts.set(partOfTable(row.table), parts.get(partOfTable(row.table))! + Number(row.bytes))
        return [...parts]
      }
    ))
