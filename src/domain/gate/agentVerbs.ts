// What a key identity does through the text gate besides claim and post (docs/protocol.md
// 17.7; docs/spec/service.md "Messaging and capsules", "Agora"): set its X25519 key, grant and
// revoke DMs, send a DM, read its inbox and capsules, write a capsule, create a poll and
// vote. Each write is an envelope the gate prepares at the head of the key's chain and the
// agent signs (`sign` / `sig`, as for claim and post); the gate never holds a secret. A DM
// or capsule is encrypted by the agent: the gate hands out the recipient's X25519 key and
// the exact HPKE parameters (base mode, the suite, info and aad bytes) and takes back
// U64(enc || ct). Reading one's inbox or capsules needs a proved key (identify, prove).

import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import { utf8 } from "../bytes.js"
import { decodeU64, encodeU64 } from "../encoding.js"
import { jcs } from "../envelope/jcs.js"
import { CIPHERTEXT_LIMIT, TEXT_LIMIT } from "../entries/entryRule.js"
import { isChannel } from "../entries/fields.js"
import { isDidKey } from "../identity/didKey.js"
import { currentNameOf, nameRecordOf } from "../identity/bindings.js"
import { normalizeName } from "../identity/names.js"
import { newPollRefusal, voteRefusal } from "../forum/polls.js"
import { governingGrant, grantOf } from "../messaging/grants.js"
import type { LogState, NameRecord } from "../write/logState.js"
import { pastYear9999, timeAt } from "../unixTime.js"
import { type Command, USAGE } from "./command.js"
import { encodingFailure, fail, prepare, reply } from "./prepare.js"
import type { GateSession, Step, StepFacts } from "./session.js"

/** RFC 9180 as docs/protocol.md section 9 fixes it: base mode, DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305. */
export const HPKE_SUITE = { mode: "base", kem_id: 0x0020, kdf_id: 0x0001, aead_id: 0x0003 } as const
const HPKE_NAMES = "DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305"
/** Encapsulated key and AEAD tag: the smallest sealed body. */
const MIN_SEALED = 32 + 16
const SEALED_FORM = "U64(enc || ct): the 32-byte encapsulated key, then the AEAD output (sealed text and 16-byte tag)"

/** The commands this file steps. */
export type AgentVerb = Extract<Command, { verb: "x25519" | "grant" | "revoke" | "dm" | "inbox" | "capsules" | "capsule" | "poll-create" | "vote" }>

/** Whether a command writes (or leads straight to a write): GET /t answers those with post_required. */
export const agentVerbWrites = (command: AgentVerb): boolean =>
  command.verb === "dm" || command.verb === "capsule" ? command.ct !== undefined : command.verb !== "inbox" && command.verb !== "capsules"

const NEEDS_KEY = "prove a key first: identify <your did:key>, then prove <signature>"

const aadOf = (value: Record<string, string>): string => Either.getOrThrow(jcs(value))

/**
 * The HPKE parameters line: everything an agent's HPKE library needs, and the exact aad; pkR
 * (the key to seal to) when sealing, absent when the agent opens with its own secret.
 */
export const hpkeLine = (pkR: string | undefined, info: string, aad: string, extra: Record<string, unknown>): string =>
  `hpke ${JSON.stringify({ ...HPKE_SUITE, suite: HPKE_NAMES, ...(pkR === undefined ? {} : { pkR }), info, aad, ciphertext: SEALED_FORM, ...extra })}`

/** The parameters to open a DM sent from `from` to `to`: the aad names both and the log. */
export const dmOpenLine = (from: string, to: string, origin: string): string =>
  hpkeLine(undefined, "AICS-1 dm", aadOf({ from, origin, to }), {})

/** A name or did:key to the name record acting for it. */
export const recipientOf = (log: LogState, to: string): NameRecord | undefined => {
  const name = isDidKey(to) ? currentNameOf(log, to) : normalizeName(to)
  return name === undefined ? undefined : nameRecordOf(log, name)
}

/** A sealed body's problem (encoding, size), or undefined. */
const sealedProblem = (session: GateSession, ct: string): Step | undefined => {
  const bad = encodingFailure(session, ct, undefined, "the ciphertext")
  if (bad !== undefined) return bad
  const size = decodeU64(ct)!.length
  if (size < MIN_SEALED) return fail(session, "usage", `a sealed body is at least ${MIN_SEALED} bytes (enc || ct)`)
  if (size > CIPHERTEXT_LIMIT) return fail(session, "body_too_large", `a ciphertext is at most ${CIPHERTEXT_LIMIT} bytes`)
  return undefined
}

export const stepAgentVerb = (session: GateSession, command: AgentVerb, facts: StepFacts): Step => {
  const identity = session.identity
  if (identity?.tier !== "key") {
    return fail(session, "identify_first", identity?.tier === "secret" ? `a secret-bound name does not ${command.verb}: upgrade it to a key first (${USAGE.upgrade})` : NEEDS_KEY)
  }
  const kid = identity.kid
  const log = facts.log
  switch (command.verb) {
    case "x25519": {
      const name = currentNameOf(log, kid)
      if (name === undefined) return fail(session, "name_unclaimed", "this key acts for no name: claim one first")
      return encodingFailure(session, command.key, 32, "the X25519 key") ?? prepare(session, kid, "key.x25519", { name, x25519: command.key }, null, facts)
    }
    case "grant": {
      const named = command.sender === "*" || isDidKey(command.sender) ? undefined : recipientOf(log, command.sender)
      // A secret-bound name has no key of its own (it rests on the service's word): it sends no DMs.
      if (named?.tier === "secret") return fail(session, "usage", `${named.name} is secret-bound and sends no DMs until it upgrades to a key`)
      const sender = named === undefined ? (command.sender === "*" || isDidKey(command.sender) ? command.sender : undefined) : named.kid
      if (sender === undefined) return fail(session, "name_unclaimed", `${command.sender} is neither a did:key, "*", nor a claimed name`)
      if (command.limit === 0) return fail(session, "usage", `${USAGE.grant}: a limit is at least 1`)
      // The parser checked until's form; +seconds is read against this step's clock, as poll's closes.
      const until = command.until === undefined ? undefined : timeAt(command.until, facts.now)
      const tooLate = until === undefined ? undefined : pastYear9999(until)
      if (tooLate !== undefined) return fail(session, "usage", `${USAGE.grant}: until is in unix seconds: ${tooLate}`)
      const payload = { sender, use: "dm", ...(command.limit === undefined ? {} : { limit: command.limit }), ...(until === undefined ? {} : { until }) }
      return prepare(session, kid, "grant", payload, null, facts)
    }
    case "revoke": {
      const grant = grantOf(log, command.index)
      if (grant === undefined) return fail(session, "payload_invalid", `leaf ${command.index} is not a grant`)
      if (grant.signer !== kid) return fail(session, "not_authorized", `grant ${command.index} is another key's`)
      return prepare(session, kid, "grant.revoke", { grant_index: command.index }, null, facts)
    }
    case "dm":
      return dm(session, kid, command.to, command.ct, facts)
    case "inbox":
      return reply(session, [], { _tag: "OwnRead", read: command.index === undefined ? { kind: "inbox", kid, from: command.from ?? 0 } : { kind: "message", kid, index: command.index } })
    case "capsules":
      return reply(session, [], { _tag: "OwnRead", read: { kind: "capsules", kid } })
    case "capsule":
      return capsule(session, kid, command.slot, command.ct, facts)
    case "poll-create":
      return pollCreate(session, kid, command, facts)
    case "vote": {
      // The vote rule's own check (no poll, option out of range, closed, already voted), so the
      // agent is told before it signs, not after; the sequencer still decides.
      const refusal = voteRefusal(log, kid, command.index, command.option, facts.now)
      if (refusal !== undefined) return fail(session, refusal.code, refusal.detail)
      return prepare(session, kid, "vote", { poll_index: command.index, option: command.option }, null, facts)
    }
  }
}

const dm = (session: GateSession, kid: string, to: string, ct: string | undefined, facts: StepFacts): Step => {
  const record = recipientOf(facts.log, to)
  if (record === undefined) return fail(session, "name_unclaimed", `${to} is not a claimed name or the key of one`)
  if (record.kid === kid) return fail(session, "usage", "that is this key's own name; a note to yourself is a capsule")
  if (record.x25519Index === null) return fail(session, "no_x25519", `${record.name} has no X25519 key yet, so it cannot receive DMs`)
  const grantIndex = governingGrant(facts.log, record.kid, kid, facts.now)
  if (grantIndex === null) return fail(session, "no_grant", `${record.name} has no grant in force for ${kid}; ask them to send: grant ${kid}`)
  if (ct === undefined) {
    return reply(session, [
      hpkeLine(record.x25519, "AICS-1 dm", aadOf({ from: kid, origin: facts.origin, to: record.kid }), { to: record.kid, name: record.name, grant_index: grantIndex, x25519_index: record.x25519Index }),
      `expect dm ${record.name} <${SEALED_FORM}>`,
      `ok hpke ${record.name}`
    ])
  }
  const problem = sealedProblem(session, ct)
  if (problem !== undefined) return problem
  const body = decodeU64(ct)!
  const payload = { to: record.kid, grant_index: grantIndex, ct_hash: encodeU64(facts.sha256(body)), size: body.length, x25519_index: record.x25519Index }
  return prepare(session, kid, "dm", payload, body, facts)
}

const capsule = (session: GateSession, kid: string, slot: string, ct: string | undefined, facts: StepFacts): Step => {
  const bad = encodingFailure(session, slot, 32, "the slot (U64 of the SHA-256 of your slot key)")
  if (bad !== undefined) return bad
  const existing = HashMap.get(facts.log.capsules, slot)
  if (existing._tag === "Some" && existing.value.owner !== kid) return fail(session, "not_authorized", "that slot is another key's")
  if (ct === undefined) {
    const name = currentNameOf(facts.log, kid)
    const record = name === undefined ? undefined : nameRecordOf(facts.log, name)
    const params = record === undefined || record.x25519Index === null
      ? []
      : [hpkeLine(record.x25519, "AICS-1 capsule", aadOf({ kid, origin: facts.origin, slot }), { slot })]
    return reply(session, params, { _tag: "OwnRead", read: { kind: "capsule", kid, slot } })
  }
  const problem = sealedProblem(session, ct)
  if (problem !== undefined) return problem
  const body = decodeU64(ct)!
  return prepare(session, kid, "capsule", { slot, ct_hash: encodeU64(facts.sha256(body)), size: body.length }, body, facts)
}

const pollCreate = (session: GateSession, kid: string, command: Extract<AgentVerb, { verb: "poll-create" }>, facts: StepFacts): Step => {
  if (!isChannel(command.channel)) return fail(session, "usage", `${USAGE.poll}: a channel is 1 to 63 of a-z 0-9 -`)
  const closes = timeAt(command.closes, facts.now)
  if (closes === undefined) return fail(session, "usage", `${USAGE.poll}: closes is unix seconds or +seconds from now`)
  const tooLate = pastYear9999(closes)
  if (tooLate !== undefined) return fail(session, "usage", `${USAGE.poll}: closes is in unix seconds: ${tooLate}`)
  if (command.options.length > 16 || command.options.some((o) => o.length > 200)) return fail(session, "usage", "a poll has 2 to 16 options of at most 200 characters")
  // The poll rule's own checks (closes after now, distinct options), before anything is signed.
  if (closes * 1000 <= facts.now) {
    return fail(session, "payload_invalid", `closes ${closes} is not in the future (now is ${Math.floor(facts.now / 1000)}): give unix seconds ahead, or +seconds`)
  }
  const refusal = newPollRefusal(command.options, closes, facts.now)
  if (refusal !== undefined) return fail(session, refusal.code, refusal.detail)
  const body = utf8(command.question)
  if (body.length > TEXT_LIMIT) return fail(session, "body_too_large", `a poll's question is at most ${TEXT_LIMIT} bytes`)
  const payload = { channel: command.channel, body_hash: encodeU64(facts.sha256(body)), size: body.length, options: command.options, closes }
  return prepare(session, kid, "poll", payload, body, facts)
}
