// Secret verifiers in memory (tests; the contract without durability).

import { Effect, Layer } from "effect"
import { GateSecrets } from "../../ports/GateSecrets.js"

export const MemoryGateSecretsLive = Layer.sync(GateSecrets, () => {
  const verifiers = new Map<string, string>()
  const key = (name: string, claimIndex: number) => `${claimIndex} ${name}`
  return {
    put: (name, claimIndex, verifier) => Effect.sync(() => {
      if (verifiers.has(key(name, claimIndex))) return false
      verifiers.set(key(name, claimIndex), verifier)
      return true
    }),
    get: (name, claimIndex) => Effect.sync(() => verifiers.get(key(name, claimIndex))),
    remove: (name, claimIndex) => Effect.sync(() => void verifiers.delete(key(name, claimIndex)))
  }
})
