// What the claim route does once a sup.credit leaf is durable (app/Contributions.ts
// creditMarks): the store's mark of the credited intent, which must never turn the credit's
// 201 into an error, and which this process remembers when the store failed to keep it.

import { Effect, Option } from "effect"
import { describe, expect, it } from "vitest"
import { contributionIntentsOver, emptyIntentMaps } from "../../src/adapters/memory/MemoryContributionIntents.js"
import { creditMarks } from "../../src/app/Contributions.js"
import { ContributionIntents } from "../../src/ports/ContributionIntents.js"
import { StorageError } from "../../src/ports/StorageError.js"
import { intent } from "../ports/ContributionIntents.contract.js"

describe("credit marks", () => {
  it("record the credit in the store", () => {
    const store = contributionIntentsOver(emptyIntentMaps())
    const marks = creditMarks(store)
    expect(Effect.runSync(store.reserve(intent("a"), 0))).toBe("reserved")
    Effect.runSync(marks.mark("a", 12))
    expect(Option.getOrThrow(Effect.runSync(store.get("a"))).creditIndex).toBe(12)
    expect(marks.unmarked("a")).toBeUndefined()
  })

  it("succeed when the store fails, and the process still knows the intent was credited", () => {
    const working = contributionIntentsOver(emptyIntentMaps())
    let failing = true
    const store = ContributionIntents.of({
      ...working,
      credited: (id, index) => failing ? Effect.fail(new StorageError({ operation: "write", detail: "disk full" })) : working.credited(id, index)
    })
    const marks = creditMarks(store)
    Effect.runSync(store.reserve(intent("a"), 0))
    const exit = Effect.runSyncExit(marks.mark("a", 12))
    expect(exit._tag).toBe("Success")
    expect(Option.getOrThrow(Effect.runSync(store.get("a"))).creditIndex).toBeNull()
    expect(marks.unmarked("a")).toBe(12)
    // Once a mark succeeds, the store holds it and the process forgets its own copy.
    failing = false
    Effect.runSync(marks.mark("a", 12))
    expect(marks.unmarked("a")).toBeUndefined()
    expect(Option.getOrThrow(Effect.runSync(store.get("a"))).creditIndex).toBe(12)
  })
})
