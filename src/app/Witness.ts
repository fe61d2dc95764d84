// This service as a witness (C2SP tlog-witness, tlog-cosignature): POST /add-checkpoint for
// the logs of AICS_WITNESS_LOGS. The domain decides (domain/witness/addCheckpoint.ts) on the
// request and the last checkpoint cosigned for the origin; then, step by step:
//   1. the new checkpoint is recorded by a compare-and-swap from the size the decision
//      checked (WitnessState.advance): of two concurrent requests from one size only one
//      advances, and the other is answered 409 with the size now stored, as if it came later;
//   2. only once the record is durable is the checkpoint cosigned and the line answered.
// A refused request whose signature verified (a stale size, a fork, a bad proof) is logged
// with its note: it may be the evidence of a log that shows two histories.

import { Context, Effect, Either, Layer } from "effect"
import { cosignatureLine, cosignedMessage, formatCosignerKey, makeCosignerKey, type CosignerKey } from "../domain/note/cosignature.js"
import { parseVerifierKey } from "../domain/note/verifierKey.js"
import { makeTreeHasher } from "../domain/tlog/hasher.js"
import { decideAddCheckpoint, parseAddCheckpointRequest, type WitnessedLog } from "../domain/witness/addCheckpoint.js"
import { Clock } from "../ports/Clock.js"
import { Crypto } from "../ports/Crypto.js"
import type { StorageError } from "../ports/StorageError.js"
import { WitnessSigner } from "../ports/WitnessSigner.js"
import { WitnessState } from "../ports/WitnessState.js"
import { ServiceConfig } from "./ServiceConfig.js"
import { noWitnessing } from "./witnessSettings.js"

export type WitnessAnswer =
  | { readonly status: 200; readonly lines: string }
  | { readonly status: 400 | 403 | 404 | 409 | 422; readonly reason: string; readonly knownSize?: number }

export class Witness extends Context.Tag("aics/Witness")<Witness, {
  /** The witness's cosignature key (type 0x04) and its verifier key string (witness.vkey). */
  readonly key: CosignerKey
  readonly vkey: string
  /** The logs it witnesses. */
  readonly logs: ReadonlyArray<WitnessedLog>
  /** One add-checkpoint request body, answered as the spec says. */
  readonly addCheckpoint: (body: Uint8Array) => Effect.Effect<WitnessAnswer, StorageError>
}>() {
  static readonly layer = Layer.effect(Witness, Effect.gen(function*() {
    const config = yield* ServiceConfig
    const crypto = yield* Crypto
    const clock = yield* Clock
    const state = yield* WitnessState
    const signer = yield* WitnessSigner
    const settings = config.witnessing ?? noWitnessing(config.domain)
    const hasher = makeTreeHasher(crypto.sha256)

    const logs: Array<WitnessedLog> = []
    for (const log of settings.logs) {
      const key = parseVerifierKey(crypto.sha256, log.vkey)
      if (key === undefined) return yield* Effect.dieMessage(`AICS_WITNESS_LOGS: ${log.vkey} is not an Ed25519 verifier key whose key ID matches`)
      logs.push({ origin: log.origin, key })
    }
    const key = makeCosignerKey(crypto.sha256, settings.name, signer.publicKey)

    const addCheckpoint = (body: Uint8Array) =>
      Effect.gen(function*() {
        const parsed = parseAddCheckpointRequest(body)
        if (Either.isLeft(parsed)) return { status: 400, reason: parsed.left } as const
        const request = parsed.right
        // The state of the request's origin, read before the decision (which names it).
        const origin = new TextDecoder().decode(request.note.subarray(0, Math.max(0, request.note.indexOf(0x0a))))
        const known = logs.some((l) => l.origin === origin) ? yield* state.read(origin) : undefined
        const outcome = decideAddCheckpoint(request, logs, () => known, hasher, crypto.ed25519)
        if (outcome._tag === "Refused") {
          if (outcome.status === 409 || outcome.status === 422) {
            yield* Effect.logWarning(`witness: refused a checkpoint of ${origin} (${outcome.status}: ${outcome.reason})`, new TextDecoder().decode(request.note))
          }
          return outcome.knownSize === undefined
            ? { status: outcome.status, reason: outcome.reason }
            : { status: outcome.status, reason: outcome.reason, knownSize: outcome.knownSize }
        }
        const { checkpoint } = outcome
        const advanced = yield* state.advance(checkpoint.origin, request.oldSize, { size: checkpoint.size, rootHash: checkpoint.rootHash, note: request.note })
        if (!advanced) {
          const now = (yield* state.read(checkpoint.origin))?.size ?? 0
          return { status: 409, reason: `the last cosigned size is ${now}`, knownSize: now } as const
        }
        const timestamp = Math.floor((yield* clock.nowMillis) / 1000)
        const signature = yield* signer.sign(cosignedMessage(outcome.text, timestamp))
        return { status: 200, lines: cosignatureLine(key, timestamp, signature) } as const
      })

    return { key, vkey: formatCosignerKey(key), logs, addCheckpoint }
  }))
}
