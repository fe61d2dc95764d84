// How the log reaches its witnesses (C2SP tlog-witness, as a client): one add-checkpoint
// request, answered with the status, content type and body, or a failure to get an answer
// at all (unreachable, timed out). The app decides what every answer means.

import { Context, Data, Duration, type Effect } from "effect"

/**
 * How long a transport waits for a witness's answer: past it, the witness is unreachable
 * this time. The log's first round (app/CosignatureCollector.ts) gives a witness that
 * answers without judging the checkpoint (a 5xx) the same bound, counted from the first
 * submission, as one that does not answer at all.
 */
export const WITNESS_ANSWER_BOUND = Duration.seconds(10)

export interface WitnessReply {
  readonly status: number
  readonly contentType: string
  readonly body: string
}

export class WitnessUnreachable extends Data.TaggedError("WitnessUnreachable")<{ readonly detail: string }> {}

export class WitnessTransport extends Context.Tag("aics/WitnessTransport")<WitnessTransport, {
  /** POST <prefix>/add-checkpoint with the body. */
  readonly addCheckpoint: (prefix: string, body: Uint8Array) => Effect.Effect<WitnessReply, WitnessUnreachable>
}>() {}
