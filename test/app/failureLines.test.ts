// The lines of work that retries while it fails (src/app/failureLines.ts): one line when it
// starts failing, none for the failures after it within a minute, a reminder a minute on
// (how long, how many since), one line when it works again. An expected failure is its
// message in the `error` annotation with no cause attached (no stack trace); a defect
// keeps its cause, stack and all.

import { Cause, Effect, LogLevel } from "effect"
import { describe, expect, it } from "vitest"
import { failureLines, REMINDER_MILLIS } from "../../src/app/failureLines.js"
import { StorageError } from "../../src/ports/StorageError.js"
import { logLines } from "../support/logLines.js"

const capture = () => {
  const { lines, layer } = logLines()
  const run = <A>(effect: Effect.Effect<A>) => Effect.runSync(effect.pipe(Effect.provide(layer)))
  return { lines, run }
}

describe("failureLines", () => {
  it("says a failure once, reminds once a minute, and says when the work works again", () => {
    const { lines, run } = capture()
    let now = 1_000_000
    const work = failureLines(LogLevel.Warning, Effect.sync(() => now))
    const down = Cause.fail(new StorageError({ operation: "size", detail: "connect ECONNREFUSED 127.0.0.1:5432" }))
    run(work.worked("works again"))
    expect(lines).toEqual([])

    for (let i = 0; i < 30; i++) {
      run(work.failed("reading failed", down))
      now += 1_000
    }
    expect(lines.map((l) => [l.level, l.message, l.annotations])).toEqual([["WARN", "reading failed", { error: "size: connect ECONNREFUSED 127.0.0.1:5432" }]])
    expect(Cause.isEmpty(lines[0]!.cause)).toBe(true)
    expect(work.spell()).toEqual({ error: "size: connect ECONNREFUSED 127.0.0.1:5432", since: 1_000_000, last: 1_029_000 })

    now = 1_000_000 + REMINDER_MILLIS
    run(work.failed("reading failed", down))
    expect(lines.slice(1).map((l) => [l.message, l.annotations])).toEqual([
      ["reading failed", { error: "size: connect ECONNREFUSED 127.0.0.1:5432", failing_seconds: REMINDER_MILLIS / 1000, failures_since_last_line: 30 }]
    ])

    run(work.worked("works again"))
    run(work.worked("works again"))
    expect(lines.slice(2).map((l) => [l.level, l.message])).toEqual([["INFO", "works again"]])
    expect(work.spell()).toBeUndefined()

    // A new spell is said again at once.
    run(work.failed("reading failed", down))
    expect(lines).toHaveLength(4)
  })

  it("keeps a defect's cause, with its stack", () => {
    const { lines, run } = capture()
    const work = failureLines(LogLevel.Error, Effect.succeed(0))
    run(work.failed("a batch could not be made durable", Cause.die(new TypeError("undefined is not a function"))))
    expect(lines).toHaveLength(1)
    expect(lines[0]!.annotations["error"]).toBeUndefined()
    expect(Cause.isDie(lines[0]!.cause)).toBe(true)
    expect(Cause.pretty(lines[0]!.cause)).toContain("TypeError: undefined is not a function")
    expect(work.spell()?.error).toBe("undefined is not a function")
  })
})
