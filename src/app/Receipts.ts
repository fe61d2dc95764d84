// Log-signed receipts (docs/spec/profile.md section 4): a note by the log key for every answer of
// POST /v2/entries, accepted (index, leaf hash, logged) or refused (code, envelope hash,
// time). The agent keeps it as evidence: an accepted receipt that the log later lacks, or
// a refusal the log contradicts, proves misbehaviour with the log's own signature.

import { Context, Effect, Layer } from "effect"
import { formatReceipt, formatRefusal } from "../domain/note/receipt.js"
import type { Hash } from "../domain/tlog/hasher.js"
import { LogNotary } from "./LogNotary.js"
import { ServiceConfig } from "./ServiceConfig.js"

export class Receipts extends Context.Tag("aics/Receipts")<Receipts, {
  readonly accepted: (index: number, leafHash: Hash, logged: number) => Effect.Effect<Uint8Array>
  readonly refused: (code: string, envelopeHash: Hash, at: number) => Effect.Effect<Uint8Array>
}>() {
  static readonly layer = Layer.effect(Receipts, Effect.gen(function*() {
    const { origin } = yield* ServiceConfig
    const notary = yield* LogNotary
    return {
      accepted: (index, leafHash, logged) => notary.sign(formatReceipt({ origin, index, leafHash, logged })),
      refused: (code, envelopeHash, at) => notary.sign(formatRefusal({ origin, code, envelopeHash, at }))
    }
  }))
}
