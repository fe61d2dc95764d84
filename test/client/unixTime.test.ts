// The client's times (src/client/unixTime.ts) are read by the domain's reader the text gate
// uses (src/domain/unixTime.ts): the CLI's --closes/--until, the MCP tools' arguments and the
// gate's closes/until take the same texts to the same seconds, and the client's words for
// what it refuses (the form, a millisecond value, a time gone by) stay as they were.

import { describe, expect, it } from "vitest"
import { unixSeconds } from "../../src/client/unixTime.js"
import { MAX_UNIX_SECONDS, timeAt } from "../../src/domain/unixTime.js"

const NOW_MS = Date.UTC(2026, 2, 1, 10, 0, 0, 500)
const NOW = Math.floor(NOW_MS / 1000)
const at = (text: string, future = false) => unixSeconds(text, "--closes", { now: NOW_MS, future })
const refusal = (read: () => number): string => {
  try {
    return `accepted ${read()}`
  } catch (error) {
    return (error as Error).message
  }
}

describe("the client's times", () => {
  it("take Unix seconds and +SECONDS (up to 12 digits) as the domain reads them", () => {
    for (const text of ["0", "1700000000", "0001700000000", "+0", "+60", "+0060", "+1000000000", "+100000000000", String(MAX_UNIX_SECONDS)]) {
      expect(at(text), text).toBe(timeAt(text, NOW_MS))
    }
    expect(at("+60")).toBe(NOW + 60)
    expect(at("1700000000")).toBe(1_700_000_000)
    // unixSeconds (the MCP tools' reader, behind their schema: an integer or "+SECONDS") reads strings the same way.
    expect(unixSeconds("+3600", "closes", { now: NOW_MS })).toBe(NOW + 3600)
    expect(unixSeconds("1700000000", "closes", { now: NOW_MS })).toBe(1_700_000_000)
    expect(unixSeconds(1_700_000_000, "closes", { now: NOW_MS })).toBe(1_700_000_000)
  })

  it("refuse what the domain does not read, in the client's words", () => {
    for (const text of ["tomorrow", "1.5e9", "-1", "+-5", "+", "", " 60", "+1000000000000", "99999999999999999999"]) {
      expect(timeAt(text, NOW_MS), text).toBeUndefined()
      expect(refusal(() => at(text)), text).toBe(`--closes is Unix seconds (an integer) or "+SECONDS" from now, got ${JSON.stringify(text)}`)
    }
    expect(refusal(() => unixSeconds(1.5, "until"))).toBe('until is Unix seconds (an integer) or "+SECONDS" from now, got 1.5')
  })

  it("refuse a time past the year 9999 naming the unit, and one gone by when it must be ahead", () => {
    expect(refusal(() => at(String(NOW_MS)))).toBe(
      `--closes is in Unix SECONDS: ${NOW_MS} would be after the year 9999 (it looks like milliseconds: in seconds that is ${NOW}); ` +
      `now is ${NOW} in seconds, or give "+SECONDS" from now`
    )
    expect(refusal(() => at("+300000000000"))).toMatch(/^--closes is in Unix SECONDS: \d+ would be after the year 9999 \(it looks like milliseconds/)
    expect(refusal(() => at(String(MAX_UNIX_SECONDS * 1000 + 1000)))).toMatch(/would be after the year 9999; now is/)
    expect(refusal(() => at("1", true))).toBe(`--closes 1 (1970-01-01T00:00:01.000Z) is not in the future: now is ${NOW} in Unix seconds; give a later time or "+SECONDS"`)
    expect(refusal(() => at("+0", true))).toMatch(/^--closes \d+ \(.*\) is not in the future/)
    expect(at("+1", true)).toBe(NOW + 1)
  })

  it("let through, with a slack, a time that much before now; refused beyond it, saying now as it is and the slack apart", () => {
    const slack = (text: string) => unixSeconds(text, "--closes", { now: NOW_MS, future: true, clock: "by this machine's clock", slackSeconds: 300 })
    expect(slack(String(NOW - 299))).toBe(NOW - 299)
    expect(slack("+0")).toBe(NOW)
    expect(refusal(() => slack(String(NOW - 300)))).toBe(
      `--closes ${NOW - 300} (${new Date((NOW - 300) * 1000).toISOString()}) is not in the future: now is ${NOW} in Unix seconds by this machine's clock, ` +
        `and it is past even by a clock 300 s behind this one (the most a service's may be); give a later time or "+SECONDS"`
    )
  })
})
