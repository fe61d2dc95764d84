// Which name a path segment designates (docs/spec/profile.md section 2; docs/spec/service.md "Identity"): the
// name_norm, "@name" or "@name.<instance_domain>", the instance domain being leaf 0's.

import { nameFromHandle } from "../identity/names.js"
import type { LogState } from "../write/logState.js"

/** Reads only the service's keys (leaf 0): a slice or the resident parts will do. */
export const nameOfHandle = (state: Pick<LogState, "service">, handle: string): string | undefined =>
  state.service === undefined
    ? nameFromHandle(handle, "\u0000") // no charter yet: no instance suffix to strip
    : nameFromHandle(handle, state.service.instanceDomain)
