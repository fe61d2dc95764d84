// Signs note texts with the log key (C2SP signed-note): checkpoints and receipts. The key
// name is the origin, so one verifier key (log.vkey) checks both.

import { Context, Effect, Either, Layer } from "effect"
import { utf8 } from "../domain/bytes.js"
import { formatNote } from "../domain/note/signedNote.js"
import { formatVerifierKey, makeVerifierKey, type VerifierKey } from "../domain/note/verifierKey.js"
import { Crypto } from "../ports/Crypto.js"
import { Signer } from "../ports/Signer.js"
import { ServiceConfig } from "./ServiceConfig.js"

export class LogNotary extends Context.Tag("aics/LogNotary")<LogNotary, {
  readonly verifierKey: VerifierKey
  /** `<origin>+<key hash>+<B64(0x01 || public key)>`, as written to log.vkey. */
  readonly vkey: string
  /** The signed note of the text (which must end in a newline), as bytes. */
  readonly sign: (text: string) => Effect.Effect<Uint8Array>
}>() {
  static readonly layer = Layer.effect(LogNotary, Effect.gen(function*() {
    const { origin } = yield* ServiceConfig
    const { log } = yield* Signer
    const crypto = yield* Crypto
    const verifierKey = makeVerifierKey(crypto.sha256, origin, log.publicKey)
    const sign = (text: string) =>
      Effect.gen(function*() {
        const signature = yield* log.sign(utf8(text))
        const note = formatNote(text, [{ name: origin, keyHash: verifierKey.keyHash, signature }])
        // The texts signed here are built by this service; a malformed one is a bug.
        if (Either.isLeft(note)) return yield* Effect.die(note.left)
        return utf8(note.right)
      })
    return { verifierKey, vkey: formatVerifierKey(verifierKey), sign }
  }))
}
