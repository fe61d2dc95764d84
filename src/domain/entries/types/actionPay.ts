// `action.pay` (agent-signed; docs/spec/service.md "SUP": the balance "buys" owner actions): pays a
// quote from the SUP balance of the name the signing key acts for. The only debit of a
// balance. Rules: tasks/ownerRequests.ts, sup/ledger.ts.

import * as HashMap from "effect/HashMap"
import * as Schema from "effect/Schema"
import { currentNameOf } from "../../identity/bindings.js"
import { debit, debitRefusal } from "../../sup/ledger.js"
import { paymentRefusal, quoteOf } from "../../tasks/ownerRequests.js"
import { entryRule } from "../entryRule.js"
import { LeafIndex } from "../fields.js"

export const ActionPayPayload = Schema.Struct({
  quote_index: LeafIndex
})

export const actionPay = entryRule({
  type: "action.pay",
  signer: "agent",
  payload: ActionPayPayload,
  body: { kind: "none" },
  check: (state, { envelope, payload, logged }) =>
    paymentRefusal(state, payload.quote_index, logged) ??
      debitRefusal(state.sup, currentNameOf(state, envelope.kid), quoteOf(state, payload.quote_index)!.amount),
  apply: (state, { envelope, payload, index, logged }) => {
    const quote = quoteOf(state, payload.quote_index)!
    const name = currentNameOf(state, envelope.kid)!
    return {
      ...state,
      tasks: {
        ...state.tasks,
        quotes: HashMap.set(state.tasks.quotes, quote.index, { ...quote, payment: { index, kid: envelope.kid, name } })
      },
      sup: debit(state.sup, name, quote.amount, index, logged)
    }
  }
})
