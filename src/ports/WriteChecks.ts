// The stateless checks of a write (app/EntryWrites.ts steps 2 and 4): the AICS signature
// (domain/http/aicsProfile.ts) and the submission (domain/write/submission.ts). They need
// nothing but the request, the clock reading and the service's origin and authorities, and
// they are most of a write's CPU (two Ed25519 verifications, JSON, JCS, schema decoding),
// so they sit behind a port: in process, or on a pool of worker threads
// (adapters/workers/) that runs them alongside the event loop.
//
// Everything here crosses a thread boundary by structured clone, so it is plain data: no
// functions, classes or Either. The replay check between the two steps needs state and
// stays with the caller: a request whose signature is refused spends no nonce, one whose
// signature verifies does, even if its submission is then refused (protocol.md section 8,
// step 3). So the answer carries both results, and the caller spends the nonce in between.
//
// Contract (test/adapters/workers/writeChecks.contract.test.ts): every adapter answers
// exactly what checkAicsSignature and checkSubmission answer, for valid requests and for
// each kind of refusal.

import type { Effect } from "effect"
import { Context } from "effect"
import type { Envelope } from "../domain/envelope/envelope.js"
import type { Refusal } from "../domain/write/refusal.js"
import type { SignatureFacts } from "../domain/write/submission.js"

/** A write request as received; the headers by lower-case name, as Node gives them. */
export interface WriteRequest {
  readonly method: string
  /** The Host header as received; undefined if absent. */
  readonly authority: string | undefined
  readonly scheme?: string
  /** The path without the query. */
  readonly path: string
  /** The query without "?"; may be empty. */
  readonly query: string
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly body: Uint8Array
  /**
   * Signed by its envelope alone (the text gate): the envelope's own signature, under the
   * profile's clock rules, is the signature step (domain/write/submission.ts checkSelfSignature).
   */
  readonly selfSigned?: boolean
  /**
   * The client's address group (docs/protocol.md "Fair admission"), for the per-address write
   * budgets; absent for writes no client address stands behind.
   */
  readonly client?: string
}

/**
 * A submission that passed the stateless checks, without what cannot be cloned: the entry
 * rule, the decoded payload and the payload signature check are taken again from the
 * envelope's type on the caller's side.
 */
export interface CheckedSubmission {
  readonly envelope: Envelope
  /** JCS text of the envelope, auth included. */
  readonly envelopeJcs: string
  readonly envelopeHash: Uint8Array
  /** The body the payload names, checked against its hash and size; null for none. */
  readonly body: { readonly digest: Uint8Array; readonly bytes: Uint8Array } | null
}

export type WriteCheck =
  /** The AICS signature is refused: no nonce is spent. */
  | { readonly _tag: "SignatureRefused"; readonly refusal: Refusal }
  /** The signature verifies; the submission's own checks follow once the nonce is spent. */
  | {
    readonly _tag: "Signed"
    readonly signature: SignatureFacts
    readonly submission:
      | { readonly _tag: "Refused"; readonly refusal: Refusal }
      | { readonly _tag: "Checked"; readonly checked: CheckedSubmission }
  }

export class WriteChecks extends Context.Tag("aics/WriteChecks")<WriteChecks, {
  /** Both stateless checks of the request, at `now` (Unix seconds). */
  readonly check: (request: WriteRequest, now: number) => Effect.Effect<WriteCheck>
}>() {}
