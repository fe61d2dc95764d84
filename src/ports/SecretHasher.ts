// The slow salted hash of a secret-bound name's secret (docs/protocol.md 17.5). A port: the
// hash is deliberately expensive and runs off the event loop, and a test may make it cheap.

import { Context, type Effect } from "effect"

export class SecretHasher extends Context.Tag("aics/SecretHasher")<SecretHasher, {
  /** A verifier of the secret, with its own random salt and parameters. */
  readonly hash: (secret: string) => Effect.Effect<string>
  /** Whether the secret matches the verifier (constant time in the secret); false for a malformed verifier. */
  readonly verify: (secret: string, verifier: string) => Effect.Effect<boolean>
}>() {}
