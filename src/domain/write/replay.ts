// Replaying a leaf as its sequencer had to decide it: what an auditor checks of every leaf
// of the log (docs/protocol.md section 5, "Auditing the log"). Folding a leaf
// (applyEntry.ts foldEntry) takes the log's word for it: a second claim of a taken name, a
// freeze signed by a stranger or an envelope whose signature does not verify would fold like
// any other leaf. The replay runs every check the service runs before it writes a leaf, on
// the leaf's own envelope and the state before it, with the very functions the sequencer
// calls:
//   1. the leaf decodes, at its index (foldEntry's decodeLeaf);
//   2. the envelope's own checks (submission.ts checkEnvelope): this log's origin, a known
//      type, a key not of small order, a leaf that fits, the signature of its kid, a valid
//      payload; any signer, since who may sign a type is decide's rule;
//   3. the envelope was signed before it was logged: `created` no later than `logged` plus
//      twice the clock skew a signature may have (admission judged `created` by the clock of
//      the node that took the request, `logged` is the sequencer's; a leaf logged before its
//      writer signed it, beyond both clocks' tolerance, was made up);
//   4. decide (decide.ts) accepts it at `logged`: the signer's rights (owner, policy key,
//      freeze, suspension), the key's chain (seq, prev) and the type's own rules;
//   5. the leaf is byte for byte the leaf decide writes (index, `logged` never going back,
//      the envelope's JCS).
// What the checks cannot see is what no leaf holds: the HTTP signature's nonce and the
// request's body. The body a rule reads (a policy citing an order reads its document) is
// asked for (`needs_body`); when the service does not serve it (or serves other bytes),
// every other check still runs, on a stand-in that cites the order, and a leaf that passes
// them is `unchecked`, naming the one check left undone.
//
// A refused leaf is reported and then folded as the log has it, so that every later leaf is
// still checked against the state the log implies (one bad leaf does not hide the next).

import * as Either from "effect/Either"
import { decodeU64, encodeU64 } from "../encoding.js"
import { type Envelope } from "../envelope/envelope.js"
import { MAX_CLOCK_SKEW_SECONDS } from "../http/aicsProfile.js"
import { bodyRuleOf, type Signer } from "../entries/entryRule.js"
import { equal, utf8 } from "../bytes.js"
import { applyEntry, decodeLeaf } from "./applyEntry.js"
import { decide } from "./decide.js"
import type { LogState } from "./logState.js"
import { checkBody, checkEnvelope, type Submission, type SubmissionContext } from "./submission.js"

/** Every signer: a leaf may be any party's; decide says which party a type needs. */
const ANY_SIGNER: ReadonlyArray<Signer> = ["agent", "owner", "policy"]

export type ReplayOutcome =
  /** The sequencer had to write this leaf: every check passed. */
  | { readonly kind: "accepted"; readonly state: LogState }
  /** A rule the leaf breaks; `state` has the leaf folded as the log has it. */
  | { readonly kind: "refused"; readonly state: LogState; readonly problem: string }
  /** The checks passed but for one that reads a body the service no longer serves. */
  | { readonly kind: "unchecked"; readonly state: LogState; readonly note: string }
  /** A rule of this leaf reads the body with this U64 digest: replay again with it (or null if unavailable). */
  | { readonly kind: "needs_body"; readonly digest: string }

/** The leaf at state.size could not even be decoded: nothing can be folded past it. */
export interface Unfoldable {
  readonly kind: "unfoldable"
  readonly problem: string
}

/**
 * The digest of the body a rule of this payload reads, if any: a policy citing an order reads
 * its document (governance/policyTiming.ts). Every other rule decides on the leaf alone.
 */
const bodyTheRulesRead = (envelope: Envelope): string | undefined => {
  const payload = envelope.payload as Record<string, unknown>
  return envelope.type === "policy" && payload["order_hash"] !== undefined && typeof payload["document_hash"] === "string"
    ? payload["document_hash"]
    : undefined
}

/**
 * What stands for a policy's document the service does not serve, so that every other rule
 * is still run on the leaf: a text that cites the order (the one thing the rule reads of it).
 */
const citingStandIn = (envelope: Envelope, digest: string): NonNullable<Submission["body"]> => ({
  digest: decodeU64(digest) ?? new Uint8Array(32),
  bytes: utf8(String((envelope.payload as Record<string, unknown>)["order_hash"]))
})

/**
 * Replays the leaf `entryBytes` at index state.size (see the steps above). `body`: undefined
 * when not fetched yet, null when the service does not serve it, else its bytes.
 */
export const replayLeaf = (
  state: LogState,
  entryBytes: Uint8Array,
  ctx: SubmissionContext,
  body?: Uint8Array | null
): ReplayOutcome | Unfoldable => {
  const decoded = decodeLeaf(ctx.sha256, entryBytes, state.size)
  if (Either.isLeft(decoded)) return { kind: "unfoldable", problem: `entry ${decoded.left.index} cannot be folded: ${decoded.left.reason}` }
  const entry = decoded.right
  const folded = () => applyEntry(state, entry)
  const refused = (problem: string): ReplayOutcome => ({ kind: "refused", state: folded(), problem: `entry ${entry.index} (${entry.rule.type}): ${problem}` })

  const checked = checkEnvelope(entry.envelope, ctx, ANY_SIGNER)
  if (Either.isLeft(checked)) return refused(`${checked.left.code}: ${checked.left.detail}`)
  if (entry.envelope.created > Math.floor(entry.logged / 1000) + 2 * MAX_CLOCK_SKEW_SECONDS) {
    return refused(`logged at ${entry.logged} ms, before its envelope was signed (created ${entry.envelope.created})`)
  }

  const read = bodyTheRulesRead(entry.envelope)
  if (read !== undefined && body === undefined) return { kind: "needs_body", digest: read }
  let submissionBody: Submission["body"] = null
  let undone: string | undefined
  if (read !== undefined) {
    const given = body === null || body === undefined
      ? undefined
      : checkBody(entry.rule, entry.payload as Record<string, unknown>, encodeU64(body), ctx.sha256)
    if (given !== undefined && Either.isRight(given)) submissionBody = given.right
    else {
      undone = given === undefined
        ? `its rules read the body ${read}, which the service does not serve: the order's citation is not checked`
        : `the body served is not the one it names (${given.left.detail}): the order's citation is not checked`
      submissionBody = citingStandIn(entry.envelope, read)
    }
  }
  // Declared sizes are checked with or without the bytes: a size over the type's limit was never writable.
  const spec = bodyRuleOf(entry.rule, entry.payload)
  const size = (entry.payload as Record<string, unknown>)["size"]
  if ((spec.kind === "text" || spec.kind === "ciphertext") && typeof size === "number" && size > spec.maxBytes) {
    return refused(`body_too_large: a ${entry.rule.type} body is at most ${spec.maxBytes} bytes, the payload says ${size}`)
  }

  const decision = decide(state, { ...checked.right, body: submissionBody }, entry.logged)
  if (Either.isLeft(decision)) return refused(`${decision.left.code}: ${decision.left.detail}`)
  if (decision.right.logged !== entry.logged) {
    return refused(`logged at ${entry.logged} ms, before the leaf ahead of it (${decision.right.logged} ms)`)
  }
  if (!equal(decision.right.entryBytes, entryBytes)) return refused("the leaf's bytes are not the leaf decide writes for its envelope")
  return undone === undefined
    ? { kind: "accepted", state: decision.right.state }
    : { kind: "unchecked", state: decision.right.state, note: `entry ${entry.index} (${entry.rule.type}): ${undone}` }
}
