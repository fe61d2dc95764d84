import { Effect, Layer } from "effect"
import { makeMemoryProjectionStore } from "../../../src/adapters/memory/MemoryProjectionStore.js"
import { ProjectionStore } from "../../../src/ports/ProjectionStore.js"
import { projectionStoreContract } from "../../ports/ProjectionStore.contract.js"

// One store per `fresh`, the same instance at every open (the contract reopens to check durability).
projectionStoreContract("MemoryProjectionStore", {
  fresh: Effect.sync(() => Layer.succeed(ProjectionStore, makeMemoryProjectionStore()))
})
