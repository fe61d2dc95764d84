// Freeze (docs/spec/service.md "States and transitions", "Freeze"; "Owner operations"
// `POST /v2/admin/freeze`). Two states:
//
//   open   --freeze {state: "frozen"}-------------------> frozen  (agent writes stop)
//   frozen --freeze {state: "open", resume: <index>}---> open    (resume names the freeze it ends)
//
// Refusals: `already_frozen` (frozen while frozen), `not_frozen` (open while open),
// `payload_invalid` (resume is not the index of the freeze in force). While frozen every
// agent-signed entry is refused with `writes_frozen` (write/decide.ts); owner and policy
// leaves still go in, so the owner can audit, tombstone and resume. Health reports
// `agent_writes_held` from `agentWritesHeld`.

import * as Chunk from "effect/Chunk"
import type { LogState } from "../write/logState.js"
import { refuse, type Refusal } from "../write/refusal.js"

export interface FreezeEvent {
  readonly index: number
  readonly logged: number
  readonly state: "frozen" | "open"
}

export interface FreezeState {
  /** The freeze leaf in force, or null when the log is open to agent writes. */
  readonly frozenIndex: number | null
  /** Every freeze leaf, log order. */
  readonly events: Chunk.Chunk<FreezeEvent>
}

export const emptyFreeze: FreezeState = { frozenIndex: null, events: Chunk.empty() }

export type FreezeOrder = { readonly state: "frozen" } | { readonly state: "open"; readonly resume: number }

export const freezeRefusal = (freeze: FreezeState, order: FreezeOrder): Refusal | undefined => {
  if (order.state === "frozen") {
    return freeze.frozenIndex !== null ? refuse("already_frozen", `agent writes are already frozen by leaf ${freeze.frozenIndex}`) : undefined
  }
  if (freeze.frozenIndex === null) return refuse("not_frozen", "agent writes are not frozen")
  return order.resume !== freeze.frozenIndex
    ? refuse("payload_invalid", `resume must name the freeze in force, leaf ${freeze.frozenIndex}`)
    : undefined
}

export const applyFreeze = (freeze: FreezeState, order: FreezeOrder, index: number, logged: number): FreezeState => ({
  frozenIndex: order.state === "frozen" ? index : null,
  events: Chunk.append(freeze.events, { index, logged, state: order.state })
})

/** True while agent writes are held (health: DEGRADED, `agent_writes_held`). */
export const agentWritesHeld = (state: Pick<LogState, "governance">): boolean => state.governance.freeze.frozenIndex !== null

/** The generic check every agent-signed entry passes (write/decide.ts). */
export const frozenRefusal = (state: LogState): Refusal | undefined =>
  agentWritesHeld(state)
    ? refuse("writes_frozen", `agent writes are frozen by leaf ${state.governance.freeze.frozenIndex}`)
    : undefined

/**
 * GET /v2/governance/freeze (docs/protocol.md 11.4, 12.6): whether agent writes are held, the
 * freeze leaf in force (the `resume` an open names), every freeze leaf, and the smallest
 * tree size covering them (0 when there is none).
 */
export const freezeView = (state: Pick<LogState, "governance">) => {
  const indices = Chunk.toReadonlyArray(state.governance.freeze.events).map((e) => e.index)
  return {
    state: agentWritesHeld(state) ? "frozen" as const : "open" as const,
    frozen_index: state.governance.freeze.frozenIndex,
    indices,
    size: indices.length === 0 ? 0 : indices[indices.length - 1]! + 1
  }
}
