// A submission handed from the process that received it to the one that sequences
// (docs/protocol.md section 14): only the envelope's JCS text and the body cross, as plain
// data. The receiving process ran every stateless check (domain/write/submission.ts); the
// sequencing one takes again what cannot cross (the entry rule, the decoded payload, the
// payload signature check, the hashes) from those bytes, as EntryWrites does with what a
// worker thread answers.

import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { fromUtf8, utf8 } from "../bytes.js"
import { decodeEnvelope } from "../envelope/envelope.js"
import { entryRuleOf } from "../entries/registry.js"
import { payloadSignatureCheck } from "../identity/possession.js"
import { refuse, type Refusal } from "./refusal.js"
import type { Submission, SubmissionContext } from "./submission.js"

export interface RelayedBytes {
  readonly envelopeJcs: string
  readonly body: Uint8Array | null
}

/** The bytes that cross for a submission that passed the stateless checks. */
export const relayedBytes = (submission: Submission): RelayedBytes => ({
  envelopeJcs: submission.envelopeJcs,
  body: submission.body?.bytes ?? null
})

/** The submission again, from its relayed bytes. */
export const submissionFromRelayed = (relayed: RelayedBytes, ctx: Pick<SubmissionContext, "sha256" | "ed25519">): Either.Either<Submission, Refusal> => {
  let raw: unknown
  try {
    raw = JSON.parse(relayed.envelopeJcs)
  } catch {
    return Either.left(refuse("malformed_envelope", "the relayed envelope is not JSON"))
  }
  const envelope = decodeEnvelope(raw)
  if (Either.isLeft(envelope)) return Either.left(refuse("malformed_envelope", envelope.left.message))
  const rule = entryRuleOf(envelope.right.type)
  if (rule === undefined) return Either.left(refuse("unknown_type", `${JSON.stringify(envelope.right.type)} is not an entry type`))
  const payload = Schema.decodeUnknownEither(rule.payload, { onExcessProperty: "error", errors: "all" })(envelope.right.payload)
  if (Either.isLeft(payload)) return Either.left(refuse("payload_invalid", payload.left.message))
  const body = relayed.body === null ? null : { digest: ctx.sha256(relayed.body), bytes: relayed.body }
  return Either.right({
    envelope: envelope.right,
    envelopeJcs: relayed.envelopeJcs,
    envelopeHash: ctx.sha256(utf8(relayed.envelopeJcs)),
    rule,
    payload: payload.right,
    body,
    verify: payloadSignatureCheck(ctx.ed25519)
  })
}

/**
 * The envelope's JCS text inside a leaf's entry bytes ({"envelope":<JCS>,"index":N,
 * "logged":N}, leaf.ts), and the leaf's time: what identifies a relayed submission the log
 * already holds.
 */
export const envelopeOfLeaf = (leaf: Uint8Array): { readonly envelopeJcs: string; readonly logged: number } => {
  const text = fromUtf8(leaf)
  const index = text.lastIndexOf(',"index":')
  const logged = text.lastIndexOf(',"logged":')
  return { envelopeJcs: text.slice('{"envelope":'.length, index), logged: Number(text.slice(logged + ',"logged":'.length, -1)) }
}
