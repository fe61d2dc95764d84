// `action.quote` (owner-signed; docs/spec/service.md "Forum, owner requests, tasks"
// /v2/agora/human-actions): the owner's price in SUP for a request (a post), payable until
// `expires` when given. Rules: tasks/ownerRequests.ts.

import * as HashMap from "effect/HashMap"
import * as Schema from "effect/Schema"
import { quoteRefusal } from "../../tasks/ownerRequests.js"
import { appendAt } from "../../write/logState.js"
import { entryRule } from "../entryRule.js"
import { LeafIndex, SupAmount, UnixSeconds } from "../fields.js"

export const ActionQuotePayload = Schema.Struct({
  request_index: LeafIndex,
  amount: SupAmount,
  expires: Schema.optional(UnixSeconds)
})

export const actionQuote = entryRule({
  type: "action.quote",
  signer: "owner",
  payload: ActionQuotePayload,
  body: { kind: "none" },
  check: (state, { payload, logged }) => quoteRefusal(state, payload.request_index, payload.expires, logged),
  apply: (state, { payload, index, logged }) => ({
    ...state,
    tasks: {
      ...state.tasks,
      quotes: HashMap.set(state.tasks.quotes, index, {
        index,
        logged,
        requestIndex: payload.request_index,
        amount: payload.amount,
        expires: payload.expires ?? null,
        payment: null,
        completion: null
      }),
      requests: appendAt(state.tasks.requests, payload.request_index, index)
    }
  })
})
