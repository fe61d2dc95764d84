// How tests take the sequencing lease of a deployment for the body store's fenced removes
// (src/ports/LeaseFence.ts): through the deployment's own Coordination, as the Sequencer
// does, so the fence is one a real holder would have.

import { Context, Effect, Layer, type Scope } from "effect"
import { MemoryCoordinationLive } from "../../src/adapters/memory/MemoryCoordination.js"
import { Coordination } from "../../src/ports/Coordination.js"
import type { LeaseFence } from "../../src/ports/LeaseFence.js"

/** Builds the coordination and takes its lease, both held until the scope closes; answers the fence. */
export const leaseFenceOf = <E>(coordination: Layer.Layer<Coordination, E>): Effect.Effect<LeaseFence, unknown, Scope.Scope> =>
  Effect.gen(function*() {
    const port = Context.get(yield* Layer.build(coordination), Coordination)
    return (yield* port.lease()).fence
  })

/** The lease of a deployment of one process (memory and file stores): MemoryCoordination's. */
export const soleProcessLease: Effect.Effect<LeaseFence, unknown, Scope.Scope> = leaseFenceOf(MemoryCoordinationLive())
