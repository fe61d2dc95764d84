// ANS lookup, GET /v2/ans/lookup/{handle} (docs/spec/service.md "Identity"): a handle (a bare name,
// "@name" or "@name.<instance_domain>") resolved to the name's current keys and the leaves
// that set them. A handle of another instance, or no valid name, is `handle_invalid`.

import { Either } from "effect"
import { nameRecordOf } from "../identity/bindings.js"
import type { LogState, NameRecord } from "../write/logState.js"
import { sizeCovering } from "./coverage.js"
import { nameOfHandle } from "./handles.js"
import { currentKeysOf, type CurrentKeys } from "./nameView.js"

export interface AnsView extends CurrentKeys {
  readonly handle: string
  /** Smallest tree covering the leaves above. */
  readonly size: number
}

export type AnsProblem = "handle_invalid" | "name_not_found"

export const ansLookup = (state: LogState, handle: string): Either.Either<AnsView, AnsProblem> => {
  const name = nameOfHandle(state, handle)
  return ansLookupOf(handle, name, name === undefined ? undefined : nameRecordOf(state, name))
}

/** The lookup from the name the handle designates (undefined: none) and that name's record, if claimed. */
export const ansLookupOf = (handle: string, name: string | undefined, record: NameRecord | undefined): Either.Either<AnsView, AnsProblem> => {
  if (name === undefined) return Either.left("handle_invalid")
  if (record === undefined) return Either.left("name_not_found")
  const keys = currentKeysOf(record)
  return Either.right({ handle, ...keys, size: sizeCovering([keys.kid_index, keys.x25519_index, keys.recovery_index]) })
}
