// ANS lookup, GET /v2/ans/lookup/{handle} (service.md "Identity"): a handle (a bare name,
// "@name" or "@name.<instance_domain>") resolved to the name's current keys and the leaves
// that set them. A handle of another instance, or no valid name, is `handle_invalid`.

import { Either } from "effect"
import { nameRecordOf } from "../identity/bindings.js"
import type { LogState, NameTier } from "../write/logState.js"
import { sizeCovering } from "./coverage.js"
import { nameOfHandle } from "./handles.js"

export interface AnsView {
  readonly handle: string
  readonly name: string
  readonly tier: NameTier
  readonly kid: string
  readonly kid_index: number
  readonly recovery: string | null
  readonly recovery_index: number | null
  readonly x25519: string
  readonly x25519_index: number
  /** Smallest tree covering the leaves above. */
  readonly size: number
}

export type AnsProblem = "handle_invalid" | "name_not_found"

export const ansLookup = (state: LogState, handle: string): Either.Either<AnsView, AnsProblem> => {
  const name = nameOfHandle(state, handle)
  if (name === undefined) return Either.left("handle_invalid")
  const record = nameRecordOf(state, name)
  if (record === undefined) return Either.left("name_not_found")
  const recoveryIndex = record.recovery === null ? null : record.claimIndex
  return Either.right({
    handle,
    name: record.name,
    tier: record.tier,
    kid: record.kid,
    kid_index: record.kidIndex,
    recovery: record.recovery,
    recovery_index: recoveryIndex,
    x25519: record.x25519,
    x25519_index: record.x25519Index,
    size: sizeCovering([record.kidIndex, record.x25519Index, recoveryIndex])
  })
}
