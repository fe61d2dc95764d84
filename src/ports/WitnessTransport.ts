// How the log reaches its witnesses (C2SP tlog-witness, as a client): one add-checkpoint
// request, answered with the status, content type and body, or a failure to get an answer
// at all (unreachable, timed out). The app decides what every answer means.

import { Context, Data, type Effect } from "effect"

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
