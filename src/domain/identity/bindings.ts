// Who acts for a name, and binding keys to names (docs/spec/profile.md section 5, claim and key
// events). A key is bound to at most one name, once: a claim or a rotation binds it, a
// later rotation unbinds it for good. A retired key may have been the reason for the
// rotation (lost, leaked), so it never speaks for a name again.

import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { type KeyRecord, keyRecordOf, type LogState, type NameRecord } from "../write/logState.js"

/** The name's record, if claimed. */
export const nameRecordOf = (state: LogState, name: string): NameRecord | undefined =>
  Option.getOrUndefined(HashMap.get(state.names, name))

/** The name the key currently acts for, if any. */
export const currentNameOf = (state: LogState, kid: string): string | undefined =>
  Option.getOrUndefined(HashMap.get(state.keyNames, kid))

/** The name the key holds or once held, if any: such a key can never be bound again. */
export const boundNameOf = (state: LogState, kid: string): string | undefined =>
  keyRecordOf(state, kid).name ?? undefined

/**
 * The name a leaf at `index` signed by `kid` speaks for: the key's name, unless a rotation
 * retired the key before that leaf (docs/protocol.md 10.1: a retired key signs as a bare key).
 */
export const nameAtLeafOf = (state: LogState, kid: string, index: number): string | undefined => {
  const record = keyRecordOf(state, kid)
  return record.unboundIndex !== null && index > record.unboundIndex ? undefined : record.name ?? undefined
}

/**
 * The key's standing for the name: its current key, its recovery key, or neither
 * (docs/protocol.md 10.1). A recovery key stands only while it is kept apart: once it holds or
 * held a name of its own (it claimed one, or a rotation moved one to it, both signed by it)
 * it is a key in daily use, perhaps the very key that leaked and was rotated away, and a
 * retired key never speaks for a name again. Others cannot take that standing from it: only
 * its holder's signature binds it.
 */
export const standing = (state: LogState, record: NameRecord, kid: string): "current" | "recovery" | undefined =>
  record.kid === kid ? "current" : record.recovery === kid && keptApart(keyOf(state, kid)) ? "recovery" : undefined

/** The key's record, or undefined for a key the log holds none of (it never signed a leaf or was bound). */
export const keyOf = (state: LogState, kid: string): KeyRecord | undefined => Option.getOrUndefined(HashMap.get(state.keys, kid))

/**
 * Whether a key is still kept apart, so that it stands as the recovery key of every name
 * that named it (`standing`): it never held a name of its own. From its record, undefined
 * for a key the log holds no record of (named as a recovery key only, it holds no name).
 */
export const keptApart = (key: KeyRecord | undefined): boolean => (key?.name ?? null) === null

/**
 * The standing of a name's recovery key (docs/protocol.md 10.1), as the views show it:
 * `stands` null for a name without one, true while the key is kept apart, false once it
 * holds or held a name of its own; `boundIndex` the leaf that bound it to that name (its
 * claim, or a rotation to it), from which it rotates no name, null while it stands.
 */
export interface RecoveryStanding {
  readonly stands: boolean | null
  readonly boundIndex: number | null
}

/** The standing of the name's recovery key, from the name's record and the recovery key's (undefined: none in the log). */
export const recoveryStandingOf = (record: Pick<NameRecord, "recovery">, key: KeyRecord | undefined): RecoveryStanding =>
  record.recovery === null
    ? { stands: null, boundIndex: null }
    : keptApart(key)
    ? { stands: true, boundIndex: null }
    : { stands: false, boundIndex: key!.boundIndex }

/** The standing of the name's recovery key in a state (or a slice holding the key's record). */
export const recoveryStanding = (state: LogState, record: Pick<NameRecord, "recovery">): RecoveryStanding =>
  recoveryStandingOf(record, record.recovery === null ? undefined : keyOf(state, record.recovery))

/** A name whose claim named a key as its recovery key, and that claim's leaf. */
export interface RecoveryClaim {
  readonly name: string
  readonly claimIndex: number
}

/** The state with the key bound to the name by the leaf at `index`. */
export const bindKey = (state: LogState, kid: string, name: string, index: number): LogState => ({
  ...state,
  keyNames: HashMap.set(state.keyNames, kid, name),
  keys: HashMap.set(state.keys, kid, { ...keyRecordOf(state, kid), name, boundIndex: index, unboundIndex: null })
})

/** The state with the key no longer acting for its name, from the leaf at `index`. */
export const unbindKey = (state: LogState, kid: string, index: number): LogState => ({
  ...state,
  keyNames: HashMap.remove(state.keyNames, kid),
  keys: HashMap.set(state.keys, kid, { ...keyRecordOf(state, kid), unboundIndex: index })
})
