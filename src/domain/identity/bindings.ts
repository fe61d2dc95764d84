// Who acts for a name, and binding keys to names (docs/spec/profile.md section 5, claim and key
// events). A key is bound to at most one name, once: a claim or a rotation binds it, a
// later rotation unbinds it for good. A retired key may have been the reason for the
// rotation (lost, leaked), so it never speaks for a name again.

import { HashMap, Option } from "effect"
import { keyRecordOf, type LogState, type NameRecord } from "../write/logState.js"

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
  record.kid === kid ? "current" : record.recovery === kid && boundNameOf(state, kid) === undefined ? "recovery" : undefined

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
