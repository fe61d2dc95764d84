// The service's clock as aics admin and aics grant read it (src/client/serviceClock.ts): its Date
// header, unsigned, is used only within the skew a signed request may have; further off, one
// side's clock is wrong, and the owner is told rather than made to sign a time moved by it.

import { describe, expect, it } from "vitest"
import { serviceNowMillis } from "../../src/client/serviceClock.js"
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
