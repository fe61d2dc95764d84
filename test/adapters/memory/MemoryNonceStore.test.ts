import { Effect } from "effect"
import { MemoryNonceStoreLive } from "../../../src/adapters/memory/MemoryNonceStore.js"
import { nonceStoreContract } from "../../ports/NonceStore.contract.js"

// The memory store files a pair under the minute after its until and drops whole minutes
// once the clock reaches them: a pair is surely gone at the first minute boundary past until.
nonceStoreContract("MemoryNonceStore", {
  fresh: Effect.succeed(MemoryNonceStoreLive),
  forgottenBy: (until) => (Math.floor(until / 60) + 1) * 60,
  propertyRuns: 300
})
