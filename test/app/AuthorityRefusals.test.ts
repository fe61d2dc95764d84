// The node's log line about `authority_not_allowed` refusals (app/AuthorityRefusals.ts): the
// first refusal is said at once, with the detail that names the Host and what the node
// accepts; the next ones within LOG_EVERY_MS are only counted, and said with the first
// refusal after it: a flood of wrong Hosts costs the log a line a minute.

import { Effect, HashMap, Logger } from "effect"
import { describe, expect, it } from "vitest"
import { makeTestClock } from "../../src/adapters/clock/TestClock.js"
import { AuthorityRefusals, LOG_EVERY_MS } from "../../src/app/AuthorityRefusals.js"

interface Line {
  readonly level: string
  readonly message: string
  readonly annotations: Record<string, unknown>
}

describe("AuthorityRefusals", () => {
  it("says the first refusal at once, then at most one line a minute with the count since", async () => {
    const clock = makeTestClock(1_800_000_000_000)
    const lines: Array<Line> = []
    const logger = Logger.make(({ logLevel, message, annotations }) => void lines.push({
      level: logLevel.label,
      message: Array.isArray(message) ? message.join(" ") : String(message),
      annotations: Object.fromEntries(HashMap.toEntries(annotations))
    }))
    await Effect.runPromise(Effect.gen(function*() {
      const refusals = yield* AuthorityRefusals
      yield* refusals.refused("the request's Host \"lb.example.org\" ... first")
      expect(lines).toHaveLength(1)
      // A flood within the minute: counted, not said.
      for (let i = 0; i < 1000; i++) yield* refusals.refused(`refusal ${i}`)
      yield* clock.advance(LOG_EVERY_MS - 1)
      yield* refusals.refused("still within the minute")
      expect(lines).toHaveLength(1)
      yield* clock.advance(1)
      yield* refusals.refused("the last")
      expect(lines).toHaveLength(2)
      yield* refusals.refused("quiet again")
      expect(lines).toHaveLength(2)
    }).pipe(
      Effect.provide(AuthorityRefusals.layer),
      Effect.provide(clock.layer),
      Effect.provide(Logger.replace(Logger.defaultLogger, logger))
    ))
    expect(lines.map((line) => line.level)).toEqual(["WARN", "WARN"])
    expect(lines[0]!.message).toContain("AICS_PUBLIC_URL")
    expect(lines[0]!.annotations).toEqual({ event: "authority_not_allowed", refusals: 1, last: "the request's Host \"lb.example.org\" ... first" })
    // The 1000 of the flood, the one within the minute and this one.
    expect(lines[1]!.annotations).toEqual({ event: "authority_not_allowed", refusals: 1002, last: "the last" })
  })
})
