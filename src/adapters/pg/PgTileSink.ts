// TileSink on PostgreSQL (tables aics_tiles and aics_checkpoint, migrations.ts): with
// several API processes on one database, the tiles and the checkpoint one of them publishes
// are what every one of them serves at /tiles and /checkpoint, with no shared folder.
//
// The same rules as FsTileSink: a full tile that exists is compared, never rewritten (other
// bytes would fork the published log, so the batch fails with nothing written: the check
// and the inserts are one transaction); partial tiles are kept for every published size;
// the checkpoint row is replaced by one statement, so a reader sees the old note or the new.
// Durable when the commit returns, as the log (PgLogStore.ts).

import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, Option } from "effect"
import { equal } from "../../domain/bytes.js"
import { StorageError } from "../../ports/StorageError.js"
import { TileSink, type Tile } from "../../ports/TileSink.js"
import { checkTilePath, isFullTilePath, uniqueTiles } from "../fs/tilePath.js"
import { storage, toBytes, transact } from "./pgValues.js"

export const PgTileSinkLive: Layer.Layer<TileSink, never, SqlClient.SqlClient> = Layer.effect(
  TileSink,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const writeTiles = (tiles: ReadonlyArray<Tile>) =>
      Effect.suspend(() => {
        const unique = uniqueTiles(tiles)
        if (unique instanceof StorageError) return Effect.fail(unique)
        if (unique.length === 0) return Effect.void
        const full = unique.filter((tile) => isFullTilePath(tile.path))
        return transact(sql, "writeTiles", Effect.gen(function*() {
          if (full.length > 0) {
            const existing = yield* sql<{ path: string; bytes: Uint8Array }>`SELECT path, bytes FROM aics_tiles
              WHERE path = ANY(${full.map((t) => t.path)}::text[]) FOR UPDATE`
            const stored = new Map(existing.map((row) => [row.path, row.bytes]))
            const forked = full.find((tile) => stored.has(tile.path) && !equal(toBytes(stored.get(tile.path)), tile.bytes))
            if (forked !== undefined) {
              return yield* new StorageError({
                operation: "writeTiles",
                detail: `full tile ${forked.path} exists with different bytes: refusing to fork the published log`
              })
            }
          }
          yield* sql`INSERT INTO aics_tiles (path, bytes)
            SELECT * FROM unnest(${unique.map((t) => t.path)}::text[], ${unique.map((t) => Buffer.from(t.bytes))}::bytea[])
            ON CONFLICT (path) DO UPDATE SET bytes = EXCLUDED.bytes WHERE strpos(aics_tiles.path, '.p/') > 0`
        }))
      })

    return TileSink.of({
      writeTiles,
      writeCheckpoint: (note) =>
        sql`INSERT INTO aics_checkpoint (only_row, note) VALUES (true, ${Buffer.from(note)})
          ON CONFLICT (only_row) DO UPDATE SET note = EXCLUDED.note`.pipe(Effect.asVoid, storage("writeCheckpoint")),
      readTile: (path) =>
        Effect.suspend(() => {
          const problem = checkTilePath("readTile", path)
          if (problem !== undefined) return Effect.fail(problem)
          return sql<{ bytes: Uint8Array }>`SELECT bytes FROM aics_tiles WHERE path = ${path}`.pipe(
            Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => toBytes(row.bytes))),
            storage("readTile")
          )
        }),
      readCheckpoint: sql<{ note: Uint8Array }>`SELECT note FROM aics_checkpoint`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => toBytes(row.note))),
        storage("readCheckpoint")
      )
    })
  })
)
