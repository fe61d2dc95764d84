// WitnessTransport over HTTP with Node's fetch (keep-alive by default, as tlog-witness asks
// clients to). A witness that does not answer within WITNESS_ANSWER_BOUND is unreachable
// this time.

import { Duration, Effect, Layer } from "effect"
import { WITNESS_ANSWER_BOUND, WitnessTransport, WitnessUnreachable } from "../../ports/WitnessTransport.js"

/** A witness's answer is a few lines; more is not read. */
const MAX_REPLY_BYTES = 64 * 1024

export const FetchWitnessTransportLive = Layer.succeed(WitnessTransport, {
  addCheckpoint: (prefix, body) =>
    Effect.tryPromise({
      try: async (signal) => {
        const response = await fetch(`${prefix}/add-checkpoint`, {
          method: "POST",
          body,
          headers: { "content-type": "text/plain" },
          signal: AbortSignal.any([signal, AbortSignal.timeout(Duration.toMillis(WITNESS_ANSWER_BOUND))])
        })
        const bytes = new Uint8Array(await response.arrayBuffer())
        return {
          status: response.status,
          contentType: response.headers.get("content-type") ?? "",
          body: new TextDecoder().decode(bytes.subarray(0, MAX_REPLY_BYTES))
        }
      },
      catch: (cause) => new WitnessUnreachable({ detail: cause instanceof Error ? cause.message : String(cause) })
    })
})
