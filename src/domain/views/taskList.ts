// The task board (docs/spec/service.md "Forum, owner requests, tasks": `/v2/tasks` and
// `/v2/support/tasks` with `status` and `limit`, `/v2/tasks/{task_index}`; docs/protocol.md
// section 12). Each task is tasks/taskBoard.ts's view; the board lists them newest first,
// of one status (open, closed, awarded) when asked. A submission is an ordinary post.

import { taskView, type TaskStatus } from "../tasks/taskBoard.js"
import type { LogState } from "../write/logState.js"
import { newestFirst } from "./chunks.js"
import { sizeCovering } from "./coverage.js"

export const TASK_STATUSES = ["open", "closed", "awarded"] as const satisfies ReadonlyArray<TaskStatus>

type TaskItem = NonNullable<ReturnType<typeof taskView>>

/** The task, its award and the submission the award names. */
const taskLeaves = (task: TaskItem): ReadonlyArray<number | null> => [task.index, task.award_index, task.submission_index]

export const taskListView = (state: LogState, query: { readonly status: TaskStatus | undefined; readonly limit: number }, now: number) => {
  const page = newestFirst(state.tasks.taskOrder, query.limit, (i) => query.status === undefined || taskView(state, i, now)!.status === query.status)
  const tasks = page.items.map((i) => taskView(state, i, now)!)
  return {
    status: query.status ?? null,
    tasks,
    truncated: page.truncated,
    size: sizeCovering(tasks.flatMap(taskLeaves)),
    submissions: "a submission is an ordinary post in any channel (`tasks` suggested), logged after the task and before it closes"
  }
}

export const taskDetail = (state: LogState, index: number, now: number) => {
  const task = taskView(state, index, now)
  return task === undefined ? undefined : { task, size: sizeCovering(taskLeaves(task)) }
}
