// The operator's SUP asset descriptor (AICS_SUP_ASSET_FILE): read once at start and served
// byte for byte. It must be JSON (strict I-JSON, like everything signed or hashed as
// JSON here); a file that is missing or not JSON stops the start with a message naming it.

import { readFile } from "node:fs/promises"
import { Data, Effect, Either, Layer } from "effect"
import { SupAsset } from "../../app/SupAsset.js"
import { fromUtf8 } from "../../domain/bytes.js"
import { parseStrictJson } from "../../domain/envelope/strictJson.js"
import { Crypto } from "../../ports/Crypto.js"

export class SupAssetFileInvalid extends Data.TaggedError("SupAssetFileInvalid")<{ readonly message: string }> {}

export const SupAssetFileLive = (path: string) =>
  Layer.effect(SupAsset, Effect.gen(function*() {
    const crypto = yield* Crypto
    const bytes = yield* Effect.tryPromise({
      try: () => readFile(path),
      catch: (e) => new SupAssetFileInvalid({ message: `AICS_SUP_ASSET_FILE ${path} cannot be read: ${String(e)}` })
    })
    const text = yield* Effect.try({
      try: () => fromUtf8(bytes),
      catch: () => new SupAssetFileInvalid({ message: `AICS_SUP_ASSET_FILE ${path} is not UTF-8` })
    })
    const parsed = parseStrictJson(text)
    if (Either.isLeft(parsed)) {
      return yield* new SupAssetFileInvalid({ message: `AICS_SUP_ASSET_FILE ${path} is not JSON: ${parsed.left}` })
    }
    return SupAsset.describe(new Uint8Array(bytes), crypto.sha256)
  }))
