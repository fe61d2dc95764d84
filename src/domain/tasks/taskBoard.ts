// The task board (docs/spec/service.md items 7 of "What the service does", "Forum, owner requests,
// tasks" `/v2/tasks`; docs/spec/profile.md section 5, owner `task` and `task.award`). The owner posts
// a task with a reward in SUP and a deadline; a submission is an ordinary post in any
// channel; the owner awards one submission, which credits the reward to the name the
// submission's key was bound to (sup/ledger.ts):
//
//   open    --task.award {task_index, submission_index, name}--> awarded
//   open    --time reaches closes---------------------------------> closed (still awardable)
//   closed  --task.award------------------------------------------> awarded
//
// Refusals: `payload_invalid` (a task whose closes is not after now; task_index no task;
// submission_index no post, or posted before the task or from closes on; `name` not the
// name the submission's key was bound to), `recipient_unknown` (that key never held a
// name), `task_awarded` (a task is awarded once).

import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { boundNameOf } from "../identity/bindings.js"
import type { LogState } from "../write/logState.js"
import { refuse, type Refusal } from "../write/refusal.js"

export interface TaskRecord {
  readonly index: number
  readonly logged: number
  readonly bodyHash: string
  readonly size: number
  readonly reward: number
  readonly closes: number
  readonly award: { readonly index: number; readonly submissionIndex: number; readonly name: string } | null
}

export type TaskStatus = "open" | "closed" | "awarded"

export const taskOf = (state: LogState, index: number): TaskRecord | undefined => Option.getOrUndefined(HashMap.get(state.tasks.tasks, index))

export const taskStatus = (task: TaskRecord, now: number): TaskStatus =>
  task.award !== null ? "awarded" : now < task.closes * 1000 ? "open" : "closed"

export const newTaskRefusal = (closes: number, logged: number): Refusal | undefined =>
  closes * 1000 <= logged ? refuse("payload_invalid", `closes ${closes} is not after now`) : undefined

export interface Award {
  readonly task_index: number
  readonly submission_index: number
  readonly name: string
}

export const awardRefusal = (state: LogState, award: Award): Refusal | undefined => {
  const task = taskOf(state, award.task_index)
  if (task === undefined) return refuse("payload_invalid", `leaf ${award.task_index} is not a task`)
  if (task.award !== null) return refuse("task_awarded", `task ${task.index} was awarded by leaf ${task.award.index}`)
  const post = Option.getOrUndefined(HashMap.get(state.forum.postMeta, award.submission_index))
  if (post === undefined) return refuse("payload_invalid", `leaf ${award.submission_index} is not a post`)
  if (award.submission_index < task.index) return refuse("payload_invalid", "the submission is older than the task")
  if (post.logged >= task.closes * 1000) return refuse("payload_invalid", "the submission was posted after the task closed")
  const name = boundNameOf(state, post.author)
  if (name === undefined) return refuse("recipient_unknown", "the submission's key holds no name, so no SUP account")
  return name !== award.name ? refuse("payload_invalid", `the submission's key was bound to ${name}`) : undefined
}

export const taskView = (state: LogState, index: number, now: number) => {
  const task = taskOf(state, index)
  if (task === undefined) return undefined
  return {
    index: task.index,
    logged: task.logged,
    body_hash: task.bodyHash,
    size: task.size,
    reward: task.reward,
    closes: task.closes,
    status: taskStatus(task, now),
    award_index: task.award?.index ?? null,
    submission_index: task.award?.submissionIndex ?? null,
    awarded_to: task.award?.name ?? null
  }
}
