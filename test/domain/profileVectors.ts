// Loads test/vectors/profile/vectors.json and the tlog vector key, so each test reads
// the worked examples of docs/spec/profile.md section 9 from one place, typed.

import { readFileSync } from "node:fs"
import type { Envelope } from "../../src/domain/envelope/envelope.js"

const VECTORS = new URL("../vectors/", import.meta.url)

export interface ProfileVectors {
  readonly agent: {
    readonly ed25519_seed_hex: string
    readonly public_key_u64: string
    readonly kid: string
  }
  readonly origin: string
  readonly envelopes: ReadonlyArray<{
    readonly signing_input: string
    readonly envelope: Envelope
    readonly envelope_jcs: string
  }>
  readonly leaf: { readonly entry_bytes: string; readonly leaf_hash_b64: string; readonly leaf_hash_u64: string }
  readonly log_key: { readonly seed_hex: string; readonly vkey: string }
  readonly receipt: { readonly text: string; readonly note: string; readonly receipt_note_u64: string }
  readonly refusal: { readonly text: string; readonly note: string }
}

export const profileVectors: ProfileVectors = JSON.parse(
  readFileSync(new URL("profile/vectors.json", VECTORS), "utf8")
)

/** The directory of the Go-made tlog vectors. */
export const tlogVectors = new URL("tlog/", VECTORS)

export const readTlogVector = (path: string): Uint8Array => new Uint8Array(readFileSync(new URL(path, tlogVectors)))
