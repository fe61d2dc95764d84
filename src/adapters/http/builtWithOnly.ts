// Builds a layer in a context that holds only the services it names, taken from the
// context around it.
//
// Why: @effect/platform copies a context into every request. The server runs each request
// in the context it was started in, plus the request (a copy of that context's map), the
// router copies the result, and each HttpApi group merges the context it was built in with
// the request's (another copy of both). The composition root hands every layer all ~50
// services of the process, so a write paid for several copies of a 57-entry map: a quarter
// of the bytes the event loop allocated per request (bench/write, a sampling allocation
// profile). Built with only the services it uses, a group's context is a handful of
// entries, and so is the server's.
//
// The type keeps the list honest: the layer may require nothing but the services named, so
// a handler that starts using another service does not compile until it is named here.
// The layer is built in the surrounding memo map, so the layers it shares with the rest of
// the server (HttpApiBuilder's router, which every group registers its routes in) are the
// same instances.

import { Context, Effect, Layer } from "effect"

export const builtWithOnly = <const Tags extends ReadonlyArray<Context.Tag<any, any>>>(...tags: Tags) =>
<ROut, E>(
  layer: Layer.Layer<ROut, E, Context.Tag.Identifier<Tags[number]>>
): Layer.Layer<ROut, E, Context.Tag.Identifier<Tags[number]>> =>
  Layer.scopedContext(Effect.gen(function*() {
    const only = Context.pick(...tags)(yield* Effect.context<Context.Tag.Identifier<Tags[number]>>())
    const memoMap = yield* Layer.CurrentMemoMap
    const scope = yield* Effect.scope
    return yield* Effect.mapInputContext(Layer.buildWithMemoMap(layer, memoMap, scope), (_: Context.Context<never>) => only)
  }))
