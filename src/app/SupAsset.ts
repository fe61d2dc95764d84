// The SUP asset descriptor served byte for byte at /v2/sup/asset (docs/spec/service.md "SUP"), and its
// hash, the `asset_hash` the card and contribution intents name. The operator's file
// (adapters/fs/SupAssetFile.ts, AICS_SUP_ASSET_FILE) or the built-in descriptor
// (domain/sup/asset.ts), chosen in main.ts. Fixed for the life of the process.

import { Context, Effect, Layer } from "effect"
import { encodeU64 } from "../domain/encoding.js"
import { defaultAssetDescriptor } from "../domain/sup/asset.js"
import { Crypto } from "../ports/Crypto.js"
import { Charter } from "./Charter.js"

export interface SupAssetDescriptor {
  /** The descriptor, exactly as served. */
  readonly bytes: Uint8Array
  /** U64 of its SHA-256: `asset_hash`. */
  readonly hash: string
}

export class SupAsset extends Context.Tag("aics/SupAsset")<SupAsset, SupAssetDescriptor>() {
  static readonly describe = (bytes: Uint8Array, sha256: (b: Uint8Array) => Uint8Array): SupAssetDescriptor =>
    ({ bytes, hash: encodeU64(sha256(bytes)) })

  /** The built-in descriptor of this instance (origin and domain from leaf 0). */
  static readonly builtIn = Layer.effect(SupAsset, Effect.gen(function*() {
    const { terms } = yield* Charter
    const crypto = yield* Crypto
    return SupAsset.describe(defaultAssetDescriptor(terms), crypto.sha256)
  }))
}
