// Which name a path segment designates (docs/spec/profile.md section 2; docs/spec/service.md "Identity"): the
// name_norm, "@name" or "@name.<instance_domain>", the instance domain being leaf 0's.

import { isDidKey } from "../identity/didKey.js"
import { nameFromHandle } from "../identity/names.js"
import type { LogState } from "../write/logState.js"

/** Reads only the service's keys (leaf 0): a slice or the resident parts will do. */
export const nameOfHandle = (state: Pick<LogState, "service">, handle: string): string | undefined =>
  state.service === undefined
    ? nameFromHandle(handle, "\u0000") // no charter yet: no instance suffix to strip
    : nameFromHandle(handle, state.service.instanceDomain)

/**
 * The suspension subject a path segment designates (GET /v2/governance/suspensions/{subject}):
 * the did:key of an Ed25519 key as it is, else the name a handle designates (claimed or
 * not: a name may be suspended before anyone claims it); undefined when it is neither.
 */
export const subjectOfHandle = (state: Pick<LogState, "service">, handle: string): string | undefined =>
  isDidKey(handle) ? handle : nameOfHandle(state, handle)
