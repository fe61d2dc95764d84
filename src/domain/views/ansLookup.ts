// ANS lookup, GET /v2/ans/lookup/{handle} (docs/spec/service.md "Identity"): a handle (a bare name,
// "@name" or "@name.<instance_domain>") resolved to the name's current keys and the leaves
// that set them. A handle of another instance, or no valid name, is `handle_invalid`.

import * as Either from "effect/Either"
import { nameRecordOf } from "../identity/bindings.js"
import type { LogState } from "../write/logState.js"
import { sizeCovering } from "./coverage.js"
import { nameOfHandle } from "./handles.js"
import { currentKeysOf, type CurrentKeys } from "./nameView.js"

export interface AnsView extends CurrentKeys {
  readonly handle: string
  /** Smallest tree covering the leaves above. */
  readonly size: number
}

export type AnsProblem = "handle_invalid" | "name_not_found"

/** The lookup on a state, or on a slice of nameView.ts nameReads. */
export const ansLookup = (state: LogState, handle: string): Either.Either<AnsView, AnsProblem> => {
  const name = nameOfHandle(state, handle)
  if (name === undefined) return Either.left("handle_invalid")
  const record = nameRecordOf(state, name)
  if (record === undefined) return Either.left("name_not_found")
  const keys = currentKeysOf(state, record)
  return Either.right({
    handle,
    ...keys,
    size: sizeCovering([keys.kid_index, keys.x25519_index, keys.recovery_index, keys.recovery_bound_index])
  })
}
