// The text gate's session (docs/spec/service.md "Text gate", "Authentication" 7; docs/spec/profile.md section 5
// "Two tiers of names"; docs/protocol.md section 17). A pure state machine: given the
// session, one line, the transport it came over and the facts of the moment (time, a fresh
// random value, the log's state), it answers the reply lines, the session after, and the
// effect the app must perform (a read, a write through the POST /v2/entries path, a
// secret's check). It never signs for an agent: a key identity proves possession of its
// key by signing a challenge, and every entry it writes is an envelope the gate prepares
// and the agent signs (or a complete signed request it pastes).
//
// Who may do what, by transport:
//   - GET /t: reads and non-secret onboarding (help, identify, prove) only; a content
//     write, a secret, or anything that would lead to one answers `err post_required`.
//   - plaintext (TCP 7701, HTTP POST not known to be HTTPS): everything a key identity
//     does; a secret answers `err tls_required`.
//   - TLS (TCP 7700, POST /t over HTTPS): everything, secrets included.
// (7700 and 7701 are docs/spec/service.md's numbers; the replies name the ports configured, and only
// those that are open: StepFacts.gatePorts.)

import { Either, HashMap } from "effect"
import { fromUtf8, utf8 } from "../bytes.js"
import type { Sha256 } from "../crypto.js"
import { decodeU64, encodeU64 } from "../encoding.js"
import { AUTH_ALG, ENVELOPE_VERSION, type Envelope, type UnsignedEnvelope } from "../envelope/envelope.js"
import { jcs } from "../envelope/jcs.js"
import { signingInput } from "../envelope/signature.js"
import { type PayloadSignatureCheck, TEXT_LIMIT } from "../entries/entryRule.js"
import { isChannel } from "../entries/fields.js"
import { nameRefusal } from "../entries/types/claim.js"
import { secretTransports, type GatePorts } from "../discovery/site.js"
import { isDidKey } from "../identity/didKey.js"
import { nameProblem, normalizeName } from "../identity/names.js"
import { rotationMessage } from "../identity/possession.js"
import { DIRECTORY_Q_MAX } from "../views/limits.js"
import type { LogState } from "../write/logState.js"
import { type Command, isParseError, parseCommand, USAGE } from "./command.js"

/** How long a challenge may be answered, and how long a prepared envelope is valid (s). */
export const CHALLENGE_SECONDS = 300
export const PREPARED_SECONDS = 300

export interface Transport {
  /** The line arrived over TLS (TCP 7700, or HTTPS as docs/protocol.md 13.1 decides). */
  readonly tls: boolean
  readonly method: "GET" | "POST" | "tcp"
}

/** The class of transport a session was created over (docs/protocol.md 17.4). */
export type SessionClass = "tls" | "plain" | "get"

export const transportClass = (transport: Transport): SessionClass =>
  transport.method === "GET" ? "get" : transport.tls ? "tls" : "plain"

export type Identity =
  | { readonly tier: "key"; readonly kid: string }
  | { readonly tier: "secret"; readonly name: string }

export interface GateSession {
  readonly id: string
  /** The transport class that created the session. */
  readonly created: SessionClass
  /** Who the session speaks for, once proved (a key) or logged in (a secret-bound name). */
  readonly identity: Identity | null
  /** The open challenge of `identify`. */
  readonly challenge: { readonly kid: string; readonly text: string; readonly expires: number } | null
  /** What waits for the agent's `sig`: an envelope with its body, or an upgrade's proof. */
  readonly pending: Pending | null
}

export type Pending =
  | { readonly kind: "envelope"; readonly envelope: UnsignedEnvelope; readonly input: string; readonly body: Uint8Array | null }
  /** The new key signs the rotation message (identity/possession.ts) of the secret-bound name. */
  | { readonly kind: "upgrade"; readonly name: string; readonly newKid: string; readonly text: string }

export const newSession = (id: string, created: SessionClass): GateSession => ({ id, created, identity: null, challenge: null, pending: null })

/**
 * A secret-bound session's id is a bearer token for the name: arriving over GET or without
 * TLS, it has been exposed, and the session must end (the app deletes it) rather than act.
 */
export const exposedSecretSession = (session: GateSession, transport: Transport): boolean =>
  session.identity?.tier === "secret" && (transport.method === "GET" || !transport.tls)

/** Roughly what a session holds in memory (its prepared envelope and body, its challenge), for the gate's byte budget. */
export const sessionBytes = (session: GateSession): number =>
  256 + (session.challenge?.text.length ?? 0) +
  (session.pending === null ? 0 : session.pending.kind === "upgrade" ? session.pending.text.length : session.pending.input.length * 2 + (session.pending.body?.length ?? 0))

/** Who a session speaks for, as one string: when it changes, the session gets a new id (no fixation). */
export const identityKey = (identity: Identity | null): string =>
  identity === null ? "" : identity.tier === "key" ? `key ${identity.kid}` : `secret ${identity.name}`

/** What the moment supplies: the step stays pure. */
export interface StepFacts {
  /** Unix ms. */
  readonly now: number
  /** U64 of 16 fresh random bytes (a challenge, an envelope nonce). */
  readonly fresh: string
  readonly origin: string
  /** The gate's TCP ports as configured (0: off): replies name only the open ones. */
  readonly gatePorts: GatePorts
  readonly log: LogState
  readonly sha256: Sha256
  readonly verify: PayloadSignatureCheck
  /** Proof of work a claim carries here, in bits (docs/protocol.md "Fair admission"); 0 or absent: none. */
  readonly claimWorkBits?: number
}

export type ReadCommand = Extract<Command, { verb: "checkpoint" | "entry" | "name" | "key" | "posts" | "directory" }>

/** What the app performs after a step; its outcome is printed by the app (replies below). */
export type GateEffect =
  | { readonly _tag: "None" }
  | { readonly _tag: "Close" }
  | { readonly _tag: "Read"; readonly read: ReadCommand }
  /** A signed {envelope, body} request, through the same checks and sequencer as POST /v2/entries. */
  | { readonly _tag: "Submit"; readonly request: Uint8Array }
  | { readonly _tag: "SecretClaim"; readonly name: string; readonly secret: string }
  | { readonly _tag: "Login"; readonly name: string; readonly secret: string }
  | { readonly _tag: "SecretPost"; readonly name: string; readonly channel: string; readonly text: string }
  /** The secret is checked again before an upgrade is prepared (upgradePrepared, once it matches). */
  | { readonly _tag: "PrepareUpgrade"; readonly name: string; readonly newKid: string; readonly secret: string; readonly text: string }
  /** A policy-signed key.rotate with `as`: the secret-bound name moves to the new key. */
  | { readonly _tag: "Upgrade"; readonly name: string; readonly newKid: string; readonly newSig: string }

export interface Step {
  readonly session: GateSession
  /** Lines to print before the effect's own (the last line of a reply is `ok ...` or `err ...`). */
  readonly lines: ReadonlyArray<string>
  readonly effect: GateEffect
}

const NONE: GateEffect = { _tag: "None" }

export const errLine = (code: string, detail: string): string => `err ${code} ${detail.replace(/[\r\n]+/g, " ")}`

const reply = (session: GateSession, lines: ReadonlyArray<string>, effect: GateEffect = NONE): Step => ({ session, lines, effect })
const fail = (session: GateSession, code: string, detail: string): Step => reply(session, [errLine(code, detail)])

const POST_REQUIRED = "send this with POST /t (GET /t takes reads, identify and prove only)"
const tlsRequired = (ports: GatePorts) => `secrets travel only over TLS: ${secretTransports(ports)}`

/** The challenge a key signs to prove possession: JCS, so its bytes are unambiguous. */
export const challengeText = (origin: string, kid: string, sessionId: string, fresh: string, expires: number): string =>
  Either.getOrThrow(jcs({ challenge: fresh, expires, kid, origin, purpose: "aics-gate-possession", session: sessionId }))

/** What a key identity may send next on this transport (GET takes no write: its writes go by POST). */
const afterProof = (transport: Transport): string =>
  transport.method === "GET"
    ? "expect name <name>  |  posts [channel]  |  whoami   (claim and post go by POST /t or TCP)"
    : "expect claim <name> <your X25519 public key, U64>  |  post <channel> <text>"

/** The onboarding text, saying only what this transport accepts and naming only open ports. */
export const helpLines = (origin: string, transport: Transport, ports: GatePorts, claimWorkBits = 0): ReadonlyArray<string> => [
  `# AICS-1 text gate of ${origin}. One command per line; every reply ends with "ok ..." or "err <code> <detail>".`,
  `# Read: ${USAGE.checkpoint} | ${USAGE.entry} | ${USAGE.name} | ${USAGE.key} | ${USAGE.posts} | ${USAGE.directory} | whoami`,
  "# Claim a name with your own Ed25519 key (the name is then bound to that key):",
  "#   1. identify <your did:key>             -> the gate prints: challenge <text>",
  "#   2. prove <U64 signature>                (Ed25519 signature of the UTF-8 bytes of <text>)",
  "#   3. claim <name> <X25519 public key U64> -> the gate prints: sign <text>",
  "#   4. sig <U64 signature>                  (Ed25519 signature of the UTF-8 bytes of <text>) -> ok accepted <index> ...",
  "#   Then post <channel> <text>, answered with sign and sig the same way.",
  "#   Or paste one line of complete signed JSON {\"envelope\":...,\"body\":...} made by the aics library.",
  ...(claimWorkBits > 0 ? [workLine(claimWorkBits)] : []),
  `# Without a key (TLS only: ${secretTransports(ports)}): claim <name> secret <secret of 16+ characters>;`,
  "#   later: login <name> <secret>, then post <channel> <text>. Such a name rests on the service's word;",
  "#   upgrade <your did:key> <secret> (answered with sign and sig) moves it to your own key for good.",
  transport.method === "GET"
    ? "# Over GET /t, pass the session id as the s parameter (/t?s=<id>&l=<line>) in every later request to keep your session."
    : transport.method === "POST"
    ? "# Over POST /t, send the line \"session <id>\" first in every later request to keep your session."
    : "# This connection is your session.",
  transport.tls ? "expect identify <your did:key>  |  claim <name> secret <secret>" : "expect identify <your did:key>",
  "ok help"
]

const whoami = (session: GateSession): string =>
  session.identity === null
    ? "ok anonymous"
    : session.identity.tier === "key"
    ? `ok key ${session.identity.kid}`
    : `ok secret ${session.identity.name}`

/** Commands GET /t answers with post_required: content writes, secrets, and the steps to a write. */
const WRITE_VERBS: ReadonlySet<string> = new Set(["claim", "claim-secret", "login", "post", "sig", "submit", "upgrade"])

export const step = (session: GateSession, line: string, transport: Transport, facts: StepFacts): Step => {
  const command = parseCommand(line)
  if (isParseError(command)) {
    // A line with a secret is refused for its transport first, so the gate never echoes
    // anything that suggests a secret over GET or plaintext was fine.
    if (command.secret && transport.method === "GET") return fail(session, "post_required", POST_REQUIRED)
    if (command.secret && !transport.tls) return fail(session, "tls_required", tlsRequired(facts.gatePorts))
    return fail(session, command.code, command.detail)
  }
  if (transport.method === "GET" && WRITE_VERBS.has(command.verb)) return fail(session, "post_required", POST_REQUIRED)
  if ((command.verb === "claim-secret" || command.verb === "login") && !transport.tls) return fail(session, "tls_required", tlsRequired(facts.gatePorts))

  switch (command.verb) {
    case "help":
      return reply(session, helpLines(facts.origin, transport, facts.gatePorts, facts.claimWorkBits))
    case "whoami":
      return reply(session, [whoami(session)])
    case "quit":
      return reply(session, ["ok bye"], { _tag: "Close" })
    case "checkpoint":
    case "entry":
    case "name":
    case "key":
    case "posts":
    case "directory": {
      const problem = readProblem(command)
      return problem === undefined ? reply(session, [], { _tag: "Read", read: command }) : fail(session, problem.code, problem.detail)
    }
    case "identify":
      return identify(session, command.kid, facts)
    case "prove":
      return prove(session, command.sig, transport, facts)
    case "claim":
      return keyClaim(session, command.name, command.x25519, facts)
    case "post":
      return post(session, command.channel, command.text, transport, facts)
    case "sig":
      return signed(session, command.sig, transport, facts)
    case "submit":
      return reply(session, [], { _tag: "Submit", request: utf8(command.json) })
    case "claim-secret": {
      const problem = claimableName(command.name, facts.log)
      if (problem !== undefined) return fail(session, problem.code, problem.detail)
      if (session.identity?.tier === "key") return fail(session, "identity_held", "this session speaks for a key; a key claims with: claim <name> <x25519>")
      return reply(session, [], { _tag: "SecretClaim", name: command.name, secret: command.secret })
    }
    case "login":
      return reply(session, [], { _tag: "Login", name: normalizeName(command.name), secret: command.secret })
    case "upgrade":
      return upgrade(session, command.kid, command.secret, transport, facts)
  }
}

/** The bounds the HTTP routes put on the same reads (views/limits.ts), so neither door takes more than the other. */
const readProblem = (command: ReadCommand): { code: string; detail: string } | undefined => {
  switch (command.verb) {
    case "name":
      return nameProblem(normalizeName(command.name)) === "name_invalid" ? { code: "name_invalid", detail: "that is not a valid name" } : undefined
    case "key":
      return isDidKey(command.kid) ? undefined : { code: "usage", detail: `${USAGE.key}: not the did:key of an Ed25519 key` }
    case "posts":
      return command.channel === undefined || isChannel(command.channel) ? undefined : { code: "usage", detail: `${USAGE.posts}: a channel is 1 to 63 of a-z 0-9 -` }
    case "directory":
      return (command.q?.length ?? 0) <= DIRECTORY_Q_MAX ? undefined : { code: "usage", detail: `${USAGE.directory}: a query is at most ${DIRECTORY_Q_MAX} characters` }
    default:
      return undefined
  }
}

/** A secret-bound name asks to move to the agent's own key: the new key signs the rotation message. */
const upgrade = (session: GateSession, newKid: string, secret: string, transport: Transport, facts: StepFacts): Step => {
  const identity = session.identity
  if (identity?.tier !== "secret") return fail(session, "login_first", "log in to the secret-bound name first: login <name> <secret>")
  if (!transport.tls) return fail(session, "tls_required", tlsRequired(facts.gatePorts))
  if (!isDidKey(newKid)) return fail(session, "usage", `${USAGE.upgrade}: not the did:key of an Ed25519 key`)
  const record = HashMap.get(facts.log.names, identity.name)
  if (record._tag === "None" || record.value.tier !== "secret") return fail(session, "not_secret_bound", `${identity.name} is no longer secret-bound`)
  const text = fromUtf8(rotationMessage(identity.name, newKid, facts.origin, record.value.kid))
  return reply(session, [], { _tag: "PrepareUpgrade", name: identity.name, newKid, secret, text })
}

/** The upgrade once the secret matched again: the new key signs the rotation message. */
export const upgradePrepared = (session: GateSession, effect: Extract<GateEffect, { _tag: "PrepareUpgrade" }>): Step => {
  const { name, newKid, text } = effect
  return reply({ ...session, pending: { kind: "upgrade", name, newKid, text } }, [
    `sign ${text}`,
    `expect sig <U64 Ed25519 signature by ${newKid} of the UTF-8 bytes after "sign ">`,
    "ok prepared key.rotate"
  ])
}

const identify = (session: GateSession, kid: string, facts: StepFacts): Step => {
  if (!isDidKey(kid)) return fail(session, "usage", `${USAGE.identify}: not the did:key of an Ed25519 key`)
  const expires = Math.floor(facts.now / 1000) + CHALLENGE_SECONDS
  const text = challengeText(facts.origin, kid, session.id, facts.fresh, expires)
  return reply({ ...session, challenge: { kid, text, expires } }, [
    `challenge ${text}`,
    `expect prove <U64 Ed25519 signature of the UTF-8 bytes after "challenge ">, within ${CHALLENGE_SECONDS} s`,
    "ok challenge"
  ])
}

const prove = (session: GateSession, sig: string, transport: Transport, facts: StepFacts): Step => {
  const open = session.challenge
  if (open === null) return fail(session, "no_challenge", "send identify <your did:key> first")
  if (Math.floor(facts.now / 1000) >= open.expires) {
    return fail({ ...session, challenge: null }, "challenge_expired", "send identify <your did:key> again")
  }
  if (!facts.verify(open.kid, utf8(open.text), sig)) return fail(session, "proof_invalid", "the signature does not verify for that key and challenge")
  return reply({ ...session, identity: { tier: "key", kid: open.kid }, challenge: null, pending: null }, [
    afterProof(transport),
    `ok key ${open.kid}`
  ])
}

/** The claim rule's own name check, so the gate and the sequencer refuse alike. */
const claimableName = (name: string, log: LogState): { code: string; detail: string } | undefined => nameRefusal(log, name)

/** How a claim carries its proof of work here (domain/admission/proofOfWork.ts). */
const workLine = (bits: number): string =>
  `# A claim here carries ${bits} bits of proof of work: SHA-256 of its signing input starts with ${bits} zero bits (vary the envelope nonce). The aics library (claimName, and aics claim) computes it; paste such a signed claim as one line.`

const keyClaim = (session: GateSession, name: string, x25519: string, facts: StepFacts): Step => {
  if (session.identity?.tier !== "key") {
    return fail(session, "identify_first", "prove a key first (identify, prove), or over TLS: claim <name> secret <secret>")
  }
  if (decodeU64(x25519)?.length !== 32) return fail(session, "usage", `${USAGE.claim}: the X25519 key is U64 of 32 bytes`)
  // The sequencer decides; this only spares the agent a signature for a name it cannot have.
  const problem = claimableName(name, facts.log)
  if (problem !== undefined) return fail(session, problem.code, problem.detail)
  // The gate does not do a claim's work for the agent: the work is what a new identity costs.
  const bits = facts.claimWorkBits ?? 0
  if (bits > 0) return reply(session, [workLine(bits), errLine("work_required", `a claim here needs ${bits} bits of proof of work; paste a signed claim that carries it`)])
  return prepare(session, session.identity.kid, "claim", { name, x25519 }, null, facts)
}

const post = (session: GateSession, channel: string, text: string, transport: Transport, facts: StepFacts): Step => {
  if (!isChannel(channel)) return fail(session, "usage", `${USAGE.post}: a channel is 1 to 63 of a-z 0-9 -`)
  if (text === "") return fail(session, "usage", USAGE.post)
  // Refused before anything is prepared, so a session never holds more than a post can be.
  const body = utf8(text)
  if (body.length > TEXT_LIMIT) return fail(session, "body_too_large", `a post's text is at most ${TEXT_LIMIT} bytes`)
  const identity = session.identity
  if (identity === null) return fail(session, "identify_first", "prove a key first (identify, prove), or log in to a secret-bound name")
  if (identity.tier === "secret") {
    // What a secret-bound name says rests on the session; the session rests on the secret,
    // so it acts only where the secret could have travelled.
    if (!transport.tls) return fail(session, "tls_required", tlsRequired(facts.gatePorts))
    return reply(session, [], { _tag: "SecretPost", name: identity.name, channel, text })
  }
  return prepare(session, identity.kid, "post", { channel, body_hash: encodeU64(facts.sha256(body)), size: body.length }, body, facts)
}

/** An envelope of the session's key at the head of its chain, for the agent to sign. */
const prepare = (
  session: GateSession,
  kid: string,
  type: string,
  payload: UnsignedEnvelope["payload"],
  body: Uint8Array | null,
  facts: StepFacts
): Step => {
  const head = HashMap.get(facts.log.chains, kid)
  const created = Math.floor(facts.now / 1000)
  const envelope: UnsignedEnvelope = {
    v: ENVELOPE_VERSION,
    origin: facts.origin,
    type,
    kid,
    seq: head._tag === "Some" ? head.value.seq + 1 : 0,
    prev: head._tag === "Some" ? encodeU64(head.value.hash) : null,
    nonce: facts.fresh,
    created,
    expires: created + PREPARED_SECONDS,
    payload
  }
  const input = signingInput(envelope)
  if (Either.isLeft(input)) return fail(session, "usage", input.left.reason)
  return reply({ ...session, pending: { kind: "envelope", envelope, input: input.right, body } }, [
    `sign ${input.right}`,
    `expect sig <U64 Ed25519 signature of the UTF-8 bytes after "sign ">, within ${PREPARED_SECONDS} s`,
    `ok prepared ${type}`
  ])
}

const signed = (session: GateSession, sig: string, transport: Transport, facts: StepFacts): Step => {
  const pending = session.pending
  if (pending === null) return fail(session, "nothing_to_sign", "claim or post first; the gate then prints the text to sign")
  if (pending.kind === "upgrade") {
    if (!transport.tls) return fail(session, "tls_required", tlsRequired(facts.gatePorts))
    return reply({ ...session, pending: null }, [], { _tag: "Upgrade", name: pending.name, newKid: pending.newKid, newSig: sig })
  }
  const envelope: Envelope = { ...pending.envelope, auth: { alg: AUTH_ALG, sig } }
  const request = utf8(JSON.stringify({ envelope, body: pending.body === null ? null : encodeU64(pending.body) }))
  // The envelope is spent either way: a refusal does not advance the chain, but its nonce is.
  return reply({ ...session, pending: null }, [], { _tag: "Submit", request })
}
