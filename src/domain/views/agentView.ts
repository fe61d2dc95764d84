// Own agent, GET /v2/agents/me (docs/spec/service.md "Projections" and "Identity"), signed by the
// key asking: the name it acts for, its tier, and its inbox state (inboxStatus.ts). The
// SUP balance is not the identity core's: the app adds `balance`.

import { currentNameOf, nameRecordOf } from "../identity/bindings.js"
import type { LogState, NameTier } from "../write/logState.js"
import type { RowKey } from "../write/stateReads.js"
import { inboxStatus, type InboxStatusView } from "./inboxStatus.js"

export interface AgentView {
  readonly kid: string
  /** The name the key acts for now, or null. */
  readonly name: string | null
  readonly tier: NameTier | null
  readonly inbox: Omit<InboxStatusView, "kid">
}

/** The view from a slice holding the key's binding and its name (agentReads), and its inbox's status. */
export const agentViewOf = (slice: LogState, kid: string, status: InboxStatusView): AgentView => {
  const name = currentNameOf(slice, kid) ?? null
  const { kid: _kid, ...inbox } = status
  return {
    kid,
    name,
    tier: name === null ? null : nameRecordOf(slice, name)!.tier,
    inbox
  }
}

/**
 * The rows agentViewOf reads: the key's binding, then its name's record, and that name's
 * SUP account (the balance the app adds to the view).
 */
export const agentReads = (kid: string) => (slice: LogState): ReadonlyArray<RowKey> => {
  const name = currentNameOf(slice, kid)
  return [
    { area: "keyNames", key: kid },
    ...(name === undefined ? [] : [{ area: "names" as const, key: name }, { area: "supAccounts" as const, key: name }])
  ]
}

/** The view on a whole state. */
export const agentView = (state: LogState, kid: string, readThrough: number | null): AgentView =>
  agentViewOf(state, kid, inboxStatus(state, kid, readThrough))
