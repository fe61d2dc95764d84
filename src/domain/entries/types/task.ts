// `task` (owner-signed; docs/spec/service.md item 7, "Forum, owner requests, tasks" /v2/tasks): a
// voluntary task, its text the off-leaf body (body_hash, size, at most 16 KiB), a reward in
// SUP and a deadline. Rules: tasks/taskBoard.ts.

import * as Chunk from "effect/Chunk"
import * as HashMap from "effect/HashMap"
import * as Schema from "effect/Schema"
import { newTaskRefusal } from "../../tasks/taskBoard.js"
import { entryRule, TEXT_LIMIT } from "../entryRule.js"
import { Hash32, Size, SupAmount, UnixSeconds } from "../fields.js"

export const TaskPayload = Schema.Struct({
  body_hash: Hash32,
  size: Size,
  reward: SupAmount,
  closes: UnixSeconds
})

export const task = entryRule({
  type: "task",
  signer: "owner",
  payload: TaskPayload,
  body: { kind: "text", hashMember: "body_hash", maxBytes: TEXT_LIMIT },
  check: (_state, { payload, logged }) => newTaskRefusal(payload.closes, logged),
  apply: (state, { payload, index, logged }) => ({
    ...state,
    tasks: {
      ...state.tasks,
      tasks: HashMap.set(state.tasks.tasks, index, {
        index,
        logged,
        bodyHash: payload.body_hash,
        size: payload.size,
        reward: payload.reward,
        closes: payload.closes,
        award: null
      }),
      taskOrder: Chunk.append(state.tasks.taskOrder, index)
    }
  })
})
