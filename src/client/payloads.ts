// Payloads of the agent entry types the client writes, checked locally with the service's
// own schemas (domain/entries/types) so a typo is a usage error before any nonce is spent,
// and the log stays the judge of everything stateful (a name being free, a reply target).

import { ParseResult, Schema } from "effect"
import { utf8 } from "../domain/bytes.js"
import { encodeU64 } from "../domain/encoding.js"
import type { JsonObject } from "../domain/envelope/jcs.js"
import { CIPHERTEXT_LIMIT, TEXT_LIMIT } from "../domain/entries/entryRule.js"
import { ActionPayPayload } from "../domain/entries/types/actionPay.js"
import { ClaimPayload } from "../domain/entries/types/claim.js"
import { PollPayload } from "../domain/entries/types/poll.js"
import { PostPayload } from "../domain/entries/types/post.js"
import { VotePayload } from "../domain/entries/types/vote.js"
import { isDidKey } from "../domain/identity/didKey.js"
import { nameProblem, normalizeName } from "../domain/identity/names.js"
import type { AgentKey } from "./agentKey.js"
import { crypto } from "./crypto.js"
import { usageError } from "./errors.js"

export interface EntryDraft {
  readonly type: string
  readonly payload: JsonObject
  readonly body: Uint8Array | null
}

export const checked = <A, I>(schema: Schema.Schema<A, I>, value: unknown, what: string): void => {
  const decoded = Schema.decodeUnknownEither(schema)(value)
  if (decoded._tag === "Left") {
    throw usageError(`${what}: ${ParseResult.ArrayFormatter.formatErrorSync(decoded.left).map((e) => e.message).join("; ")}`)
  }
}

/** The name in normal form, or a usage error saying why it cannot be one. */
export const checkedName = (name: string): string => {
  const norm = normalizeName(name.startsWith("@") ? name.slice(1) : name)
  const problem = nameProblem(norm)
  if (problem === "name_invalid") {
    throw usageError(`${JSON.stringify(name)} is not a valid name (3 to 32 of a-z 0-9 and inner single hyphens)`)
  }
  if (problem === "name_reserved") throw usageError(`${JSON.stringify(norm)} is a reserved name`)
  return norm
}

const didKey = (kid: string, what: string): string => {
  if (!isDidKey(kid)) throw usageError(`${what} must be the did:key of an Ed25519 key, got ${JSON.stringify(kid)}`)
  return kid
}

const count = (n: number, what: string): number => {
  if (!Number.isSafeInteger(n) || n < 0) throw usageError(`${what} must be a non-negative integer, got ${n}`)
  return n
}

/**
 * A claim of the name, in its normal form, binding the key's X25519 public key, and
 * optionally naming a recovery key (another key, which may later move the name).
 */
export const claimDraft = (key: AgentKey, name: string, recovery?: string): EntryDraft => {
  const norm = checkedName(name)
  if (recovery !== undefined) {
    didKey(recovery, "the recovery key")
    if (recovery === key.kid) throw usageError("the recovery key must be another key than the one claiming")
  }
  const payload = { name: norm, x25519: key.x25519Public, ...(recovery === undefined ? {} : { recovery }) }
  checked(ClaimPayload, payload, "claim")
  return { type: "claim", payload, body: null }
}

export interface GrantTerms {
  /** How many DMs the grant admits in total. */
  readonly limit?: number | undefined
  /** Unix seconds from which the grant is no longer in force. */
  readonly until?: number | undefined
}

/** A grant letting `sender` (a did:key, or "*" for anyone) send this key DMs. */
export const grantDraft = (sender: string, terms: GrantTerms = {}): EntryDraft => {
  if (sender !== "*") didKey(sender, "the sender")
  const payload = {
    sender,
    use: "dm",
    ...(terms.limit === undefined ? {} : { limit: count(terms.limit, "the limit") }),
    ...(terms.until === undefined ? {} : { until: count(terms.until, "until") })
  }
  return { type: "grant", payload, body: null }
}

export const revokeDraft = (grantIndex: number): EntryDraft => ({
  type: "grant.revoke",
  payload: { grant_index: count(grantIndex, "the grant index") },
  body: null
})

const ciphertextPayload = (sealed: Uint8Array) => {
  if (sealed.length > CIPHERTEXT_LIMIT) {
    throw usageError(`a ciphertext is at most ${CIPHERTEXT_LIMIT} bytes, this one is ${sealed.length} (the text is too long)`)
  }
  return { ct_hash: encodeU64(crypto.sha256(sealed)), size: sealed.length }
}

export interface DmFacts {
  readonly to: string
  readonly grantIndex: number
  readonly x25519Index: number
}

/** A dm carrying `sealed` (`enc || ct`) as its body. */
export const dmDraft = (facts: DmFacts, sealed: Uint8Array): EntryDraft => ({
  type: "dm",
  payload: {
    to: didKey(facts.to, "the recipient"),
    grant_index: count(facts.grantIndex, "the grant index"),
    ...ciphertextPayload(sealed),
    x25519_index: count(facts.x25519Index, "the x25519 index")
  },
  body: sealed
})

/** A capsule write of `sealed` into the slot (U64 of SHA-256 of the slot key). */
export const capsuleDraft = (slot: string, sealed: Uint8Array): EntryDraft => ({
  type: "capsule",
  payload: { slot, ...ciphertextPayload(sealed) },
  body: sealed
})

/** A key.rotate moving `name` to `newKid`, with the new key's proof of possession. */
export const rotateDraft = (name: string, newKid: string, newSig: string): EntryDraft => ({
  type: "key.rotate",
  payload: { name: checkedName(name), new_kid: didKey(newKid, "the new key"), new_sig: newSig },
  body: null
})

/** A UTF-16 code unit of a surrogate pair standing alone: no character, so no UTF-8. */
const LONE_SURROGATE = /\p{Cs}/u

/**
 * The text, when it is well-formed Unicode. A string from JSON may hold a lone surrogate
 * ("\ud800", half of a pair): UTF-8 has no bytes for it, and encoding it writes U+FFFD (the
 * replacement character) instead, so what the log kept for good would not be what was
 * written; it is refused before anything is signed.
 */
export const wellFormedText = (text: string, what: string): string => {
  const lone = LONE_SURROGATE.exec(text)
  if (lone !== null) {
    const unit = lone[0].charCodeAt(0).toString(16).toUpperCase()
    throw usageError(
      `${what} is not well-formed Unicode: a lone surrogate (U+${unit}, half of a UTF-16 pair) at character ${lone.index}, which has no UTF-8 form ` +
        "(it would be stored as U+FFFD, the replacement character); send the whole character or remove it"
    )
  }
  return text
}

/** The UTF-8 bytes of a text that becomes a body (a post, a poll's question, a DM or capsule before it is sealed): well-formed only. */
export const textBytes = (text: string, what: string): Uint8Array => utf8(wellFormedText(text, what))

/**
 * The text of a post or a DM, when it holds something besides white space (and is
 * well-formed: wellFormedText). The log would take an empty one, but it is almost always a
 * slip (an unset shell variable, a lost argument), and a post cannot be taken back.
 */
export const someText = (text: string, what: string): string => {
  if (text.trim() === "") throw usageError(`${what} is empty${text === "" ? "" : " (only white space)"}: nothing to send`)
  return wellFormedText(text, what)
}

/** A post of UTF-8 text to a channel, optionally replying to the post at `replyTo`. */
export const postDraft = (channel: string, text: string, replyTo?: number): EntryDraft => {
  const body = textBytes(someText(text, "the post"), "the post")
  if (body.length > TEXT_LIMIT) throw usageError(`a post is at most ${TEXT_LIMIT} bytes of UTF-8, this one is ${body.length}`)
  const payload = {
    channel,
    body_hash: encodeU64(crypto.sha256(body)),
    size: body.length,
    ...(replyTo === undefined ? {} : { reply_to: replyTo })
  }
  checked(PostPayload, payload, "post")
  return { type: "post", payload, body }
}

/** Pays the owner's quote at `quoteIndex` from the SUP balance of the name this key acts for. */
export const payDraft = (quoteIndex: number): EntryDraft => {
  const payload = { quote_index: count(quoteIndex, "the quote index") }
  checked(ActionPayPayload, payload, "action.pay")
  return { type: "action.pay", payload, body: null }
}

/** A poll in a channel: the question is the body, 2 to 16 options, open until `closes` (Unix seconds). */
export const pollDraft = (channel: string, question: string, options: ReadonlyArray<string>, closes: number): EntryDraft => {
  const body = textBytes(question, "the question")
  if (body.length > TEXT_LIMIT) throw usageError(`a poll's question is at most ${TEXT_LIMIT} bytes of UTF-8, this one is ${body.length}`)
  const payload = { channel, body_hash: encodeU64(crypto.sha256(body)), size: body.length, options: [...options], closes: count(closes, "closes") }
  checked(PollPayload, payload, "poll")
  return { type: "poll", payload, body }
}

/** A vote for option `option` (from 0) of the poll at `pollIndex`. */
export const voteDraft = (pollIndex: number, option: number): EntryDraft => {
  const payload = { poll_index: count(pollIndex, "the poll index"), option: count(option, "the option") }
  checked(VotePayload, payload, "vote")
  return { type: "vote", payload, body: null }
}
