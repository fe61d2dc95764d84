// The service's clock, for the times a client signs (docs/protocol.md 13.6): the log judges
// a grant's `until`, a suspension's `until`, a task's `closes`, a quote's `expires` and a
// policy's `not_before` against its own time, so "+SECONDS" counts from the service's now,
// and "in the future" is by it. `aics admin` and `aics grant` read their WHEN options here.

import { MAX_CLOCK_SKEW_SECONDS } from "../domain/http/aicsProfile.js"
import { protocolError } from "./errors.js"
import { send } from "./http.js"
import { unixSeconds } from "./unixTime.js"
import type { LogClient } from "./write.js"

/** When the service answered, by its Date header (Unix ms, whole seconds), or undefined when it gave none. */
export const answeredAt = (headers: Headers): number | undefined => {
  const date = Date.parse(headers.get("date") ?? "")
  return Number.isSafeInteger(date) && date > 0 ? date : undefined
}

/**
 * The service's clock, Unix ms: the Date header of its answer to GET /checkpoint (RFC 9110,
 * whole seconds, rounded down, so never ahead of the logged time of a leaf written after it);
 * undefined when the answer has none. The log judges `until`, `closes` and `expires` against
 * its own time, so a clock minutes off would otherwise write an end of suspension the log
 * refuses as ahead of it, or a "+SECONDS" that has already passed.
 */
export const serviceNowMillis = async (client: Pick<LogClient, "service">, localNow: number = Date.now()): Promise<number | undefined> => {
  const response = await send(client.service, "/checkpoint")
  await response.arrayBuffer().catch(() => undefined)
  const date = answeredAt(response.headers)
  if (date === undefined) return undefined
  // The header is not signed: a proxy, or a node whose clock is wrong, could move every time
  // the client signs by any amount (a suspension "for an hour" until 2090). The service takes
  // a signed request only within MAX_CLOCK_SKEW_SECONDS of its clock, so a Date further from
  // this machine's than that is a wrong clock on one side: said, not used.
  if (Math.abs(date - localNow) > MAX_CLOCK_SKEW_SECONDS * 1000) {
    throw protocolError(`the service's clock (its Date: ${new Date(date).toISOString()}) is ${Math.round((date - localNow) / 1000)} s from this machine's ` +
      `(${new Date(localNow).toISOString()}), more than the ${MAX_CLOCK_SKEW_SECONDS} s a signed request may be: check both clocks before signing a time`)
  }
  return date
}

/**
 * A WHEN the client was given (unixTime.ts: Unix seconds or "+SECONDS"), read by the
 * service's clock: checked on this machine first, so a malformed time, or one past by more
 * than the skew any service's clock may have from this one, is a usage error before any
 * request; then read with the service's now, so "+SECONDS" counts from it and `future` is
 * by it, as the log judges the leaf: a clock minutes off on this machine still signs what
 * was meant (a time ahead by the service is not refused for being past by a slow local
 * clock). This machine's clock when the answer has no Date. Either refusal states now as
 * it is by the clock it names (an agent computes its next try from it), the first saying
 * separately that it allowed for the skew.
 */
export const unixSecondsByService = async (
  client: Pick<LogClient, "service">,
  text: string,
  what: string,
  options: { readonly future?: boolean } = {}
): Promise<number> => {
  // Before any request: past by this machine's clock even allowing for a service's clock
  // behind it. "+SECONDS" is as far ahead by any clock, so it needs no allowance ("+0" is now).
  const relative = typeof text === "string" && text.startsWith("+")
  unixSeconds(text, what, { ...options, clock: "by this machine's clock", slackSeconds: relative ? 0 : MAX_CLOCK_SKEW_SECONDS })
  const now = await serviceNowMillis(client)
  return unixSeconds(text, what, {
    ...options,
    ...(now === undefined ? { clock: "by this machine's clock (the service's answer gave no Date)" } : { now, clock: "by the service's clock" })
  })
}
