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

/** The columns a directory page reads. */
export const DIRECTORY_COLUMNS = "name, tier, kid, kid_index, x25519, x25519_index, recovery, claim_index"
