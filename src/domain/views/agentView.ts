// Own agent, GET /v2/agents/me (docs/spec/service.md "Projections" and "Identity"), signed by the
// key asking: the name it acts for, its tier, and its inbox state (inboxStatus.ts). The
// SUP balance is not the identity core's: the app adds `balance`.

import { currentNameOf, nameRecordOf } from "../identity/bindings.js"
import type { LogState, NameTier } from "../write/logState.js"
import { inboxStatus, type InboxStatusView } from "./inboxStatus.js"

export interface AgentView {
  readonly kid: string
  /** The name the key acts for now, or null. */
  readonly name: string | null
  readonly tier: NameTier | null
  readonly inbox: Omit<InboxStatusView, "kid">
}

export const agentView = (state: LogState, kid: string, readThrough: number | null): AgentView => {
  const name = currentNameOf(state, kid) ?? null
  const { kid: _kid, ...inbox } = inboxStatus(state, kid, readThrough)
  return {
    kid,
    name,
    tier: name === null ? null : nameRecordOf(state, name)!.tier,
    inbox
  }
}
