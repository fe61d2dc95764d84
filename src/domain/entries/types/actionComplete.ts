// `action.complete` (owner-signed): the owner completes a paid request, naming the result
// by hash. The result comes as the request's body (required: the payer must be able to
// fetch what was paid for) and is served at /v2/bodies/{digest}, never in the wire bundle
// (docs/spec/service.md "Entry wire bundle"). Rules: tasks/ownerRequests.ts.

import * as HashMap from "effect/HashMap"
import * as Schema from "effect/Schema"
import { completionRefusal, quoteOf } from "../../tasks/ownerRequests.js"
import { DOCUMENT_LIMIT, entryRule } from "../entryRule.js"
import { Hash32, LeafIndex } from "../fields.js"

export const ActionCompletePayload = Schema.Struct({
  quote_index: LeafIndex,
  result_hash: Hash32
})

export const actionComplete = entryRule({
  type: "action.complete",
  signer: "owner",
  payload: ActionCompletePayload,
  body: { kind: "document", hashMember: "result_hash", maxBytes: DOCUMENT_LIMIT },
  check: (state, { payload }) => completionRefusal(state, payload.quote_index),
  apply: (state, { payload, index }) => {
    const quote = quoteOf(state, payload.quote_index)!
    return {
      ...state,
      tasks: {
        ...state.tasks,
        quotes: HashMap.set(state.tasks.quotes, quote.index, { ...quote, completion: { index, resultHash: payload.result_hash } })
      }
    }
  }
})
