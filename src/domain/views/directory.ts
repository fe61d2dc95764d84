// Directory, GET /v2/directory (docs/spec/service.md "Identity" and "Limits"): names with their tier
// and current keys, in claim order (stable: a name's place never changes), filtered by `q`,
// a part of the name (compared in normal form, as names are), at most `limit` of them.
// Tiers (docs/spec/profile.md section 5): `key` for a name claimed by the key it binds, `secret` for
// one claimed through the text gate with a secret, resting on the service's word. Whether a
// name's recovery key still stands reads that key's record (docs/protocol.md 10.1): the
// app loads the records directoryReads names for a page.

import * as Chunk from "effect/Chunk"
import { nameRecordOf, recoveryStanding } from "../identity/bindings.js"
import { normalizeName } from "../identity/names.js"
import type { LogState, NameRecord, NameTier } from "../write/logState.js"
import type { RowKey } from "../write/stateReads.js"

export interface DirectoryEntry {
  readonly name: string
  readonly tier: NameTier
  readonly kid: string
  readonly kid_index: number
  readonly recovery: string | null
  /** Whether the recovery key may still rotate the name: null without one (nameView.ts CurrentKeys). */
  readonly recovery_stands: boolean | null
  readonly x25519: string
  readonly x25519_index: number | null
  readonly claim_index: number
}

export interface DirectoryView {
  readonly q: string | null
  readonly names: ReadonlyArray<DirectoryEntry>
  /** Whether more names match than `limit`. */
  readonly truncated: boolean
}

export interface DirectoryQuery {
  readonly q?: string | undefined
  readonly limit: number
}

/** The part of a name `q` asks for, in normal form; undefined (every name) for no or an empty `q`. */
export const directoryPart = (q: string | undefined): string | undefined =>
  q === undefined || q === "" ? undefined : normalizeName(q)

/** The entry of a name; `state` holds the record of its recovery key, if the log has one. */
export const directoryEntryOf = (state: LogState, record: Omit<NameRecord, "events">): DirectoryEntry => ({
  name: record.name,
  tier: record.tier,
  kid: record.kid,
  kid_index: record.kidIndex,
  recovery: record.recovery,
  recovery_stands: recoveryStanding(state, record).stands,
  x25519: record.x25519,
  x25519_index: record.x25519Index,
  claim_index: record.claimIndex
})

/** A page the projection store found (ports/ProjectionStore.ts directory). */
export interface DirectoryPageFound {
  readonly names: ReadonlyArray<Omit<NameRecord, "events">>
  readonly truncated: boolean
}

/** The rows the view of a page reads: the records of its names' recovery keys. */
export const directoryReads = (page: DirectoryPageFound): ReadonlyArray<RowKey> =>
  [...new Set(page.names.flatMap((record) => (record.recovery === null ? [] : [record.recovery])))].map((kid) => ({ area: "keys" as const, key: kid }))

/** The view of one page the projection store found, `slice` holding the rows directoryReads names. */
export const directoryViewOfPage = (query: DirectoryQuery, page: DirectoryPageFound, slice: LogState): DirectoryView => ({
  q: query.q ?? null,
  names: page.names.map((record) => directoryEntryOf(slice, record)),
  truncated: page.truncated
})

export const directoryView = (state: LogState, query: DirectoryQuery): DirectoryView => {
  const part = directoryPart(query.q)
  const names: Array<DirectoryEntry> = []
  // Read by position: a scan that stops at `limit` never copies the whole sequence.
  for (let i = 0; i < state.nameOrder.length; i++) {
    const name = Chunk.unsafeGet(state.nameOrder, i)
    if (part !== undefined && !name.includes(part)) continue
    if (names.length === query.limit) return { q: query.q ?? null, names, truncated: true }
    names.push(directoryEntryOf(state, nameRecordOf(state, name)!))
  }
  return { q: query.q ?? null, names, truncated: false }
}
