// The service's clock as aics admin and aics grant read it (src/client/serviceClock.ts): its Date
// header, unsigned, is used only within the skew a signed request may have; further off, one
// side's clock is wrong, and the owner is told rather than made to sign a time moved by it.

import { describe, expect, it } from "vitest"
import { serviceNowMillis, unixSecondsByService } from "../../src/client/serviceClock.js"
import { ClientError } from "../../src/client/errors.js"
import { serviceAt } from "../../src/client/http.js"
import { MAX_CLOCK_SKEW_SECONDS } from "../../src/domain/http/aicsProfile.js"

const NOW = Date.UTC(2026, 11, 6, 12, 0, 0)

/** A service whose GET /checkpoint answers with the Date `date` (or none). */
const answeringDate = (date: string | undefined) => ({
  service: serviceAt("http://127.0.0.1:1", async () => new Response("checkpoint", { status: 200, headers: date === undefined ? {} : { date } }))
})

describe("the service's clock", () => {
  it("is its Date when within the skew a signed request may have, and none without a Date", async () => {
    const ahead = new Date(NOW + 120_000).toUTCString()
    expect(await serviceNowMillis(answeringDate(ahead), NOW)).toBe(NOW + 120_000)
    expect(await serviceNowMillis(answeringDate(undefined), NOW)).toBeUndefined()
  })

  it("is refused, saying both clocks, when further off than that (a proxy's Date, a node's wrong clock)", async () => {
    for (const offset of [(MAX_CLOCK_SKEW_SECONDS + 1) * 1000, -3_600_000, Date.UTC(2090, 0, 1) - NOW]) {
      const error = await serviceNowMillis(answeringDate(new Date(NOW + offset).toUTCString()), NOW).then(() => undefined, (e: unknown) => e)
      expect(error).toBeInstanceOf(ClientError)
      expect((error as ClientError).message).toMatch(new RegExp(`is -?\\d+ s from this machine's .* more than the ${MAX_CLOCK_SKEW_SECONDS} s a signed request may be`))
    }
  })
})

describe("a time read by the service's clock", () => {
  const refusal = (promise: Promise<number>): Promise<string> => promise.then((s) => `accepted ${s}`, (error: Error) => error.message)
  /** The number a refusal gives as now. */
  const nowIn = (message: string): number => Number(/now is (\d+) in Unix seconds/.exec(message)?.[1])

  it("refused before any request, states now as it is by this machine's clock, and the skew it allowed apart", async () => {
    const message = await refusal(unixSecondsByService(answeringDate(new Date().toUTCString()), "1000", "closes", { future: true }))
    expect(message).toMatch(new RegExp(`^closes 1000 \\(1970-01-01T00:16:40\\.000Z\\) is not in the future: now is \\d+ in Unix seconds by this machine's clock, ` +
      `and it is past even by a clock ${MAX_CLOCK_SKEW_SECONDS} s behind this one \\(the most a service's may be\\); give a later time or "\\+SECONDS"$`))
    expect(Math.abs(nowIn(message) - Date.now() / 1000)).toBeLessThan(5)
  })

  it("refuses \"+0\" before any request: now is now by any clock, and the time it gives is that now", async () => {
    const message = await refusal(unixSecondsByService(answeringDate(new Date().toUTCString()), "+0", "until", { future: true }))
    expect(message).toMatch(/^until \d+ \(.*\) is not in the future: now is \d+ in Unix seconds by this machine's clock; give a later time or "\+SECONDS"$/)
    expect(Number(/^until (\d+)/.exec(message)?.[1])).toBe(nowIn(message))
    expect(Math.abs(nowIn(message) - Date.now() / 1000)).toBeLessThan(5)
  })

  it("refused by the service's clock, states the service's now: the time to give is after it", async () => {
    const serviceNow = Math.floor((Date.now() + 100_000) / 1000)
    const service = answeringDate(new Date(serviceNow * 1000).toUTCString())
    // 50 s ahead of this machine is behind a service 100 s ahead.
    const message = await refusal(unixSecondsByService(service, String(Math.floor(Date.now() / 1000) + 50), "until", { future: true }))
    expect(message).toMatch(/^until \d+ \(.*\) is not in the future: now is \d+ in Unix seconds by the service's clock; give a later time or "\+SECONDS"$/)
    expect(nowIn(message)).toBe(serviceNow)
    expect(await unixSecondsByService(service, "+1", "until", { future: true })).toBe(serviceNow + 1)
    expect(await unixSecondsByService(service, String(serviceNow + 1), "until", { future: true })).toBe(serviceNow + 1)
  })
})
