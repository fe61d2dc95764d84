// The views' StateReader (src/app/StateReader.ts) over a projection store a pure test log
// built (slicedDecisions.ts `log.sliced.store`), for tests that compare a view read from
// the store with the same view on the log's whole state. The store already holds every
// leaf (each accepted one is committed to it), so the Projection the reader asks to fold
// first has nothing to fold: its `folded` and `resident` are the store's. Its other views
// (directory, name, ans) belong to Projection's own tests and are not served here.

import { Effect, Layer } from "effect"
import { Projection } from "../../src/app/Projection.js"
import { StateReader } from "../../src/app/StateReader.js"
import { ProjectionStore } from "../../src/ports/ProjectionStore.js"

const notServed = (what: string) => () => Effect.dieMessage(`storeReader serves the StateReader only, not Projection.${what}`)

export const storeReader = (store: typeof ProjectionStore.Service): typeof StateReader.Service =>
  Effect.runSync(Effect.provide(StateReader, StateReader.layer.pipe(
    Layer.provide(Layer.succeed(ProjectionStore, store)),
    Layer.provide(Layer.succeed(Projection, Projection.of({
      folded: store.folded,
      resident: store.resident,
      latestResident: store.resident,
      foldError: Effect.succeed(undefined),
      directory: notServed("directory"),
      name: notServed("name"),
      ans: notServed("ans")
    })))
  )))
