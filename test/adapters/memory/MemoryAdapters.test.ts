import { Effect, Layer } from "effect"
import { NodeCryptoLive } from "../../../src/adapters/crypto/nodeCrypto.js"
import { MemoryBodyStoreLive } from "../../../src/adapters/memory/MemoryBodyStore.js"
import { MemoryLogStoreLive } from "../../../src/adapters/memory/MemoryLogStore.js"
import { MemoryTileSinkLive } from "../../../src/adapters/memory/MemoryTileSink.js"
import { bodyStoreContract } from "../../ports/BodyStore.contract.js"
import { logStoreContract } from "../../ports/LogStore.contract.js"
import { tileSinkContract } from "../../ports/TileSink.contract.js"
import { soleProcessLease } from "../../support/leases.js"

// Each build of a memory layer is a new, empty store, so none of them is "durable".
logStoreContract("MemoryLogStore", {
  fresh: Effect.succeed({ open: MemoryLogStoreLive.pipe(Layer.provide(NodeCryptoLive)), lease: soleProcessLease }),
  durable: false,
  propertyRuns: 100
})
tileSinkContract("MemoryTileSink", { fresh: Effect.succeed(MemoryTileSinkLive), durable: false })
bodyStoreContract("MemoryBodyStore", {
  fresh: Effect.succeed({ open: MemoryBodyStoreLive.pipe(Layer.provide(NodeCryptoLive)), lease: soleProcessLease }),
  durable: false
})
