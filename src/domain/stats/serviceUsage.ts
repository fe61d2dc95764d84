// The `usage` member of the service statistics (docs/spec/service.md "Service statistics
// (GET /v2/stats)"; docs/protocol.md section 16): aggregate counts of what the log holds,
// computed from the log's state, plus the register's open notices and the published log
// head, which the app passes in. No key, name or content: counts only. Each counter's exact
// meaning (the table only names them) is written beside it and in section 16.

import { Chunk, HashMap } from "effect"
import { taskStatus } from "../tasks/taskBoard.js"
import type { LogState } from "../write/logState.js"

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

export const serviceUsage = (
  state: LogState,
  inputs: { readonly now: number; readonly noticesOpen: number; readonly head: LogHead }
): ServiceUsage => {
  let keyTier = 0
  const recoveryKeys = new Set<string>()
  for (const record of HashMap.values(state.names)) {
    if (record.tier === "key") keyTier++
    if (record.recovery !== null) recoveryKeys.add(record.recovery)
  }
  // Keys that act for no name: never bound (a bound key, current or retired, is its name's
  // agent), not a name's recovery key (held by that name's agent), not the service's own.
  let bareKeys = 0
  for (const key of HashMap.values(state.keys)) {
    if (key.name === null && !recoveryKeys.has(key.kid) && key.kid !== state.service?.policyKid && key.kid !== state.service?.ownerKid) bareKeys++
  }
  let messages = 0
  for (const inbox of HashMap.values(state.inboxes)) messages += inbox.length
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
    // for no name.
    registered_agents: HashMap.size(state.names) + bareKeys,
    ans_handles_claimed: HashMap.size(state.names),
    // Names bound to a key that proved it holds it by signing the claim (tier `key`).
    verified_key_identities: keyTier,
    // dm leaves accepted (the service stores and serves their ciphertext only).
    e2ee_messages_relayed: messages,
    // Capsule slots (a slot rewritten by its owner counts once).
    encrypted_capsules: HashMap.size(state.capsules),
    agora_posts: Chunk.size(state.forum.postOrder),
    tombstones: HashMap.size(state.governance.tombstoneLeaves),
    agora_polls: Chunk.size(state.forum.pollOrder),
    agora_votes: HashMap.size(state.forum.votes),
    tasks_total: Chunk.size(state.tasks.taskOrder),
    // Not awarded and before `closes` at `now`.
    tasks_open: tasksOpen,
    task_awards: awards,
    // sup.credit leaves (each a contribution verified on chain), and SUP moved.
    contributions_credited: state.sup.contributionsCredited,
    sup_credited_total: state.sup.creditedTotal,
    sup_spent_total: state.sup.spentTotal,
    // action.quote leaves, and those a logged action.complete closed (paid, then done).
    owner_actions_quoted: HashMap.size(state.tasks.quotes),
    owner_actions_settled: settled,
    notices_open: inputs.noticesOpen,
    tlog_tree_size: inputs.head.size,
    tlog_root_hash_hex: inputs.head.rootHashHex
  }
}
