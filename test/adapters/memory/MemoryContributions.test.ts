// The memory adapters of contributions through their ports' contracts, and the intents
// store's rules over long random histories.

import { Effect } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { contributionIntentsOver, emptyIntentMaps, MemoryContributionIntentsLive } from "../../../src/adapters/memory/MemoryContributionIntents.js"
import { MAX_OPEN_INTENTS, type ContributionIntent } from "../../../src/domain/sup/contributions.js"
import { makeMemoryChain } from "../../../src/adapters/memory/MemoryChainOracle.js"
import { chainOracleContract, watcherDriver } from "../../ports/ChainOracle.contract.js"
import { contributionIntentsContract, intent } from "../../ports/ContributionIntents.contract.js"

contributionIntentsContract("MemoryContributionIntents", { fresh: Effect.succeed(MemoryContributionIntentsLive), durable: false })
chainOracleContract("MemoryChainOracle", {
  fresh: Effect.sync(() => {
    const chain = makeMemoryChain()
    return watcherDriver(chain.layer, chain.record)
  })
})

describe("intents over time (property)", () => {
  it("no two intents that can receive a transfer at the same time share units, and no name holds more than the cap", () => {
    const step = fc.record({
      wait: fc.integer({ min: 0, max: 400 }),
      units: fc.constantFrom("1", "2", "3"),
      name: fc.constantFrom("alice", "bob"),
      seconds: fc.integer({ min: 1, max: 1000 })
    })
    fc.assert(fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
      const store = contributionIntentsOver(emptyIntentMaps())
      const made: Array<ContributionIntent> = []
      let now = 1_767_225_600
      steps.forEach((s, i) => {
        now += s.wait
        const candidate = intent(`i${i}`, { units: s.units, name: s.name, created: now, expires: now + s.seconds, claimUntil: now + s.seconds + 5000 })
        if (Effect.runSync(store.reserve(candidate, now)) === "reserved") made.push(candidate)
      })
      for (const a of made) {
        for (const b of made) {
          if (a === b) continue
          if (a.units === b.units) expect(a.expires < b.created || b.expires < a.created).toBe(true)
        }
        const openTogether = made.filter((b) => b.name === a.name && b.created <= a.created && a.created <= b.expires)
        expect(openTogether.length).toBeLessThanOrEqual(MAX_OPEN_INTENTS)
      }
    }))
  })
})
