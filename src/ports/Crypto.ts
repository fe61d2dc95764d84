// SHA-256 and Ed25519 for everything above the domain. The service is synchronous
// functions, not effects: they are pure computations on the hot path (every leaf, every
// interior node, two signature checks per write), and the domain takes them as arguments.
// Adapters: node:crypto (server, fast) and @noble (portable); a property test keeps them equal.

import { Context } from "effect"
import type { CryptoPrimitives } from "../domain/crypto.js"

export class Crypto extends Context.Tag("aics/Crypto")<Crypto, CryptoPrimitives>() {}
