// The task board (docs/spec/service.md "Forum, owner requests, tasks" /v2/tasks, /v2/support/tasks,
// /v2/tasks/{task_index}; docs/protocol.md section 12). Tasks are a resident part of the
// state (domain/write/stateAreas.ts): whole in every slice, so the board needs no rows.

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { StateReader } from "../../../app/StateReader.js"
import { TASKS_LIMIT } from "../../../domain/views/limits.js"
import { taskDetail, taskListView } from "../../../domain/views/taskList.js"
import type { TaskStatus } from "../../../domain/tasks/taskBoard.js"
import { Clock } from "../../../ports/Clock.js"
import { AicsApi } from "../api.js"
import { NotFound } from "../problem.js"
import { checkpointCovering, orUnavailable } from "./common.js"

export const TasksHandlers = HttpApiBuilder.group(AicsApi, "tasks", (handlers) =>
  Effect.gen(function*() {
    const reader = yield* StateReader
    const clock = yield* Clock
    const covering = yield* checkpointCovering

    const board = ({ urlParams }: { readonly urlParams: { readonly status?: TaskStatus | undefined; readonly limit?: number | undefined } }) =>
      Effect.gen(function*() {
        const view = taskListView(yield* reader.slice([]), { status: urlParams.status, limit: urlParams.limit ?? TASKS_LIMIT.default }, yield* clock.nowMillis)
        return { ...view, checkpoint_note: yield* covering(view.size) }
      }).pipe(orUnavailable)

    return handlers
      .handle("tasks", board)
      .handle("supportTasks", board)
      .handle("task", ({ path }) =>
        Effect.gen(function*() {
          const view = taskDetail(yield* reader.slice([]), path.task_index, yield* clock.nowMillis)
          if (view === undefined) return yield* NotFound.fail("task_not_found", `leaf ${path.task_index} is not a task`)
          return { ...view, checkpoint_note: yield* covering(view.size) }
        }).pipe(orUnavailable))
  }))
