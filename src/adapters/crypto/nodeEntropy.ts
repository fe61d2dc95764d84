// The operating system's randomness (node:crypto randomBytes) for the Entropy port.

import { randomBytes } from "node:crypto"
import { Effect, Layer } from "effect"
import { Entropy } from "../../ports/Entropy.js"

export const NodeEntropyLive = Layer.succeed(Entropy, {
  randomBytes: (length) => Effect.sync(() => new Uint8Array(randomBytes(length)))
})
