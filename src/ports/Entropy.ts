// Randomness, for new keys and envelope nonces. A port so that the domain stays
// deterministic and tests can make keys from fixed seeds.

import { Context, Effect } from "effect"

export class Entropy extends Context.Tag("aics/Entropy")<Entropy, {
  readonly randomBytes: (length: number) => Effect.Effect<Uint8Array>
}>() {}
