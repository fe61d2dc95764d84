// The service's own leaves (src/app/PolicyWrites.ts): a diverged log refuses them as it
// refuses /v2/entries, so a secret-bound name's claim, post or upgrade through the text
// gate cannot slip past the health check.

import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { nodeCrypto, NodeCryptoLive } from "../../src/adapters/crypto/nodeCrypto.js"
import { NodeEntropyLive } from "../../src/adapters/crypto/nodeEntropy.js"
import { MemoryLogStoreLive } from "../../src/adapters/memory/MemoryLogStore.js"
import { MemoryProjectionStoreLive } from "../../src/adapters/memory/MemoryProjectionStore.js"
import { LogHealth } from "../../src/app/LogHealth.js"
import { PolicyWrites } from "../../src/app/PolicyWrites.js"
import { Projection } from "../../src/app/Projection.js"
import { Sequencer } from "../../src/app/Sequencer.js"
import { ServiceConfig, type ServiceSettings } from "../../src/app/ServiceConfig.js"
import { StateReader } from "../../src/app/StateReader.js"
import { emptyResident } from "../../src/domain/write/stateSlice.js"
import { refuse } from "../../src/domain/write/refusal.js"
import { Clock } from "../../src/ports/Clock.js"
import { Signer } from "../../src/ports/Signer.js"
import { ORIGIN } from "../support/identityAgents.js"

const settings: ServiceSettings = {
  dataDir: "/nonexistent", host: "127.0.0.1", port: 0, domain: "identity.test", origin: ORIGIN,
  mmdSeconds: 1, tileCheckSeconds: 30, publicUrl: "http://127.0.0.1:0", tileMirrors: [],
  authorities: ["127.0.0.1:0"], databaseUrl: undefined, databasePool: 1, checkWorkers: 0, ciphertextBudgetBytes: 1 << 30, ownerKid: undefined,
  noticePeriodSeconds: 0, contributions: { networks: [], evm: [], ledger: "/nonexistent", intentSeconds: 3600, claimSeconds: 0, allowHttp: false }
}

const seed = nodeCrypto.sha256(new TextEncoder().encode("policy writes test"))
const key = { publicKey: nodeCrypto.ed25519.publicKey(seed), sign: (message: Uint8Array) => Effect.sync(() => nodeCrypto.ed25519.sign(seed, message)) }

describe("PolicyWrites", () => {
  it("refuses log_unavailable while the log has diverged, without reaching the sequencer", async () => {
    let submitted = 0
    const sequencer = Layer.succeed(Sequencer, Sequencer.of({
      point: Effect.succeed({ folded: 0, projected: 0, resident: emptyResident }),
      queued: Effect.succeed(0),
      betweenBatches: () => Effect.succeedNone,
      health: Effect.succeed({ storageFailure: undefined, withoutSequencerSeconds: undefined, awaitingWitnesses: undefined }),
      submit: () => Effect.sync(() => ({ _tag: "Refused" as const, refusal: refuse("not_policy", "the fake sequencer decides nothing"), at: ++submitted }))
    }))
    // The policy chain's head is read from a projection of the (empty) log.
    const state = StateReader.layer.pipe(Layer.provideMerge(Projection.layer), Layer.provideMerge(Layer.mergeAll(MemoryProjectionStoreLive, MemoryLogStoreLive, Clock.system)))
    const layer = PolicyWrites.layer.pipe(
      Layer.provideMerge(state),
      Layer.provideMerge(Layer.mergeAll(sequencer, LogHealth.layer, Layer.succeed(Signer, { log: key, policy: key }), NodeEntropyLive, ServiceConfig.layer(settings))),
      Layer.provideMerge(NodeCryptoLive)
    )
    const outcomes = await Effect.runPromise(Effect.gen(function*() {
      const writes = yield* PolicyWrites
      const health = yield* LogHealth
      const payload = { name: "carol-secret", as: "carol-secret" }
      const before = yield* writes.write("claim", payload, Date.now())
      yield* health.markDiverged("the tiles disagree with the log")
      const after = yield* writes.write("claim", payload, Date.now())
      return [before.outcome, after.outcome]
    }).pipe(Effect.provide(layer)))
    expect(outcomes[0]).toMatchObject({ _tag: "Refused", refusal: { code: "not_policy" } })
    expect(outcomes[1]).toMatchObject({ _tag: "Refused", refusal: { code: "log_unavailable", detail: "the tiles disagree with the log" } })
    expect(submitted).toBe(1)
  })
})
