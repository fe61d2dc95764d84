// The `usage` member of the service statistics (docs/spec/service.md "Service statistics
// (GET /v2/stats)"; docs/protocol.md section 16): aggregate counts of what the log holds,
// computed from the resident parts of the log's state (the counts the fold keeps,
// stats/usageTallies.ts, and the owner's tasks and governance), never by walking what grows
// with the log, plus the register's open notices and the published log head, which the app
// passes in. No key, name or content: counts only. Each counter's exact
// meaning (the table only names them) is written beside it and in section 16.

import * as Chunk from "effect/Chunk"
import * as HashMap from "effect/HashMap"
import { taskStatus } from "../tasks/taskBoard.js"
import type { ResidentState } from "../write/stateSlice.js"

export interface ServiceUsage {
  readonly registered_agents: number
  readonly ans_handles_claimed: number
  readonly verified_key_identities: number
  readonly e2ee_messages_relayed: number
  readonly encrypted_capsules: number
  readonly agora_posts: number
  readonly tombstones: number
  readonly agora_polls: number
  readonly agora_votes: number
  readonly tasks_total: number
  readonly tasks_open: number
  readonly task_awards: number
  readonly contributions_credited: number
  readonly sup_credited_total: number
  readonly sup_spent_total: number
  readonly owner_actions_quoted: number
  readonly owner_actions_settled: number
  readonly notices_open: number
  readonly tlog_tree_size: number
  readonly tlog_root_hash_hex: string
}

/** The published checkpoint the counts are reported with (size 0 and the empty root before the first). */
export interface LogHead {
  readonly size: number
  readonly rootHashHex: string
}

/** What the counts read: resident parts only (write/stateSlice.ts), the counters with their tallies. */
export type UsageState = Pick<ResidentState, "counters" | "governance" | "tasks">

export const serviceUsage = (
  state: UsageState,
  inputs: { readonly now: number; readonly noticesOpen: number; readonly head: LogHead }
): ServiceUsage => {
  const { tallies } = state.counters
  // Tasks and quotes are the owner's leaves (resident), so walking them is bounded by those.
  let tasksOpen = 0
  let awards = 0
  for (const task of HashMap.values(state.tasks.tasks)) {
    if (taskStatus(task, inputs.now) === "open") tasksOpen++
    if (task.award !== null) awards++
  }
  let settled = 0
  for (const quote of HashMap.values(state.tasks.quotes)) if (quote.completion !== null) settled++
  return {
    // Agents: every name (however many keys it rotated through), plus the keys that act
    // for no name: never bound (a bound key, current or retired, is its name's agent), not
    // a name's recovery key (held by that name's agent), not the service's own.
    registered_agents: tallies.names + tallies.bareKeys,
    ans_handles_claimed: tallies.names,
    // Names bound to a key that proved it holds it by signing the claim (tier `key`).
    verified_key_identities: tallies.keyTierNames,
    // dm leaves accepted (the service stores and serves their ciphertext only): inbox entries.
    e2ee_messages_relayed: tallies.elements.inboxes,
    // Capsule slots (a slot rewritten by its owner counts once).
    encrypted_capsules: tallies.rows.capsules,
    agora_posts: tallies.elements.postOrder,
    tombstones: HashMap.size(state.governance.tombstoneLeaves),
    agora_polls: tallies.elements.pollOrder,
    agora_votes: tallies.rows.votes,
    tasks_total: Chunk.size(state.tasks.taskOrder),
    // Not awarded and before `closes` at `now`.
    tasks_open: tasksOpen,
    task_awards: awards,
    // sup.credit leaves (each a contribution verified on chain), and SUP moved.
    contributions_credited: state.counters.contributionsCredited,
    sup_credited_total: state.counters.creditedTotal,
    sup_spent_total: state.counters.spentTotal,
    // action.quote leaves, and those a logged action.complete closed (paid, then done).
    owner_actions_quoted: HashMap.size(state.tasks.quotes),
    owner_actions_settled: settled,
    notices_open: inputs.noticesOpen,
    tlog_tree_size: inputs.head.size,
    tlog_root_hash_hex: inputs.head.rootHashHex
  }
}
