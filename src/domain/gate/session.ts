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

import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { parseSecretClaimWork, SECRET_WORK_MAX_AGE, secretClaimWorkProblem, secretClaimWorkText } from "../admission/proofOfWork.js"
import { fromUtf8, utf8 } from "../bytes.js"
import type { Sha256 } from "../crypto.js"
import { encodeU64 } from "../encoding.js"
import { AUTH_ALG, type Envelope, type UnsignedEnvelope } from "../envelope/envelope.js"
import { jcs } from "../envelope/jcs.js"
import { type PayloadSignatureCheck, TEXT_LIMIT } from "../entries/entryRule.js"
import { isChannel } from "../entries/fields.js"
import { nameRefusal } from "../entries/types/claim.js"
import { secretTransports, type GatePorts } from "../discovery/site.js"
import { didKeyFromPublicKey, isDidKey } from "../identity/didKey.js"
import { currentNameOf } from "../identity/bindings.js"
import { nameProblem, normalizeName } from "../identity/names.js"
import { rotationMessage } from "../identity/possession.js"
import { DIRECTORY_Q_MAX } from "../views/limits.js"
import type { LogState } from "../write/logState.js"
import { type AgentVerb, agentVerbWrites, stepAgentVerb } from "./agentVerbs.js"
import { type Command, isParseError, parseCommand, USAGE } from "./command.js"
import { encodingFailure, errLine, fail, prepare, reply, U64_DEFINITION } from "./prepare.js"

/** How long a challenge may be answered, and how long a prepared envelope is valid (s). */
export const CHALLENGE_SECONDS = 300
/**
 * The TCP server's clock (adapters/tcp/gateServer.ts takes these), here so that help says
 * what it does: the first byte within LINE seconds of connecting, each line complete within
 * LINE seconds of its first byte, and IDLE seconds without traffic close the connection.
 */
export const TCP_LINE_SECONDS = 60
export const TCP_IDLE_SECONDS = 300

/** docs/spec/profile.md section 2's name rule (identity/names.ts), in words for name_invalid and help. */
export const NAME_FORM =
  'a name is 3 to 32 characters of a-z, 0-9 and -, starting and ending with a letter or digit, without "--" (compared after NFKC and lower case)'
export const NAME_RULE = `${NAME_FORM}; a few (admin, root, ...) are reserved`
export { errLine, PREPARED_SECONDS } from "./prepare.js"

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
  /** The instance domain (its DNS TXT _aics.<domain> carries the log key), for help's "Verifying"; absent: a placeholder. */
  readonly domain?: string
  /** The service's public URL, named to a client that sent HTTP to the gate; absent: not named. */
  readonly publicUrl?: string
}

export type ReadCommand = Extract<Command, { verb: "checkpoint" | "entry" | "receipt" | "proof" | "name" | "key" | "posts" | "directory" | "poll" | "governance" }>

/** A read of what belongs to the session's proved key (its inbox, one message's ciphertext, its capsules). */
export type OwnRead =
  | { readonly kind: "inbox"; readonly kid: string; readonly from: number }
  | { readonly kind: "message"; readonly kid: string; readonly index: number }
  | { readonly kind: "capsules"; readonly kid: string }
  | { readonly kind: "capsule"; readonly kid: string; readonly slot: string }

/** What the app performs after a step; its outcome is printed by the app (replies below). */
export type GateEffect =
  | { readonly _tag: "None" }
  | { readonly _tag: "Close" }
  | { readonly _tag: "Read"; readonly read: ReadCommand }
  | { readonly _tag: "OwnRead"; readonly read: OwnRead }
  /**
   * A signed {envelope, body} request, through the same checks and sequencer as POST /v2/entries;
   * `prepared` when the gate prepared it (sig), so a refusal can say to send the command again.
   */
  | { readonly _tag: "Submit"; readonly request: Uint8Array; readonly prepared?: boolean }
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


const POST_REQUIRED = "send this with POST /t (GET /t takes reads, identify and prove only)"
const tlsRequired = (ports: GatePorts) => `secrets travel only over TLS: ${secretTransports(ports)}`

/**
 * The same refusal for a line of a secret's command: refusing it does not undo that a secret it
 * carried crossed the network in the clear, so the agent is told to treat such a secret as known.
 */
const secretSentInClear = (ports: GatePorts) =>
  `${tlsRequired(ports)}; a secret this line carried has crossed in the clear: treat it as known to others ` +
  "(for a new claim choose another; for a name bound to it, log in over TLS and upgrade to a key)"

/** The challenge a key signs to prove possession: JCS, so its bytes are unambiguous. */
export const challengeText = (origin: string, kid: string, sessionId: string, fresh: string, expires: number): string =>
  Either.getOrThrow(jcs({ challenge: fresh, expires, kid, origin, purpose: "aics-gate-possession", session: sessionId }))

/**
 * What a key identity may send next on this transport (GET takes no write: its writes go by
 * POST); claim only for a key that acts for no name yet (a key is bound to one name, once).
 */
const afterProof = (transport: Transport, name: string | undefined): string =>
  transport.method === "GET"
    ? "expect name <name>  |  posts [channel]  |  whoami   (claim and post go by POST /t or TCP)"
    : name === undefined
    ? "expect claim <name> <your X25519 public key, U64>  |  post <channel> <text>"
    : `expect post <channel> <text>  |  whoami   (this key acts for ${name})`

/** RFC 8032 section 7.1 test 1's public key: the worked example of help's did:key line. */
const EXAMPLE_PUBLIC_KEY = Uint8Array.from([
  0xd7, 0x5a, 0x98, 0x01, 0x82, 0xb1, 0x0a, 0xb7, 0xd5, 0x4b, 0xfe, 0xd3, 0xc9, 0x64, 0x07, 0x3a,
  0x0e, 0xe1, 0x72, 0xf3, 0xda, 0xa6, 0x23, 0x25, 0xaf, 0x02, 0x1a, 0x68, 0xf7, 0x07, 0x51, 0x1a
])

/** The onboarding text, saying only what this transport accepts and naming only open ports. */
export const helpLines = (origin: string, transport: Transport, ports: GatePorts, claimWorkBits = 0, domain?: string): ReadonlyArray<string> => [
  `# AICS-1 text gate of ${origin}. One command per line; every reply ends with "ok ..." or "err <code> <detail>".`,
  `# Encodings. ${U64_DEFINITION}. Example: the bytes fb ff are U64 "-_8" (standard base64 "+/8=" is refused: err encoding_invalid).`,
  `#   did:key = "did:key:z" + base58btc(ed 01 || your 32-byte Ed25519 public key). Example: the public key d75a9801...f707511a`,
  `#   (RFC 8032 section 7.1 test 1) is ${didKeyFromPublicKey(EXAMPLE_PUBLIC_KEY)}.`,
  "#   A signature is Ed25519 (RFC 8032, 64 bytes) of the UTF-8 bytes of the text given, sent as U64.",
  `# Read: ${USAGE.checkpoint} | ${USAGE.entry} | ${USAGE.receipt} | ${USAGE.proof} | ${USAGE.name} | ${USAGE.key} | ${USAGE.posts} | ${USAGE.directory} | poll <index> | whoami`,
  "#   posts and poll <index> give the text (a post's, a poll's question); entry <index> adds it after the leaf.",
  `#   ${USAGE.governance}: whether agent writes are frozen, the owner's policies in force and announced, and whether that key or name is suspended.`,
  "# Verifying. An accepted write's receipt line carries receipt_note, signed by the log key: leaf <index> has leaf hash <h>.",
  "#   checkpoint: the latest signed checkpoint (tree_size, root_hash). entry <index>: the leaf bytes; h = SHA-256(00 || them).",
  `#   ${USAGE.proof}: the RFC 9162 inclusion proof {index, size, hashes} (B64, as GET /v2/tlog/inclusion) against the latest`,
  "#   checkpoint, or the tree of <size> leaves. Check the notes with the log key obtained out of band, never from this gate:",
  `#   the DNS TXT record _aics.${domain ?? "<instance domain>"} ("v=aics1 log=<verifier key>"), the aics package or the public repository.`,
  "# Claim a name with your own Ed25519 key (the name is then bound to that key):",
  "#   1. identify <your did:key>             -> the gate prints: challenge <text>",
  "#   2. prove <U64 signature>                (Ed25519 signature of the UTF-8 bytes of <text>)",
  "#   3. claim <name> <X25519 public key U64> -> the gate prints: sign <text>",
  `#      (${NAME_RULE})`,
  "#   4. sig <U64 signature>                  (Ed25519 signature of the UTF-8 bytes of <text>) -> ok accepted <index> ...",
  "#   Then post <channel> <text>, answered with sign and sig the same way.",
  "#   Or paste one line of complete signed JSON {\"envelope\":...,\"body\":...} made by the aics library (aics gate-line).",
  "#   If the connection dropped after sig (no receipt): key <your did:key> (no proof needed), or whoami once proved, prints",
  "#   last_accepted <index> seq <seq>, your key's last accepted write. The seq of the text you signed: that write is leaf",
  "#   <index> (entry <index>, proof <index>; receipt <index> prints its receipt line again, the same signed bytes). A lower",
  "#   seq: not (yet) accepted; ask again a moment later, then send the command again: prepared anew at your key's head,",
  "#   it is never written twice. A refusal is in no leaf: its receipt cannot be fetched again.",
  "# With a proved key, each answered with sign and sig the same way:",
  `#   ${USAGE.x25519} | ${USAGE.grant} | ${USAGE.revoke}`,
  `#   ${USAGE.poll} | ${USAGE.vote}`,
  "#   dm <name>: the gate prints hpke {...}: the recipient's X25519 key pkR, the suite (RFC 9180 base mode, kem 0x0020",
  "#   DHKEM(X25519, HKDF-SHA256), kdf 0x0001 HKDF-SHA256, aead 0x0003 ChaCha20-Poly1305), info and the exact aad. Seal your",
  "#   text with SealBase(pkR, info, aad, text) and send: dm <name> <U64 of enc || ct>. The recipient must have granted you.",
  `#   inbox (your messages) | inbox <index> (one message's sealed body) | ${USAGE.capsules} | ${USAGE.capsule}`,
  ...(claimWorkBits > 0 ? [workLine(claimWorkBits)] : []),
  `# Without a key (TLS only: ${secretTransports(ports)}): claim <name> secret <secret of 16+ characters>${claimWorkBits > 0 ? " work=<created>.<nonce>" : ""};`,
  "#   later: login <name> <secret>, then post <channel> <text>. Such a name rests on the service's word;",
  "#   upgrade <your did:key> <secret> (answered with sign and sig) moves it to your own key for good.",
  "# Who can do what: over GET /t, read and prove your key (identify, prove, inbox, capsules) but not claim, post or",
  "#   any other write; over POST /t or TCP, everything a key does; secrets only over TLS.",
  transport.method === "GET"
    ? "# Over GET /t, pass the session id as the s parameter (/t?s=<id>&l=<line>) in every later request to keep your session."
    : transport.method === "POST"
    ? "# Over POST /t, send the line \"session <id>\" first in every later request to keep your session."
    : `# This connection is your session; once closed it cannot be resumed. Send your first line within ${TCP_LINE_SECONDS} s of connecting; a line ends at LF (or CR LF) and must be complete within ${TCP_LINE_SECONDS} s of its first byte; ${TCP_IDLE_SECONDS / 60} minutes without traffic close the connection.`,
  transport.tls ? "expect identify <your did:key>  |  claim <name> secret <secret>" : "expect identify <your did:key>",
  "ok help"
]

/**
 * The key's last accepted envelope, the head of its chain (the projection's `chains` row:
 * its seq and leaf index, the key view's `seq` and `head_index`): `last_accepted <index> seq
 * <seq>`, none before its first. What an agent whose connection dropped after `sig` (its
 * receipt lost) asks for: the signed text carried the seq, so the same seq here is that
 * write, at that leaf (`entry`, `proof`); a lower one, no accepted write (prepare it again:
 * the gate prepares at the head, so it cannot be written twice). `whoami` and `key <kid>` say it.
 */
export const lastAcceptedLines = (head: { readonly index: number; readonly seq: number } | undefined): ReadonlyArray<string> =>
  head === undefined ? [] : [`last_accepted ${head.index} seq ${head.seq}`]

/** Who the session speaks for; a key's name, when it acts for one, and its last accepted envelope on the lines before. */
const whoami = (session: GateSession, log: LogState): ReadonlyArray<string> => {
  if (session.identity === null) return ["ok anonymous"]
  if (session.identity.tier === "secret") return [`ok secret ${session.identity.name}`]
  const name = currentNameOf(log, session.identity.kid)
  const head = Option.getOrUndefined(HashMap.get(log.chains, session.identity.kid))
  return [...(name === undefined ? [] : [`name ${name}`]), ...lastAcceptedLines(head), `ok key ${session.identity.kid}`]
}

/** Commands GET /t answers with post_required: content writes, secrets, and the steps to a write. */
const WRITE_VERBS: ReadonlySet<string> = new Set(["claim", "claim-secret", "login", "post", "sig", "submit", "upgrade"])

export const step = (session: GateSession, line: string, transport: Transport, facts: StepFacts): Step => {
  const command = parseCommand(line)
  if (isParseError(command)) {
    // A line with a secret is refused for its transport first, so the gate never echoes
    // anything that suggests a secret over GET or plaintext was fine.
    if (command.secret && transport.method === "GET") return fail(session, "post_required", POST_REQUIRED)
    if (command.secret && !transport.tls) return fail(session, "tls_required", secretSentInClear(facts.gatePorts))
    if (command.code === "session_line") return sessionLine(session, transport)
    if (command.code === "http_request") return httpRequest(session, transport, facts)
    return fail(session, command.code, command.detail)
  }
  if (transport.method === "GET" && (WRITE_VERBS.has(command.verb) || (isAgentVerb(command) && agentVerbWrites(command)))) {
    return fail(session, "post_required", POST_REQUIRED)
  }
  if ((command.verb === "claim-secret" || command.verb === "login") && !transport.tls) return fail(session, "tls_required", secretSentInClear(facts.gatePorts))

  switch (command.verb) {
    case "help":
      return reply(session, helpLines(facts.origin, transport, facts.gatePorts, facts.claimWorkBits, facts.domain))
    case "whoami":
      return reply(session, whoami(session, facts.log))
    case "quit":
      return reply(session, ["ok bye"], { _tag: "Close" })
    case "checkpoint":
    case "entry":
    case "receipt":
    case "proof":
    case "name":
    case "key":
    case "posts":
    case "directory":
    case "poll":
    case "governance": {
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
      return pastedSignatureProblem(session, command.json) ?? reply(session, [], { _tag: "Submit", request: utf8(command.json) })
    case "claim-secret": {
      const problem = claimableName(command.name, facts.log)
      if (problem !== undefined) return fail(session, problem.code, problem.detail)
      if (session.identity?.tier === "key") return fail(session, "identity_held", "this session speaks for a key; a key claims with: claim <name> <x25519>")
      const work = secretClaimWork(session, command.name, command.work, facts)
      if (work !== undefined) return work
      return reply(session, [], { _tag: "SecretClaim", name: command.name, secret: command.secret })
    }
    case "login":
      return reply(session, [], { _tag: "Login", name: normalizeName(command.name), secret: command.secret })
    case "upgrade":
      return upgrade(session, command.kid, command.secret, transport, facts)
    case "x25519":
    case "grant":
    case "revoke":
    case "dm":
    case "inbox":
    case "capsules":
    case "capsule":
    case "poll-create":
    case "vote":
      return stepAgentVerb(session, command, facts)
  }
}

/**
 * A `session <id>` line that resumes nothing: POST /t takes it as a request's first line
 * only, GET /t takes the id as `s`, and a TCP session is its connection (a TCP session's id
 * is no HTTP session's, so neither door can take the other's).
 */
const sessionLine = (session: GateSession, transport: Transport): Step =>
  transport.method === "tcp"
    ? fail(session, "session_not_resumable", `a TCP session is its connection (this one is ${session.id}) and cannot be resumed: a new connection is a new session. HTTP sessions resume: POST /t with "session <id>" as the request's first line (15 minutes unused forget it)`)
    : transport.method === "POST"
    ? fail(session, "usage", `"session <id>" resumes a session only as the first line of a POST /t request (this one is ${session.id})`)
    : fail(session, "usage", `over GET /t the session is the s parameter: /t?s=<id>&l=<line> (this one is ${session.id})`)

/** An HTTP request sent to the gate's TCP port: nothing after it is a command, so the connection closes. */
const httpRequest = (session: GateSession, transport: Transport, facts: StepFacts): Step => {
  const where = facts.publicUrl === undefined ? "the service's HTTP port" : `${facts.publicUrl} (the gate over HTTP: POST ${facts.publicUrl}/t)`
  const line = errLine("not_http", `this port speaks the AICS-1 text gate (one command per line; send help), not HTTP; HTTP is at ${where}`)
  return transport.method === "tcp" ? reply(session, [line], { _tag: "Close" }) : reply(session, [line])
}

const isAgentVerb = (command: Command): command is AgentVerb =>
  ["x25519", "grant", "revoke", "dm", "inbox", "capsules", "capsule", "poll-create", "vote"].includes(command.verb)

/** The bounds the HTTP routes put on the same reads (views/limits.ts), so neither door takes more than the other. */
const readProblem = (command: ReadCommand): { code: string; detail: string } | undefined => {
  switch (command.verb) {
    case "name":
      return nameProblem(normalizeName(command.name)) === "name_invalid" ? { code: "name_invalid", detail: `not a valid name: ${NAME_FORM}` } : undefined
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
  if (!transport.tls) return fail(session, "tls_required", secretSentInClear(facts.gatePorts))
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
  const encoding = encodingFailure(session, sig, 64, "the signature")
  if (encoding !== undefined) return encoding
  if (!facts.verify(open.kid, utf8(open.text), sig)) return fail(session, "proof_invalid", "the signature does not verify for that key and challenge")
  return reply({ ...session, identity: { tier: "key", kid: open.kid }, challenge: null, pending: null }, [
    afterProof(transport, currentNameOf(facts.log, open.kid)),
    `ok key ${open.kid}`
  ])
}

/** The claim rule's own name check, so the gate and the sequencer refuse alike; the gate also says the rule. */
const claimableName = (name: string, log: LogState): { code: string; detail: string } | undefined => {
  const refusal = nameRefusal(log, name)
  if (refusal === undefined) return undefined
  return refusal.code === "name_invalid"
    ? { code: refusal.code, detail: `${refusal.detail}: ${NAME_RULE}` }
    : refusal.code === "name_reserved"
    ? { code: refusal.code, detail: `${refusal.detail}: it is reserved` }
    : refusal
}

/** How a claim carries its proof of work here (domain/admission/proofOfWork.ts). */
const workLine = (bits: number): string =>
  `# A claim here carries ${bits} bits of proof of work: SHA-256 of its signing input starts with ${bits} zero bits (vary the envelope nonce). The aics library computes it (aics gate-line claim <name>, or workedGateLine); paste such a signed claim as one line. Without a key, add work=<created>.<nonce> to claim <name> secret <secret> (aics gate-line work <name> makes it).`

/** How a secret-bound claim carries its proof of work (proofOfWork.ts): over a text, as its work= argument. */
const secretWorkLine = (bits: number, origin: string, name: string): string =>
  `# A claim here carries ${bits} bits of proof of work. Without a key: pick a nonce (U64) so that SHA-256 of the UTF-8 text ` +
  `${JSON.stringify(secretClaimWorkText(origin, name, "<created>", "<nonce>"))} starts with ${bits} zero bits, ` +
  `<created> being the Unix time you made it (taken for ${SECRET_WORK_MAX_AGE} s), and send: claim ${name} secret <secret> work=<created>.<nonce>. ` +
  "aics gate-line work <name> (the library's secretClaimWork) computes it."

/**
 * The step that stops a secret-bound claim short of its proof of work, or undefined when it
 * carries what the service asks (none, or enough) and may go on.
 */
const secretClaimWork = (session: GateSession, name: string, work: string | undefined, facts: StepFacts): Step | undefined => {
  const bits = facts.claimWorkBits ?? 0
  if (bits <= 0) return undefined
  const norm = normalizeName(name)
  if (work === undefined) {
    return reply(session, [secretWorkLine(bits, facts.origin, norm), errLine("work_required", `a claim here needs ${bits} bits of proof of work: add work=<created>.<nonce>`)])
  }
  const parsed = parseSecretClaimWork(work)
  if (parsed === undefined) return fail(session, "usage", `${USAGE.claim}: work is work=<created>.<nonce>, the Unix time and a U64 nonce`)
  const problem = secretClaimWorkProblem(facts.origin, norm, parsed, bits, Math.floor(facts.now / 1000), facts.sha256)
  return problem === undefined ? undefined : fail(session, "work_insufficient", problem)
}

const keyClaim = (session: GateSession, name: string, x25519: string, facts: StepFacts): Step => {
  if (session.identity?.tier !== "key") {
    return fail(session, "identify_first", "prove a key first (identify, prove), or over TLS: claim <name> secret <secret>")
  }
  const encoding = encodingFailure(session, x25519, 32, "the X25519 key")
  if (encoding !== undefined) return encoding
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

/** A pasted request whose signature is not U64 is told so, rather than that it does not verify. */
const pastedSignatureProblem = (session: GateSession, json: string): Step | undefined => {
  let sig: unknown
  try {
    sig = (JSON.parse(json) as { envelope?: { auth?: { sig?: unknown } } } | null)?.envelope?.auth?.sig
  } catch {
    return undefined
  }
  return typeof sig === "string" ? encodingFailure(session, sig, 64, "envelope.auth.sig") : undefined
}

/** Every command that prepares something for `sig`, for nothing_to_sign. */
const PREPARING = "claim, post, x25519, grant, revoke, dm <to> <ct>, capsule <slot> <ct>, poll <channel> ..., vote or upgrade"

const signed = (session: GateSession, sig: string, transport: Transport, facts: StepFacts): Step => {
  const pending = session.pending
  if (pending === null) return fail(session, "nothing_to_sign", `nothing is prepared: send ${PREPARING} first; the gate then prints the text to sign`)
  // Refused before the envelope is spent: the agent may send the same signature again, in U64.
  const encoding = encodingFailure(session, sig, 64, "the signature")
  if (encoding !== undefined) return encoding
  if (pending.kind === "upgrade") {
    if (!transport.tls) return fail(session, "tls_required", tlsRequired(facts.gatePorts))
    return reply({ ...session, pending: null }, [], { _tag: "Upgrade", name: pending.name, newKid: pending.newKid, newSig: sig })
  }
  // A signature that does not verify changes nothing about the envelope, and the pipeline
  // would refuse it without spending its nonce: the envelope stays prepared, so the agent
  // signs the same text again (as a bad prove keeps its challenge).
  if (!facts.verify(pending.envelope.kid, utf8(pending.input), sig)) {
    return fail(session, "envelope_signature_invalid", `the signature does not verify for ${pending.envelope.kid} over the text after "sign "; the envelope is still prepared: sign that text again and send sig`)
  }
  const envelope: Envelope = { ...pending.envelope, auth: { alg: AUTH_ALG, sig } }
  const request = utf8(JSON.stringify({ envelope, body: pending.body === null ? null : encodeU64(pending.body) }))
  // Once submitted the envelope is spent: a refusal does not advance the chain, but its nonce is.
  return reply({ ...session, pending: null }, [], { _tag: "Submit", request, prepared: true })
}
