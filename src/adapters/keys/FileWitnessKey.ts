// The witness key's verifier key on the filesystem. The key itself is <data dir>/keys/witness.key
// (mode 0600), made by the start that creates the log and by no other, with the log and policy
// keys (FileKeys.ts: a start on a log that has leaf 0 without it is refused). Its verifier key
// is written to <data dir>/witness.vkey for the operator to publish.

import { join } from "node:path"
import { Effect, Layer } from "effect"
import { Witness } from "../../app/Witness.js"
import { utf8 } from "../../domain/bytes.js"
import { ensureFileHolds } from "../fs/atomicFile.js"

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
