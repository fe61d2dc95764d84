// Read cursors in memory (tests; the contract without durability).

import { Effect, Layer } from "effect"
import { ReadCursors } from "../../ports/ReadCursors.js"

export const MemoryReadCursorsLive = Layer.sync(ReadCursors, () => {
  const cursors = new Map<string, number>()
  return {
    get: (kid) => Effect.sync(() => cursors.get(kid) ?? -1),
    advance: (kid, index) => Effect.sync(() => {
      if (index > (cursors.get(kid) ?? -1)) cursors.set(kid, index)
    })
  }
})
