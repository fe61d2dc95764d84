// The witness key on the filesystem: <data dir>/keys/witness.key (mode 0600, keyFile.ts),
// made at first start like the log key, reused after. Its verifier key is written to
// <data dir>/witness.vkey by WitnessVkeyFileLive for the operator to publish.

import { join } from "node:path"
import { Effect, Layer } from "effect"
import { Witness } from "../../app/Witness.js"
import { utf8 } from "../../domain/bytes.js"
import { Crypto } from "../../ports/Crypto.js"
import { Entropy } from "../../ports/Entropy.js"
import { WitnessSigner } from "../../ports/WitnessSigner.js"
import { ensureFileHolds } from "../fs/atomicFile.js"
import { loadOrCreateKeyFile } from "./keyFile.js"

export const FileWitnessKeyLive = (dataDir: string) =>
  Layer.effect(WitnessSigner, Effect.gen(function*() {
    const crypto = yield* Crypto
    const entropy = yield* Entropy
    const { pair } = yield* loadOrCreateKeyFile(join(dataDir, "keys", "witness.key"), crypto.ed25519, entropy.randomBytes(32))
    return { publicKey: pair.publicKey, sign: (message) => crypto.signInBackground(pair.seed, message) }
  }))

/**
 * Writes <data dir>/witness.vkey (the cosignature verifier key) unless it holds it already,
 * as log.vkey (LogVkeyFile.ts), and logs it.
 */
export const WitnessVkeyFileLive = (dataDir: string) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const { vkey } = yield* Witness
    yield* ensureFileHolds(join(dataDir, "witness.vkey"), utf8(vkey + "\n"), 0o644)
    yield* Effect.log(`Witness verifier key: ${vkey}`).pipe(Effect.annotateLogs({ event: "witness_vkey", vkey }))
  }))
