// The gate's session machine (src/domain/gate/session.ts; docs/protocol.md 17.3 and 17.4):
// pure transitions, with the transport rules of docs/spec/service.md "Text gate" and "Authentication" 7.

import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { grindSecretClaimWork } from "../../../src/domain/admission/proofOfWork.js"
import { fromUtf8, utf8 } from "../../../src/domain/bytes.js"
import { encodeU64 } from "../../../src/domain/encoding.js"
import { prevOf } from "../../../src/domain/envelope/hash.js"
import { payloadSignatureCheck } from "../../../src/domain/identity/possession.js"
import { exposedSecretSession, newSession, sessionBytes, step, type GateSession, type Step, type Transport, upgradePrepared } from "../../../src/domain/gate/session.js"
import { checkSubmission } from "../../../src/domain/write/submission.js"
import { GovLog, makeAgent } from "../../support/governanceAgents.js"
import { ORIGIN } from "../../support/identityAgents.js"

const TLS: Transport = { tls: true, method: "tcp" }
const PLAIN: Transport = { tls: false, method: "tcp" }
const GET: Transport = { tls: false, method: "GET" }
const POST: Transport = { tls: false, method: "POST" }
const SECRET = "correct-horse-battery"
/** The gate's TCP ports of these tests: both open, on numbers other than docs/spec/service.md's, so a hard-coded 7700 shows. */
let PORTS = { tls: 17700, plaintext: 17701 }

const log = new GovLog()
let counter = 0
const facts = (now = log.now) => ({
  now,
  fresh: encodeU64(nodeCrypto.sha256(utf8(`fresh ${counter++}`)).subarray(0, 16)),
  origin: ORIGIN,
  gatePorts: PORTS,
  log: log.state,
  sha256: nodeCrypto.sha256,
  verify: payloadSignatureCheck(nodeCrypto.ed25519)
})

const run = (session: GateSession, line: string, transport: Transport = PLAIN, now?: number): Step => step(session, line, transport, facts(now))
const last = (s: Step) => s.lines[s.lines.length - 1]
const after = (s: Step, prefix: string) => s.lines.find((l) => l.startsWith(`${prefix} `))!.slice(prefix.length + 1)
const sign = (seed: Uint8Array, text: string) => encodeU64(nodeCrypto.ed25519.sign(seed, utf8(text)))

/** A session that proved the agent's key. */
const proved = (agent: ReturnType<typeof makeAgent>, transport: Transport = PLAIN): GateSession => {
  const challenged = run(newSession("s1", "plain"), `identify ${agent.kid}`, transport)
  const done = run(challenged.session, `prove ${sign(agent.seed, after(challenged, "challenge"))}`, transport)
  expect(last(done)).toBe(`ok key ${agent.kid}`)
  return done.session
}

describe("the gate session", () => {
  it("starts onboarding with help, naming the replies it expects", () => {
    const help = run(newSession("s1", "plain"), "help")
    expect(help.effect._tag).toBe("None")
    // Each transport is told only what it accepts: a secret claim over TLS, the s parameter over GET.
    expect(help.lines.filter((l) => l.startsWith("expect "))).toEqual(["expect identify <your did:key>"])
    expect(run(newSession("s1", "tls"), "help", TLS).lines.filter((l) => l.startsWith("expect ")))
      .toEqual(["expect identify <your did:key>  |  claim <name> secret <secret>"])
    expect(run(newSession("s1", "get"), "help", GET).lines.some((l) => l.includes("as the s parameter"))).toBe(true)
    expect(run(newSession("s1", "plain"), "help", POST).lines.some((l) => l.includes("\"session <id>\" first"))).toBe(true)
    expect(last(help)).toBe("ok help")
    expect(help.lines.slice(0, -2).every((l) => l.startsWith("# "))).toBe(true)
  })

  it("proves possession of a key with a signed challenge bound to the origin, key, session and time", () => {
    const agent = makeAgent("session prover")
    const challenged = run(newSession("s1", "plain"), `identify ${agent.kid}`)
    const text = after(challenged, "challenge")
    expect(JSON.parse(text)).toMatchObject({ kid: agent.kid, origin: ORIGIN, session: "s1", purpose: "aics-gate-possession" })
    expect(challenged.lines).toContain(`expect prove <U64 Ed25519 signature of the UTF-8 bytes after "challenge ">, within 300 s`)
    expect(last(run(challenged.session, `prove ${sign(makeAgent("someone else").seed, text)}`))).toMatch(/^err proof_invalid /)
    expect(last(run(challenged.session, `prove ${sign(agent.seed, text)}`, PLAIN, log.now + 300_000))).toMatch(/^err challenge_expired /)
    expect(last(run(newSession("s2", "plain"), `prove ${sign(agent.seed, text)}`))).toMatch(/^err no_challenge /)
    expect(last(run(newSession("s2", "plain"), "identify did:key:zNotAKey"))).toMatch(/^err usage /)
    expect(proved(agent).identity).toEqual({ tier: "key", kid: agent.kid })
  })

  it("prepares a claim at the head of the key's chain and submits it once signed; the sequencer accepts it", () => {
    const agent = makeAgent("session claimer")
    const x25519 = encodeU64(nodeCrypto.sha256(utf8("x")))
    const prepared = run(proved(agent), `claim session-claimer ${x25519}`)
    const input = after(prepared, "sign")
    expect(JSON.parse(input)).toMatchObject({ type: "claim", kid: agent.kid, seq: 0, prev: null, payload: { name: "session-claimer", x25519 }, auth: { alg: "ed25519-jcs" } })
    const signed = run(prepared.session, `sig ${sign(agent.seed, input)}`)
    expect(signed.session.pending).toBeNull()
    if (signed.effect._tag !== "Submit") throw new Error("expected a submission")
    const request = signed.effect.request
    const envelope = JSON.parse(fromUtf8(request)).envelope
    const checked = Either.getOrThrow(checkSubmission(request, { ...envelope, keyid: envelope.kid }, { origin: ORIGIN, sha256: nodeCrypto.sha256, ed25519: nodeCrypto.ed25519 }))
    const decision = Either.getOrThrow(log.decide(checked))
    log.state = decision.state

    // The next envelope continues the chain.
    const post = run(signed.session, "post general hello there")
    const next = JSON.parse(after(post, "sign"))
    expect([next.seq, next.prev]).toEqual([1, Either.getOrThrow(prevOf(nodeCrypto.sha256, envelope))])
    expect(next.payload).toEqual({ channel: "general", body_hash: encodeU64(nodeCrypto.sha256(utf8("hello there"))), size: 11 })
  })

  it("asks for a key or a secret before a write, and a pending envelope before sig", () => {
    expect(last(run(newSession("s1", "plain"), "claim alice AAAA"))).toMatch(/^err identify_first /)
    expect(last(run(newSession("s1", "plain"), "post general hi"))).toMatch(/^err identify_first /)
    expect(last(run(newSession("s1", "plain"), "sig AAAA"))).toMatch(/^err nothing_to_sign /)
    expect(last(run(proved(makeAgent("session x")), "claim alice AAAA"))).toMatch(/^err encoding_invalid the X25519 key is U64 of 3 bytes, not 32/)
    expect(last(run(proved(makeAgent("session y")), "post General hi"))).toMatch(/^err usage /)
    const x25519 = encodeU64(nodeCrypto.sha256(utf8("y")))
    expect(last(run(proved(makeAgent("session w")), `claim Admin ${x25519}`))).toMatch(/^err name_invalid /)
    expect(last(run(proved(makeAgent("session w")), `claim admin ${x25519}`))).toMatch(/^err name_reserved /)
  })

  it("names only the TCP ports that are open, as configured, in help and tls_required", () => {
    const secretHelp = (s: Step) => s.lines.find((l) => l.startsWith("# Without a key"))!
    try {
      expect(secretHelp(run(newSession("s1", "plain"), "help"))).toContain("(TLS only: TCP port 17700 or POST /t over HTTPS)")
      expect(last(run(newSession("s1", "plain"), `login carol ${SECRET}`))).toBe("err tls_required secrets travel only over TLS: TCP port 17700 or POST /t over HTTPS; a secret this line carried has crossed in the clear: treat it as known to others (for a new claim choose another; for a name bound to it, log in over TLS and upgrade to a key)")
      PORTS = { tls: 0, plaintext: 7701 }
      const help = run(newSession("s1", "plain"), "help")
      expect(secretHelp(help)).toContain("(TLS only: POST /t over HTTPS)")
      expect(help.lines.join("\n")).not.toContain("7700")
      for (const line of [`login carol ${SECRET}`, `claim carol secret ${SECRET}`, "claim carol secret short"]) {
        expect(last(run(newSession("s1", "plain"), line))).toBe("err tls_required secrets travel only over TLS: POST /t over HTTPS; a secret this line carried has crossed in the clear: treat it as known to others (for a new claim choose another; for a name bound to it, log in over TLS and upgrade to a key)")
      }
    } finally {
      PORTS = { tls: 17700, plaintext: 17701 }
    }
  })

  it("takes secrets only over TLS, and never over GET (post_required first)", () => {
    for (const line of [`claim carol secret ${SECRET}`, `login carol ${SECRET}`, "claim carol secret short", "login carol"]) {
      expect(last(run(newSession("s1", "plain"), line, GET))).toMatch(/^err post_required /)
      expect(last(run(newSession("s1", "plain"), line, PLAIN))).toMatch(/^err tls_required /)
      expect(last(run(newSession("s1", "plain"), line, POST))).toMatch(/^err tls_required /)
    }
    expect(run(newSession("s1", "plain"), `claim carol secret ${SECRET}`, TLS).effect).toEqual({ _tag: "SecretClaim", name: "carol", secret: SECRET })
    expect(run(newSession("s1", "plain"), `login Carol ${SECRET}`, { tls: true, method: "POST" }).effect).toEqual({ _tag: "Login", name: "carol", secret: SECRET })
    expect(last(run(newSession("s1", "plain"), "claim carol secret short", TLS))).toMatch(/^err secret_invalid /)
  })

  it("checks a secret claim's name before any secret is hashed", () => {
    expect(last(run(newSession("s1", "plain"), `claim admin secret ${SECRET}`, TLS))).toMatch(/^err name_reserved /)
    expect(last(run(newSession("s1", "plain"), `claim Carol secret ${SECRET}`, TLS))).toMatch(/^err name_invalid /)
    expect(last(run(proved(makeAgent("session z"), TLS), `claim carol secret ${SECRET}`, TLS))).toMatch(/^err identity_held /)
  })

  it("asks a secret claim for the published proof of work, over the origin, the name and the time", () => {
    const BITS = 8
    const worked = (at: number, bits = BITS) => (session: GateSession, line: string) =>
      step(session, line, TLS, { ...facts(at * 1000), claimWorkBits: bits })
    const now = Math.floor(log.now / 1000)
    const work = (name: string, created: number) =>
      grindSecretClaimWork(ORIGIN, name, created, BITS, nodeCrypto.sha256, new Uint8Array(16).fill(3))
    const claimAt = worked(now)

    // None carried: the recipe, and err work_required; nothing is hashed or written.
    const asked = claimAt(newSession("s1", "tls"), `claim carol secret ${SECRET}`)
    expect(asked.effect._tag).toBe("None")
    expect(last(asked)).toMatch(/^err work_required /)
    expect(asked.lines.join("\n")).toContain(`AICS-1 secret claim work\\n${ORIGIN}\\ncarol\\n<created>\\n<nonce>`)
    expect(claimAt(newSession("s1", "tls"), "help").lines.find((l) => l.startsWith("# Without a key"))).toContain("work=<created>.<nonce>")

    // Enough work made now for this name: the claim goes on.
    const good = work("carol", now - 30)
    expect(claimAt(newSession("s1", "tls"), `claim carol secret ${SECRET} ${good}`).effect).toEqual({ _tag: "SecretClaim", name: "carol", secret: SECRET })
    // Bound to the name and to the time: another name's, a stale or a future one is refused.
    expect(last(claimAt(newSession("s1", "tls"), `claim dave secret ${SECRET} ${good}`))).toMatch(/^err work_insufficient the work carries \d+ of the 8 bits/)
    expect(last(worked(now + 601)(newSession("s1", "tls"), `claim carol secret ${SECRET} ${good}`))).toMatch(/^err work_insufficient .*more than 600 s/)
    expect(last(claimAt(newSession("s1", "tls"), `claim carol secret ${SECRET} ${work("carol", now + 120)}`))).toMatch(/^err work_insufficient .*after the service's clock/)
    expect(last(claimAt(newSession("s1", "tls"), `claim carol secret ${SECRET} work=soon.AAAA`))).toMatch(/^err usage /)
    // A service that asks for none takes the claim without, and ignores no work it is given.
    expect(worked(now, 0)(newSession("s1", "tls"), `claim carol secret ${SECRET}`).effect._tag).toBe("SecretClaim")
  })

  it("answers post_required on GET to every content write, and allows reads, identify and prove", () => {
    const agent = makeAgent("session getter")
    for (const line of ["post general hi", "claim alice AAAA", "sig AAAA", '{"envelope":{}}']) {
      expect(last(run(proved(agent, GET), line, GET))).toMatch(/^err post_required /)
    }
    expect(run(newSession("s1", "plain"), "name alice", GET).effect).toEqual({ _tag: "Read", read: { verb: "name", name: "alice" } })
    expect(run(newSession("s1", "plain"), "checkpoint", GET).effect._tag).toBe("Read")
  })

  it("lets a secret-bound session post only over TLS", () => {
    const session: GateSession = { ...newSession("s1", "plain"), identity: { tier: "secret", name: "carol" } }
    expect(run(session, "post general hi", TLS).effect).toEqual({ _tag: "SecretPost", name: "carol", channel: "general", text: "hi" })
    expect(last(run(session, "post general hi", PLAIN))).toMatch(/^err tls_required /)
    expect(last(run(session, "post general hi", GET))).toMatch(/^err post_required /)
    expect(run(session, "whoami").lines).toEqual(["ok secret carol"])
  })

  it("upgrades a secret-bound name: the secret again, then the new key signs the rotation message, over TLS only", () => {
    log.must(log.policyOp("claim", { name: "session-carol", as: "session-carol" }))
    const session: GateSession = { ...newSession("s1", "tls"), identity: { tier: "secret", name: "session-carol" } }
    const agent = makeAgent("session upgrader")
    expect(last(run(session, `upgrade ${agent.kid} ${SECRET}`, GET))).toMatch(/^err post_required /)
    expect(last(run(session, `upgrade ${agent.kid} ${SECRET}`, PLAIN))).toMatch(/^err tls_required /)
    expect(last(run(newSession("s2", "tls"), `upgrade ${agent.kid} ${SECRET}`, TLS))).toMatch(/^err login_first /)
    // Without the secret, the session alone cannot move the name.
    expect(last(run(session, `upgrade ${agent.kid}`, TLS))).toMatch(/^err usage /)
    const asked = run(session, `upgrade ${agent.kid} ${SECRET}`, TLS)
    expect(asked.lines).toEqual([])
    expect(asked.effect).toMatchObject({ _tag: "PrepareUpgrade", name: "session-carol", newKid: agent.kid, secret: SECRET })
    if (asked.effect._tag !== "PrepareUpgrade") throw new Error("no PrepareUpgrade")
    const prepared = upgradePrepared(asked.session, asked.effect)
    expect(JSON.parse(after(prepared, "sign"))).toEqual({ name: "session-carol", new_kid: agent.kid, origin: ORIGIN, prev_kid: log.policy.kid })
    const sig = sign(agent.seed, after(prepared, "sign"))
    expect(last(run(prepared.session, `sig ${sig}`, PLAIN))).toMatch(/^err tls_required /)
    expect(run(prepared.session, `sig ${sig}`, TLS).effect).toEqual({ _tag: "Upgrade", name: "session-carol", newKid: agent.kid, newSig: sig })
  })

  it("counts a secret-bound session's id as exposed over GET or plaintext, never a key session's", () => {
    const secret: GateSession = { ...newSession("s1", "tls"), identity: { tier: "secret", name: "carol" } }
    const key: GateSession = { ...newSession("s2", "plain"), identity: { tier: "key", kid: "did:key:z" } }
    expect([GET, PLAIN, POST].map((t) => exposedSecretSession(secret, t))).toEqual([true, true, true])
    expect(exposedSecretSession(secret, TLS)).toBe(false)
    expect([GET, PLAIN, POST, TLS].some((t) => exposedSecretSession(key, t))).toBe(false)
  })

  it("refuses a post's text over the post limit before preparing anything", () => {
    const session = proved(makeAgent("session long poster"))
    const long = run(session, `post general ${"x".repeat(16 * 1024 + 1)}`)
    expect(last(long)).toMatch(/^err body_too_large /)
    expect(long.session.pending).toBeNull()
    const fits = run(session, `post general ${"x".repeat(16 * 1024)}`)
    expect(last(fits)).toBe("ok prepared post")
    expect(sessionBytes(fits.session)).toBeGreaterThan(16 * 1024)
    expect(sessionBytes(session)).toBeLessThan(1024)
  })

  it("after a proof over GET, expects only what GET takes", () => {
    const agent = makeAgent("session get prover")
    const challenged = run(newSession("s1", "get"), `identify ${agent.kid}`, GET)
    const done = run(challenged.session, `prove ${sign(agent.seed, after(challenged, "challenge"))}`, GET)
    expect(done.lines).toEqual(["expect name <name>  |  posts [channel]  |  whoami   (claim and post go by POST /t or TCP)", `ok key ${agent.kid}`])
  })

  it("bounds reads as the HTTP routes do: a query of 80 characters, a valid channel, name and key", () => {
    expect(run(newSession("s1", "plain"), `directory ${"a".repeat(80)}`).effect._tag).toBe("Read")
    expect(last(run(newSession("s1", "plain"), `directory ${"a".repeat(81)}`))).toMatch(/^err usage .*at most 80/)
    expect(last(run(newSession("s1", "plain"), "posts General!"))).toMatch(/^err usage /)
    expect(run(newSession("s1", "plain"), "posts general").effect._tag).toBe("Read")
    expect(last(run(newSession("s1", "plain"), `name ${"x".repeat(5000)}`))).toMatch(/^err name_invalid not a valid name: a name is 3 to 32 characters of a-z, 0-9 and -/)
    expect(last(run(newSession("s1", "plain"), "key not-a-key"))).toMatch(/^err usage /)
  })

  it("keeps the prepared envelope after a signature that does not verify, so the agent signs again", () => {
    const agent = makeAgent("session resigner")
    const prepared = run(proved(agent), "post general once more")
    const input = after(prepared, "sign")
    const wrong = run(prepared.session, `sig ${sign(makeAgent("not the signer").seed, input)}`)
    expect(last(wrong)).toMatch(/^err envelope_signature_invalid .*still prepared/)
    expect(wrong.effect._tag).toBe("None")
    expect(wrong.session.pending).toEqual(prepared.session.pending)
    const right = run(wrong.session, `sig ${sign(agent.seed, input)}`)
    expect(right.effect).toMatchObject({ _tag: "Submit", prepared: true })
    expect(right.session.pending).toBeNull()
    // With nothing prepared, sig names every command that prepares.
    const nothing = last(run(right.session, `sig ${sign(agent.seed, input)}`))!
    for (const verb of ["claim", "post", "grant", "dm", "vote", "poll", "x25519", "revoke", "capsule", "upgrade"]) expect(nothing).toContain(verb)
  })

  it("offers claim after prove only to a key that acts for no name", () => {
    const named = makeAgent("session named prover")
    log.accept(named, "claim", { name: "session-named", x25519: encodeU64(nodeCrypto.sha256(utf8("named x"))) })
    const challenged = run(newSession("s1", "plain"), `identify ${named.kid}`)
    const done = run(challenged.session, `prove ${sign(named.seed, after(challenged, "challenge"))}`)
    expect(done.lines).toEqual(["expect post <channel> <text>  |  whoami   (this key acts for session-named)", `ok key ${named.kid}`])
  })

  it("answers a session line by transport: a TCP session is its connection", () => {
    expect(last(run(newSession("s1", "plain"), "session abc"))).toMatch(/^err session_not_resumable a TCP session is its connection \(this one is s1\).*POST \/t/)
    expect(last(run(newSession("s1", "plain"), "session abc", POST))).toMatch(/^err usage "session <id>" resumes a session only as the first line of a POST \/t request/)
    expect(last(run(newSession("s1", "get"), "session abc", GET))).toMatch(/^err usage over GET \/t the session is the s parameter/)
  })

  it("tells an HTTP client on the gate's port where HTTP is, and closes", () => {
    const tcp = step(newSession("s1", "plain"), "GET / HTTP/1.1", PLAIN, { ...facts(), publicUrl: "https://gate.example" })
    expect(tcp.lines).toEqual(["err not_http this port speaks the AICS-1 text gate (one command per line; send help), not HTTP; HTTP is at https://gate.example (the gate over HTTP: POST https://gate.example/t)"])
    expect(tcp.effect._tag).toBe("Close")
    // An empty line is answered too: one reply per line.
    expect(run(newSession("s1", "plain"), "").lines).toEqual(["err usage an empty line is no command; send help"])
    expect(run(newSession("s1", "plain"), " \r").lines).toEqual(["err usage an empty line is no command; send help"])
  })

  it("says in help how to verify, the name rule and, over TCP, the line deadline", () => {
    const help = step(newSession("s1", "plain"), "help", PLAIN, { ...facts(), domain: "gate.example" }).lines.join("\n")
    expect(help).toContain("proof <index> [size]: the RFC 9162 inclusion proof {index, size, hashes}")
    expect(help).toContain("the DNS TXT record _aics.gate.example (\"v=aics1 log=<verifier key>\")")
    expect(help).toContain("a name is 3 to 32 characters of a-z, 0-9 and -")
    expect(help).toContain("Send your first line within 60 s of connecting")
    expect(run(newSession("s1", "plain"), "help", POST).lines.join("\n")).not.toContain("within 60 s")
    const x25519 = encodeU64(nodeCrypto.sha256(utf8("rule")))
    expect(last(run(proved(makeAgent("session rule")), `claim a_b ${x25519}`))).toMatch(/^err name_invalid .*: a name is 3 to 32 characters/)
  })

  it("closes on quit", () => {
    expect(run(newSession("s1", "plain"), "quit")).toMatchObject({ lines: ["ok bye"], effect: { _tag: "Close" } })
  })
})
