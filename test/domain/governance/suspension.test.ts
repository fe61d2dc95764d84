// The suspension rule's refusals of times (src/domain/governance/suspension.ts): an end whose
// `until` is ahead of the leaf's logged time, and a suspension whose `until` has passed, are
// refused with both times and a word on the signer's clock, the usual cause of either.

import { HashMap } from "effect"
import { describe, expect, it } from "vitest"
import { suspensionRefusal } from "../../../src/domain/governance/suspension.js"
import type { LogState } from "../../../src/domain/write/logState.js"

// Neither refusal reads the state: they are decided by the payload and the logged time.
const state = undefined as unknown as LogState
const logged = 1_800_000_000_500

describe("suspensionRefusal", () => {
  it("refuses an end of suspension dated after the log's time, naming the clock", () => {
    const refusal = suspensionRefusal(state, { subject: "mallory", until: 1_800_000_005 }, logged)
    expect(refusal?.code).toBe("payload_invalid")
    expect(refusal?.detail).toBe(
      "an end of suspension needs until at or before now: until 1800000005 is 5 s after the log's time (this leaf's logged time, 1800000000); " +
        "is the signer's clock ahead of the service's? (aics admin unsuspend takes the service's clock)"
    )
  })

  it("refuses a suspension until a time gone by, naming the clock", () => {
    const refusal = suspensionRefusal(state, { subject: "mallory", order: "A".repeat(43), until: 1_799_999_997 }, logged)
    expect(refusal?.code).toBe("payload_invalid")
    expect(refusal?.detail).toMatch(/^until 1799999997 has already passed: the log's time \(this leaf's logged time\) is 1800000000, 3 s later; is the signer's clock behind the service's\?/)
  })

  it("takes an end dated at the log's time, and a suspension until a time ahead of it", () => {
    expect(suspensionRefusal(state, { subject: "mallory", order: "A".repeat(43), until: 1_800_000_001 }, logged)).toBeUndefined()
    // At the logged second: not refused for its time (then for there being nothing to end).
    const ending = suspensionRefusal({ governance: { suspensions: HashMap.empty() } } as unknown as LogState, { subject: "mallory", until: 1_800_000_000 }, logged)
    expect(ending?.code).toBe("not_suspended")
  })
})
