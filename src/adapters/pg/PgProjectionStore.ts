// The projection store on PostgreSQL (src/ports/ProjectionStore.ts), in the same database
// as the log (migration 0012). Every node reads these tables; a fold step is one
// transaction that locks the meta row (SELECT ... FOR UPDATE), checks that `folded` is the
// step's `from`, writes the rows and moves `folded`: two nodes folding the same leaves at
// once serialise on that row, the second finds `folded` moved and writes nothing, so the
// tables are always the fold of exactly their first `folded` leaves. Rows are a function
// of the leaves alone, so whichever node folds them writes the same thing.
//
// Search by a part of a name: pgNameSearch.ts finds the claim indexes of the page's names
// (walking the claim order for a common part, the pg_trgm index for a rare one, each at a
// bounded cost), then one statement reads their rows.

import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import type { NameRecord } from "../../domain/write/logState.js"
import type { StateRow } from "../../domain/write/stateSlice.js"
import { ProjectionStore } from "../../ports/ProjectionStore.js"
import type { StorageError } from "../../ports/StorageError.js"
import { DIRECTORY_COLUMNS, directoryFields, type NameRow, recordOfRow, ROWS_PER_INSERT, rowOfRecord, runsOf } from "../projection/nameRows.js"
import { stateOfJson } from "../projection/stateJson.js"
import { ACTIVITY_AREA, ACTIVITY_MINUTE_MS, activityMinute, appendedLists, appendRows, keysByArea, keysBySeek, KEYS_PER_SELECT, listId, recentOfRows, RESIDENT_AREA, residentOfRows, RETENTION_AREA, retentionKey, rowWrites, type StoredRow } from "../projection/stateRows.js"
import { HELD_EPOCH_IDLE_LIMIT_MS } from "./leaseEpoch.js"
import { searchClaimIndexes } from "./pgNameSearch.js"
import { storage, toBytes, toNumber, transact } from "./pgValues.js"

export const PgProjectionStoreLive: Layer.Layer<ProjectionStore, never, SqlClient.SqlClient> = Layer.effect(
  ProjectionStore,
  Effect.map(SqlClient.SqlClient, (sql) => {
    const names = (list: ReadonlyArray<string>): Effect.Effect<ReadonlyMap<string, NameRecord>, StorageError> =>
      list.length === 0
        ? Effect.succeed(new Map())
        : sql<NameRow>`SELECT name, claim_index, tier, kid, kid_index, x25519, x25519_index, recovery, events::text AS events
            FROM aics_projection_names WHERE name IN ${sql.in(list)}`.pipe(
            Effect.map((rows) => new Map(rows.map((row) => [row.name, recordOfRow(row)]))),
            storage("read names")
          )
    /** The stored length of each list, by listId, in one statement for many lists (as SqliteProjectionStore). */
    const listLengths = (lists: ReadonlyArray<{ readonly area: string; readonly key: string }>) =>
      Effect.gen(function*() {
        const lengths = new Map<string, number>()
        for (const run of runsOf(lists, KEYS_PER_SELECT / 2)) {
          const found = yield* sql<{ area: string; key: string; n: string | null }>`WITH wanted(area, key) AS (VALUES ${sql.csv(run.map(({ area, key }) => sql`(${area}::text, ${key}::text)`))})
            SELECT area, key, (SELECT MAX(n) FROM aics_state_lists AS s WHERE s.area = wanted.area AND s.key = wanted.key) AS n FROM wanted`
          for (const row of found) if (row.n !== null) lengths.set(listId(row.area, row.key), toNumber(row.n) + 1)
        }
        return lengths
      })
    return ProjectionStore.of({
      folded: sql<{ folded: string }>`SELECT folded FROM aics_projection_meta`.pipe(
        Effect.map((rows) => toNumber(rows[0]!.folded)),
        storage("read folded index")
      ),
      lastLeaf: sql<{ last_leaf: Uint8Array | null }>`SELECT last_leaf FROM aics_projection_meta`.pipe(
        Effect.map((rows) => (rows[0]!.last_leaf === null ? null : toBytes(rows[0]!.last_leaf))),
        storage("read folded index")
      ),
      commit: ({ from, upTo, lastLeaf, changes }) =>
        transact(sql, "commit projection", Effect.gen(function*() {
          // The meta row stays locked until this transaction ends: a node stopped inside it
          // (SIGSTOP, a frozen VM) would keep every other node's fold waiting for as long
          // as it stays stuck, so the database ends the transaction once it sits idle.
          const [meta] = yield* sql<{ folded: string }>`SELECT folded,
              set_config('idle_in_transaction_session_timeout', ${String(HELD_EPOCH_IDLE_LIMIT_MS)}, true)
            FROM aics_projection_meta FOR UPDATE`
          if (toNumber(meta!.folded) !== from) return false
          const { upserts, deletes, activity } = rowWrites(changes)
          for (const run of runsOf(upserts, ROWS_PER_INSERT)) {
            yield* sql`INSERT INTO aics_state_rows ${sql.insert(run)} ON CONFLICT (area, key) DO UPDATE SET value = EXCLUDED.value`
          }
          for (const { area, key } of deletes) yield* sql`DELETE FROM aics_state_rows WHERE area = ${area} AND key = ${key}`
          // The actors leave their minutes' counts, their rows change, they join their new ones.
          const minutes = (actors: ReadonlyArray<string>, sign: string) =>
            Effect.forEach(runsOf(actors, KEYS_PER_SELECT), (run) =>
              sql<{ minute: number | string; agents: number | string }>`INSERT INTO aics_state_activity_minutes (minute, agents)
                SELECT logged / ${sql.literal(String(ACTIVITY_MINUTE_MS))}, ${sql.literal(sign)}COUNT(*) FROM aics_state_activity
                WHERE actor IN ${sql.in(run)} GROUP BY logged / ${sql.literal(String(ACTIVITY_MINUTE_MS))}
                ON CONFLICT (minute) DO UPDATE SET agents = aics_state_activity_minutes.agents + EXCLUDED.agents
                RETURNING minute, agents`).pipe(Effect.map((rows) => rows.flat().filter((row) => Number(row.agents) === 0).map((row) => row.minute)))
          const upserted = activity.upserts.map((row) => row.actor)
          const emptied = yield* minutes([...upserted, ...activity.deletes], "-")
          for (const run of runsOf(activity.upserts, ROWS_PER_INSERT)) {
            yield* sql`INSERT INTO aics_state_activity ${sql.insert(run)}
              ON CONFLICT (actor) DO UPDATE SET logged = EXCLUDED.logged, leaf = EXCLUDED.leaf, value = EXCLUDED.value`
          }
          for (const run of runsOf(activity.deletes, KEYS_PER_SELECT)) yield* sql`DELETE FROM aics_state_activity WHERE actor IN ${sql.in(run)}`
          yield* minutes(upserted, "")
          // A minute the actors left empty and none came back to: its row goes.
          for (const run of runsOf(emptied, KEYS_PER_SELECT)) yield* sql`DELETE FROM aics_state_activity_minutes WHERE minute IN ${sql.in(run)} AND agents = 0`
          const lengths = yield* listLengths(appendedLists(changes.appends))
          for (const run of runsOf(appendRows(changes.appends, lengths), ROWS_PER_INSERT)) yield* sql`INSERT INTO aics_state_lists ${sql.insert(run)}`
          for (const run of runsOf(changes.names, ROWS_PER_INSERT)) {
            yield* sql`INSERT INTO aics_projection_names ${sql.insert(run.map(rowOfRecord))}
              ON CONFLICT (name) DO UPDATE SET tier = EXCLUDED.tier, kid = EXCLUDED.kid, kid_index = EXCLUDED.kid_index,
                x25519 = EXCLUDED.x25519, x25519_index = EXCLUDED.x25519_index, events = EXCLUDED.events`
            // A name keeps its claim index for good: only a new claim adds to the search table.
            yield* sql`INSERT INTO aics_projection_name_search ${sql.insert(run.map((record) => ({ claim_index: record.claimIndex, name: record.name })))}
              ON CONFLICT (claim_index) DO NOTHING`
          }
          yield* sql`UPDATE aics_projection_meta SET folded = ${upTo}, last_leaf = ${lastLeaf}`
          return true
        })),
      names,
      // From the index of migration 0021, in claim order.
      recoveryNames: (kid, { from, limit }) =>
        sql<{ name: string; claim_index: string }>`SELECT name, claim_index FROM aics_projection_names
          WHERE recovery = ${kid} AND claim_index >= ${from} ORDER BY claim_index LIMIT ${limit}`.pipe(
          Effect.map((rows) => rows.map((row) => ({ name: row.name, claimIndex: toNumber(row.claim_index) }))),
          storage("read recovery names")
        ),
      rows: (keys) => Effect.gen(function*() {
        const rows: Array<StateRow> = []
        for (const [area, list] of keysByArea(keys)) {
          for (const run of runsOf(list, KEYS_PER_SELECT)) {
            const found = area === ACTIVITY_AREA
              ? yield* sql<{ key: string; value: string }>`SELECT actor AS key, value FROM aics_state_activity WHERE actor IN ${sql.in(run)}`
              : yield* sql<{ key: string; value: string }>`SELECT key, value FROM aics_state_rows WHERE area = ${area} AND key IN ${sql.in(run)}`
            for (const row of found) rows.push({ area, key: row.key, value: stateOfJson(row.value) })
          }
        }
        return { rows, names: [...(yield* names(keys.filter((k) => k.area === "names").map((k) => k.key))).values()] }
      }).pipe(storage("read state rows")),
      resident: sql<StoredRow>`SELECT area, key, value FROM aics_state_rows WHERE area = ${RESIDENT_AREA}`.pipe(
        Effect.map(residentOfRows),
        storage("read resident state")
      ),
      // One statement, so the count and the rows are of one snapshot: the rows walk the index
      // aics_state_activity_recent (migrations.ts 0017) from `since`, the count adds the whole
      // minutes after since's (0019) to the rows of its own minute.
      recentActivity: (since, limit) => {
        const minute = activityMinute(since)
        return sql<{ value: string; count: string }>`SELECT value,
            (SELECT COALESCE(SUM(agents), 0) FROM aics_state_activity_minutes WHERE minute > ${minute})
            + (SELECT count(*) FROM aics_state_activity WHERE logged >= ${since} AND logged < ${(minute + 1) * ACTIVITY_MINUTE_MS}) AS count
          FROM aics_state_activity WHERE logged >= ${since} ORDER BY logged DESC, leaf DESC LIMIT ${Math.max(1, limit)}`.pipe(
          Effect.map((rows) => recentOfRows(rows, limit)),
          storage("read recent activity")
        )
      },
      list: (area, key, { before, limit }) => Effect.gen(function*() {
        const [last] = yield* sql<{ n: string | null }>`SELECT MAX(n) AS n FROM aics_state_lists WHERE area = ${area} AND key = ${key}`
        const length = last?.n === null || last?.n === undefined ? 0 : toNumber(last.n) + 1
        const found = yield* sql<{ n: string; value: string }>`SELECT n, value FROM aics_state_lists
          WHERE area = ${area} AND key = ${key} AND n < ${before ?? length} ORDER BY n DESC LIMIT ${limit}`
        return { length, elements: found.map((row) => ({ n: toNumber(row.n), value: stateOfJson(row.value) })) }
      }).pipe(storage("read state list")),
      // One seek a key: the primary key (area, key, n) gives the next key after the last.
      listKeys: (area, { after, limit }) =>
        keysBySeek((last) =>
          Effect.map(
            last === undefined
              ? sql<{ key: string }>`SELECT key FROM aics_state_lists WHERE area = ${area} ORDER BY key LIMIT 1`
              : sql<{ key: string }>`SELECT key FROM aics_state_lists WHERE area = ${area} AND key > ${last} ORDER BY key LIMIT 1`,
            (rows) => rows[0]?.key
          ), after, limit).pipe(storage("read list keys")),
      // A range of the primary key (area, key): the rows are one per key.
      rowKeys: (area, { after, limit }) =>
        (after === undefined
          ? sql<{ key: string }>`SELECT key FROM aics_state_rows WHERE area = ${area} ORDER BY key LIMIT ${limit}`
          : sql<{ key: string }>`SELECT key FROM aics_state_rows WHERE area = ${area} AND key > ${after} ORDER BY key LIMIT ${limit}`).pipe(
          Effect.map((rows) => rows.map((row) => row.key)),
          storage("read row keys")
        ),
      retained: (walk) => sql<{ value: string }>`SELECT value FROM aics_state_rows WHERE area = ${RETENTION_AREA} AND key = ${retentionKey(walk)}`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? 0 : Number(rows[0].value))),
        storage("read retention cursor")
      ),
      // Every node's retention writes here; only a later position wins, so two turns ending
      // in either order leave the further one.
      retain: (walk, position) =>
        sql`INSERT INTO aics_state_rows (area, key, value) VALUES (${RETENTION_AREA}, ${retentionKey(walk)}, ${String(position)})
          ON CONFLICT (area, key) DO UPDATE SET value = EXCLUDED.value
          WHERE EXCLUDED.value::bigint > aics_state_rows.value::bigint`.pipe(Effect.asVoid, storage("write retention cursor")),
      directory: ({ part, after, limit }) => {
        const from = after ?? -1
        const page = (rows: ReadonlyArray<NameRow>) => ({
          names: rows.slice(0, limit).map((row) => directoryFields(recordOfRow(row))),
          truncated: rows.length > limit
        })
        if (part === undefined || part === "") {
          return sql<NameRow>`SELECT ${sql.literal(DIRECTORY_COLUMNS)} FROM aics_projection_names
            WHERE claim_index > ${from} ORDER BY claim_index LIMIT ${limit + 1}`.pipe(Effect.map(page), storage("read directory"))
        }
        return searchClaimIndexes(sql, { part, after: from, need: limit + 1 }).pipe(
          Effect.flatMap((found) =>
            found.length === 0
              ? Effect.succeed([])
              : sql<NameRow>`SELECT ${sql.literal(DIRECTORY_COLUMNS)} FROM aics_projection_names
                  WHERE claim_index IN ${sql.in(found)} ORDER BY claim_index`
          ),
          Effect.map(page),
          storage("read directory")
        )
      },
      reset: transact(sql, "reset projection", Effect.all([
        sql`DELETE FROM aics_projection_names`,
        sql`DELETE FROM aics_projection_name_search`,
        sql`DELETE FROM aics_state_rows`,
        sql`DELETE FROM aics_state_activity`,
        sql`DELETE FROM aics_state_activity_minutes`,
        sql`DELETE FROM aics_state_lists`,
        sql`UPDATE aics_projection_meta SET folded = 0, last_leaf = NULL`
      ], { discard: true }))
    })
  })
)
