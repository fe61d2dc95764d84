// How a name's record is laid out in a projection table row, shared by the SQLite and the
// PostgreSQL projection stores: the record's fields in columns (the directory reads them
// without the events), and its key events as one JSON array (only a name's own view and a
// fold step read them, whole).

import { Chunk } from "effect"
import type { KeyEvent, NameRecord, NameTier } from "../../domain/write/logState.js"

export interface NameRow {
  readonly name: string
  readonly tier: string
  readonly kid: string
  readonly kid_index: number | string
  readonly x25519: string
  readonly x25519_index: number | string | null
  readonly recovery: string | null
  readonly claim_index: number | string
  readonly events?: string
}

const num = (value: number | string): number => (typeof value === "number" ? value : Number(value))

/** The record of a row; events only when the row carries them. */
export const recordOfRow = (row: NameRow): NameRecord => ({
  name: row.name,
  tier: row.tier as NameTier,
  kid: row.kid,
  kidIndex: num(row.kid_index),
  x25519: row.x25519,
  x25519Index: row.x25519_index === null ? null : num(row.x25519_index),
  recovery: row.recovery,
  claimIndex: num(row.claim_index),
  events: row.events === undefined ? Chunk.empty() : Chunk.fromIterable(JSON.parse(row.events) as ReadonlyArray<KeyEvent>)
})

/** The record's directory fields, without its events. */
export const directoryFields = ({ events: _events, ...fields }: NameRecord): Omit<NameRecord, "events"> => fields

export const eventsJson = (record: NameRecord): string => JSON.stringify(Chunk.toReadonlyArray(record.events))

/** The record as the row an INSERT writes (one multi-row INSERT per fold step). */
export const rowOfRecord = (record: NameRecord) => ({
  name: record.name,
  claim_index: record.claimIndex,
  tier: record.tier,
  kid: record.kid,
  kid_index: record.kidIndex,
  x25519: record.x25519,
  x25519_index: record.x25519Index,
  recovery: record.recovery,
  events: eventsJson(record)
})

/** Rows per INSERT: far below either database's limit of bound parameters. */
export const ROWS_PER_INSERT = 1024

/** The array in runs of at most `size`. */
export const runsOf = <A>(items: ReadonlyArray<A>, size: number): ReadonlyArray<ReadonlyArray<A>> =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))

/** The columns a directory page reads. */
export const DIRECTORY_COLUMNS = "name, tier, kid, kid_index, x25519, x25519_index, recovery, claim_index"
