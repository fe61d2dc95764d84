// Applying an accepted entry to the state, and folding a log from scratch (docs/protocol.md
// 10 and 11: what each type's leaf establishes; the types' own rules are
// src/domain/entries/types/*.ts, each naming its section). The sequencer
// uses applyEntry after deciding; a restart folds the leaf bytes with foldEntry, taking its
// own log's word for each leaf, and an audit replays each leaf (replay.ts: decide again,
// then this same apply). All end in the same function, so the incremental state and the
// fold of the log are equal by construction (and a property test checks it).

import * as Chunk from "effect/Chunk"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Schema from "effect/Schema"
import { fromUtf8 } from "../bytes.js"
import type { Sha256 } from "../crypto.js"
import { decodeEnvelope, type Envelope } from "../envelope/envelope.js"
import { envelopeHash } from "../envelope/hash.js"
import { bodyRuleOf, signerOf, type EntryRule } from "../entries/entryRule.js"
import { entryRuleOf } from "../entries/registry.js"
import { bodyReference } from "../bodyReference.js"
import { expiresUnder } from "../bodyStatus.js"
import { boundNameOf } from "../identity/bindings.js"
import { activityOf, recordActivity } from "../telemetry/activity.js"
import { appendAt, keyRecordOf, type LogState } from "./logState.js"

export interface AcceptedEntry {
  readonly rule: EntryRule<any>
  readonly envelope: Envelope
  readonly payload: unknown
  /** SHA-256(JCS(envelope)). */
  readonly envelopeHash: Uint8Array
  readonly index: number
  readonly logged: number
}

export const applyEntry = (state: LogState, entry: AcceptedEntry): LogState => {
  const body = bodyRuleOf(entry.rule, entry.payload)
  const key = keyRecordOf(state, entry.envelope.kid)
  const chained: LogState = {
    ...namingBody(state, entry, body.kind === "none" ? undefined : (entry.payload as Record<string, string>)[body.hashMember]!),
    size: entry.index + 1,
    lastLogged: Math.max(state.lastLogged, entry.logged),
    chains: HashMap.set(state.chains, entry.envelope.kid, {
      seq: entry.envelope.seq,
      hash: entry.envelopeHash,
      index: entry.index
    }),
    // The key view lists the key's whole chain.
    keys: HashMap.set(state.keys, key.kid, { ...key, envelopes: Chunk.append(key.envelopes, entry.index) }),
    // Every leaf that names an off-leaf body, and the body's digest (what a tombstone hides).
    bodies: body.kind === "none"
      ? state.bodies
      : HashMap.set(state.bodies, entry.index, (entry.payload as Record<string, string>)[body.hashMember]!)
  }
  const applied = entry.rule.apply(chained, {
    envelope: entry.envelope,
    payload: entry.payload,
    index: entry.index,
    logged: entry.logged
  })
  // Who is online (telemetry/activity.ts): the agent's latest public leaf, the agent being
  // the name the signer acts as (after this leaf, so a claim counts for its name).
  const payload = entry.payload as { readonly as?: unknown; readonly name?: unknown } | null
  const actor = activityOf(
    {
      type: entry.rule.type,
      signer: signerOf(entry.rule, entry.payload),
      kid: entry.envelope.kid,
      as: typeof payload?.as === "string" ? payload.as : undefined,
      rotates: entry.rule.type === "key.rotate" && typeof payload?.name === "string" ? payload.name : undefined
    },
    (kid) => boundNameOf(applied, kid)
  )
  return actor === undefined
    ? applied
    : { ...applied, activity: recordActivity(applied.activity, { ...actor, index: entry.index, logged: entry.logged, type: entry.rule.type }) }
}

/**
 * The state with the entry's off-leaf body (U64 `digest`, when it names one) noted for
 * bodies fetched by digest and, for ciphertext, for the budget and retention: the entries
 * naming each digest, and the ciphertext in log order with the bytes before it.
 */
const namingBody = (state: LogState, entry: AcceptedEntry, digest: string | undefined): LogState => {
  if (digest === undefined) return state
  const named = { index: entry.index, type: entry.rule.type, logged: entry.logged }
  const withNaming = { ...state, bodyNaming: appendAt(state.bodyNaming, digest, named) }
  const expiresAt = state.service === undefined ? null : expiresUnder(named, state.service.retentionDays)
  if (expiresAt === null) return withNaming
  const size = bodyReference(entry.payload as Record<string, unknown>)?.size ?? 0
  return {
    ...withNaming,
    ciphertexts: Chunk.append(state.ciphertexts, { index: entry.index, digest, expiresAt, size, before: state.ciphertextBytes }),
    ciphertextBytes: state.ciphertextBytes + size
  }
}

/** A leaf in the log that cannot be folded: the log holds something no rule accepts. */
export interface FoldError {
  readonly index: number
  readonly reason: string
}

/** A leaf's bytes decoded into the entry they hold, with the index the leaf says it has. */
export const decodeLeaf = (sha256: Sha256, entryBytes: Uint8Array, expectedIndex: number): Either.Either<AcceptedEntry, FoldError> => {
  const fail = (reason: string) => Either.left<FoldError>({ index: expectedIndex, reason })
  let leaf: { envelope?: unknown; index?: unknown; logged?: unknown }
  try {
    leaf = JSON.parse(fromUtf8(entryBytes))
  } catch {
    return fail("the entry is not JSON")
  }
  if (leaf.index !== expectedIndex) return fail(`the entry says index ${String(leaf.index)}`)
  if (typeof leaf.logged !== "number") return fail("the entry has no logged time")
  const envelope = decodeEnvelope(leaf.envelope)
  if (Either.isLeft(envelope)) return fail("the entry's envelope is malformed")
  const rule = entryRuleOf(envelope.right.type)
  if (rule === undefined) return fail(`unknown entry type ${envelope.right.type}`)
  const payload = Schema.decodeUnknownEither(rule.payload, { onExcessProperty: "error" })(envelope.right.payload)
  if (Either.isLeft(payload)) return fail(`the ${rule.type} payload is invalid`)
  const hash = envelopeHash(sha256, envelope.right)
  if (Either.isLeft(hash)) return fail("the envelope has no JCS form")
  return Either.right({
    rule,
    envelope: envelope.right,
    payload: payload.right,
    envelopeHash: hash.right,
    index: expectedIndex,
    logged: leaf.logged
  })
}

/** Folds one leaf's bytes into the state (the leaf at index state.size). */
export const foldEntry = (sha256: Sha256, state: LogState, entryBytes: Uint8Array): Either.Either<LogState, FoldError> =>
  Either.map(decodeLeaf(sha256, entryBytes, state.size), (entry) => applyEntry(state, entry))
