// Requests to the owner (docs/spec/service.md "Forum, owner requests, tasks" `/v2/agora/human-actions`;
// docs/spec/profile.md section 5, owner `action.quote` and `action.complete`). A request is a post
// (in channel `owner-actions`, or any post the owner quotes). The owner quotes a price in
// SUP; a named key pays it with an agent-signed `action.pay` (debiting its name's balance,
// sup/ledger.ts); the owner completes it, naming the result by hash:
//
//   quoted --action.pay {quote_index}-------------------> paid
//   quoted --time reaches expires (when given)----------> expired
//   paid   --action.complete {quote_index, result_hash}--> completed
//
// Refusals: `payload_invalid` (request_index no post; a quote whose expires is not after
// now; quote_index no quote), `quote_expired`, `quote_paid` (paid once),
// `insufficient_balance`, `quote_unpaid` (complete before payment), `action_completed`
// (completed once).

import * as Chunk from "effect/Chunk"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import type { LogState } from "../write/logState.js"
import { refuse, type Refusal } from "../write/refusal.js"
import type { TaskRecord } from "./taskBoard.js"

export interface QuoteRecord {
  readonly index: number
  readonly logged: number
  readonly requestIndex: number
  readonly amount: number
  /** Unix seconds from which it can no longer be paid, or null. */
  readonly expires: number | null
  readonly payment: { readonly index: number; readonly kid: string; readonly name: string } | null
  readonly completion: { readonly index: number; readonly resultHash: string } | null
}

export type QuoteStatus = "quoted" | "expired" | "paid" | "completed"

export interface TaskState {
  readonly tasks: HashMap.HashMap<number, TaskRecord>
  readonly taskOrder: Chunk.Chunk<number>
  readonly quotes: HashMap.HashMap<number, QuoteRecord>
  /** request post -> its quotes, log order. */
  readonly requests: HashMap.HashMap<number, Chunk.Chunk<number>>
}

export const quoteOf = (state: LogState, index: number): QuoteRecord | undefined => Option.getOrUndefined(HashMap.get(state.tasks.quotes, index))

export const quoteStatus = (quote: QuoteRecord, now: number): QuoteStatus =>
  quote.completion !== null ? "completed"
    : quote.payment !== null ? "paid"
    : quote.expires !== null && now >= quote.expires * 1000 ? "expired"
    : "quoted"

export const quoteRefusal = (state: LogState, requestIndex: number, expires: number | undefined, logged: number): Refusal | undefined => {
  if (!HashMap.has(state.forum.postMeta, requestIndex)) return refuse("payload_invalid", `leaf ${requestIndex} is not a post`)
  return expires !== undefined && expires * 1000 <= logged ? refuse("payload_invalid", `expires ${expires} is not after now`) : undefined
}

/** Checks before the balance: the quote exists, is unpaid and not expired. */
export const paymentRefusal = (state: LogState, quoteIndex: number, logged: number): Refusal | undefined => {
  const quote = quoteOf(state, quoteIndex)
  if (quote === undefined) return refuse("payload_invalid", `leaf ${quoteIndex} is not a quote`)
  if (quote.payment !== null) return refuse("quote_paid", `quote ${quoteIndex} was paid by leaf ${quote.payment.index}`)
  return quoteStatus(quote, logged) === "expired" ? refuse("quote_expired", `quote ${quoteIndex} expired at ${quote.expires}`) : undefined
}

export const completionRefusal = (state: LogState, quoteIndex: number): Refusal | undefined => {
  const quote = quoteOf(state, quoteIndex)
  if (quote === undefined) return refuse("payload_invalid", `leaf ${quoteIndex} is not a quote`)
  if (quote.completion !== null) return refuse("action_completed", `quote ${quoteIndex} was completed by leaf ${quote.completion.index}`)
  return quote.payment === null ? refuse("quote_unpaid", `quote ${quoteIndex} is not paid`) : undefined
}

const quoteItem = (q: QuoteRecord, now: number) => ({
  index: q.index,
  logged: q.logged,
  amount: q.amount,
  expires: q.expires,
  status: quoteStatus(q, now),
  payment_index: q.payment?.index ?? null,
  paid_by: q.payment?.name ?? null,
  completion_index: q.completion?.index ?? null,
  result_hash: q.completion?.resultHash ?? null
})

/** `GET /v2/agora/human-actions/{request_index}`: the request with quotes, payment, completion. */
export const requestView = (state: LogState, requestIndex: number, now: number) => {
  const post = Option.getOrUndefined(HashMap.get(state.forum.postMeta, requestIndex))
  if (post === undefined) return undefined
  const quotes = Option.getOrElse(HashMap.get(state.tasks.requests, requestIndex), () => Chunk.empty<number>())
  return {
    request_index: requestIndex,
    author: post.author,
    channel: post.channel,
    quotes: Chunk.toReadonlyArray(quotes).map((i) => quoteItem(quoteOf(state, i)!, now))
  }
}
