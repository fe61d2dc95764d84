// `authority_not_allowed` is more often the operator's to fix than the client's: a node
// behind a load balancer that was not told the public host (AICS_PUBLIC_URL, AICS_AUTHORITY)
// refuses every signed request, and only the clients see the refusals. So the node says it in
// its log: the first refusal at once, then at most one line every LOG_EVERY_MS with how many
// came since, so a flood of them (anyone may send any Host) cannot flood the log. Every
// route that checks a signature tells it here (WriteAnswers.ts, SignedReads.ts).

import { Context, Effect, Layer } from "effect"
import { Clock } from "../ports/Clock.js"

/** The least time between two lines of the log about these refusals. */
export const LOG_EVERY_MS = 60_000

export class AuthorityRefusals extends Context.Tag("aics/AuthorityRefusals")<AuthorityRefusals, {
  /** A request was refused `authority_not_allowed`, with this detail (it names the Host and the accepted authorities). */
  readonly refused: (detail: string) => Effect.Effect<void>
}>() {
  static readonly layer = Layer.effect(AuthorityRefusals, Effect.map(Clock, (clock) => {
    let quietUntil = Number.NEGATIVE_INFINITY
    /** Refusals since the last line, counted in the next one. */
    let unsaid = 0
    return {
      refused: (detail) =>
        Effect.flatMap(clock.nowMillis, (now) => {
          unsaid++
          if (now < quietUntil) return Effect.void
          const refusals = unsaid
          unsaid = 0
          quietUntil = now + LOG_EVERY_MS
          return Effect.logWarning(
            "signed requests refused authority_not_allowed: their Host is not one this node accepts; " +
              "behind a load balancer or proxy, set AICS_PUBLIC_URL to the URL clients use (or AICS_AUTHORITY to the hosts they send)"
          ).pipe(Effect.annotateLogs({ event: "authority_not_allowed", refusals, last: detail }))
        })
    }
  }))
}
