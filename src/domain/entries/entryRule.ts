// What makes an entry type (docs/spec/profile.md section 5): who signs it, its payload schema, the
// body it names, the stateful rules it must pass, and what it changes once accepted.
// Adding a type is one module that exports an EntryRule, listed in registry.ts.

import type * as Schema from "effect/Schema"
import type { Envelope } from "../envelope/envelope.js"
import type { LogState } from "../write/logState.js"
import type { Refusal } from "../write/refusal.js"

export type Signer = "agent" | "owner" | "policy"

/**
 * The off-leaf body a type names: none; a body under `hashMember` with `size` (text or
 * ciphertext, riding in the wire bundle's body_or_ct); or an owner's document named by its
 * hash alone (an audit report, a completion's result: bytes of any kind, served at
 * /v2/bodies/{digest} only, since the bundle carries only bodies named with a size).
 */
export type BodyRule =
  | { readonly kind: "none" }
  | {
    readonly kind: "text" | "ciphertext"
    readonly hashMember: "body_hash" | "ct_hash" | "document_hash"
    readonly maxBytes: number
  }
  | {
    readonly kind: "document"
    readonly hashMember: "report_hash" | "result_hash"
    readonly maxBytes: number
  }

/** An entry as the rules see it: the envelope, its decoded payload, where it would go. */
export interface EntryFacts<P> {
  readonly envelope: Envelope
  readonly payload: P
  /** The leaf index this entry gets if accepted. */
  readonly index: number
  /** Unix ms the entry is logged at. */
  readonly logged: number
}

/**
 * Verifies a signature carried inside a payload (a new key's proof of possession in
 * key.rotate): the Ed25519 signature, U64, by the key a did:key names, over the message.
 * False, never an exception, for a malformed kid or signature and for a key of small order.
 * Its message can depend on the state (the name's current key), so it is checked in the
 * sequencer rather than in the stateless checks.
 */
export type PayloadSignatureCheck = (kid: string, message: Uint8Array, signature: string) => boolean

/** What `check` sees: the entry, and the means to verify signatures inside its payload. */
export interface CheckFacts<P> extends EntryFacts<P> {
  readonly verify: PayloadSignatureCheck
  /**
   * The off-leaf body as submitted (checked against its hash and size), or null for a type
   * without one. A policy's rule reads its document (policy timing: the cited order).
   */
  readonly body?: Uint8Array | null
}

export interface EntryRule<P> {
  readonly type: string
  readonly signer: Signer
  /**
   * For a type more than one party signs (`report`: kind `audit` the owner, kind `notice`
   * the policy key), every signer it admits and which one a payload needs. Absent: only
   * `signer`, for every payload.
   */
  readonly signers?: ReadonlyArray<Signer>
  readonly signerOf?: (payload: P) => Signer
  readonly payload: Schema.Schema<P, any, never>
  readonly body: BodyRule
  /**
   * For a type whose payloads differ in the body they name (`report`: kind `audit` names its
   * report, kind `notice` nothing), the body rule of a payload. Absent: `body`, for every
   * payload.
   */
  readonly bodyOf?: (payload: P) => BodyRule
  /** The refusal, or undefined when the state allows the entry. */
  readonly check: (state: LogState, entry: CheckFacts<P>) => Refusal | undefined
  /** The state after the accepted entry (the chain is already advanced). */
  readonly apply: (state: LogState, entry: EntryFacts<P>) => LogState
}

/** Every signer the type admits. */
export const signersOf = (rule: EntryRule<any>): ReadonlyArray<Signer> => rule.signers ?? [rule.signer]

/** The party that must sign this payload of the type. */
export const signerOf = <P>(rule: EntryRule<P>, payload: P): Signer => rule.signerOf?.(payload) ?? rule.signer

/** The body this payload of the type must come with. */
export const bodyRuleOf = <P>(rule: EntryRule<P>, payload: P): BodyRule => rule.bodyOf?.(payload) ?? rule.body

/** Types a rule without losing its payload type at the definition site. */
export const entryRule = <P>(rule: EntryRule<P>): EntryRule<P> => rule

/** 16 KiB of UTF-8: posts and polls. */
export const TEXT_LIMIT = 16 * 1024
/** 64 KiB: DM and capsule ciphertext. */
export const CIPHERTEXT_LIMIT = 64 * 1024
/** 1 MiB: the owner's documents (charter, policy, audit report, a completion's result). */
export const DOCUMENT_LIMIT = 1024 * 1024
