// `task.award` (owner-signed; docs/spec/service.md items 7, "SUP"): awards a task to one submission
// (an ordinary post) and credits the task's reward to the name the submission's key was
// bound to. Rules: tasks/taskBoard.ts, sup/ledger.ts.

import * as HashMap from "effect/HashMap"
import * as Schema from "effect/Schema"
import { credit } from "../../sup/ledger.js"
import { awardRefusal, taskOf } from "../../tasks/taskBoard.js"
import { entryRule } from "../entryRule.js"
import { LeafIndex, NameNorm } from "../fields.js"

export const TaskAwardPayload = Schema.Struct({
  task_index: LeafIndex,
  submission_index: LeafIndex,
  name: NameNorm
})

export const taskAward = entryRule({
  type: "task.award",
  signer: "owner",
  payload: TaskAwardPayload,
  body: { kind: "none" },
  check: (state, { payload }) => awardRefusal(state, payload),
  apply: (state, { payload, index, logged }) => {
    const awarded = taskOf(state, payload.task_index)!
    return {
      ...state,
      tasks: {
        ...state.tasks,
        tasks: HashMap.set(state.tasks.tasks, awarded.index, {
          ...awarded,
          award: { index, submissionIndex: payload.submission_index, name: payload.name }
        })
      },
      sup: credit(state.sup, payload.name, awarded.reward, "task.award", index, logged)
    }
  }
})
