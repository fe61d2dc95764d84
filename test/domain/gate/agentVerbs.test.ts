// The gate's commands beyond claim and post (src/domain/gate/agentVerbs.ts, command.ts,
// prepare.ts; docs/protocol.md 17.7): parsing, the envelopes they prepare for a proved key,
// what GET refuses, and the encoding errors that name the encoding a value is in.

import { describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../../../src/domain/bytes.js"
import { encodeB64, encodeU64 } from "../../../src/domain/encoding.js"
import { parseCommand, USAGE } from "../../../src/domain/gate/command.js"
import { u64Problem } from "../../../src/domain/gate/prepare.js"
import { newSession, step, type GateSession, type Step, type Transport } from "../../../src/domain/gate/session.js"
import { GovLog, makeAgent, pollPayload } from "../../support/governanceAgents.js"
import { gateFactsOf } from "../../support/gateFacts.js"
import { claimPayload } from "../../support/identityAgents.js"

const PLAIN: Transport = { tls: false, method: "tcp" }
const GET: Transport = { tls: false, method: "GET" }
const log = new GovLog()
const facts = () => gateFactsOf(log, { tls: 0, plaintext: 17701 })
const run = (session: GateSession, line: string, transport: Transport = PLAIN): Step => step(session, line, transport, facts())
const last = (s: Step) => s.lines[s.lines.length - 1]
const signText = (s: Step) => JSON.parse(s.lines.find((l) => l.startsWith("sign "))!.slice(5))
const proved = (agent: ReturnType<typeof makeAgent>): GateSession => ({ ...newSession("s1", "plain"), identity: { tier: "key", kid: agent.kid } })

describe("the gate's agent commands", () => {
  it("parses each command and its usage errors", () => {
    expect(parseCommand("grant * limit=3 until=2000000000")).toEqual({ verb: "grant", sender: "*", limit: 3, until: "2000000000" })
    expect(parseCommand("grant bob later")).toMatchObject({ code: "usage" })
    expect(parseCommand("revoke 12")).toEqual({ verb: "revoke", index: 12 })
    expect(parseCommand("dm bob")).toEqual({ verb: "dm", to: "bob", ct: undefined })
    expect(parseCommand("dm bob AAAA")).toEqual({ verb: "dm", to: "bob", ct: "AAAA" })
    expect(parseCommand("inbox")).toEqual({ verb: "inbox", index: undefined })
    expect(parseCommand("inbox 7")).toEqual({ verb: "inbox", index: 7 })
    expect(parseCommand("inbox from=40")).toEqual({ verb: "inbox", index: undefined, from: 40 })
    expect(parseCommand("inbox from=x")).toMatchObject({ code: "usage" })
    expect(parseCommand("poll 4")).toEqual({ verb: "poll", index: 4 })
    expect(parseCommand("poll general +60 Tea or coffee?  | tea |coffee ")).toEqual({
      verb: "poll-create", channel: "general", closes: "+60", question: "Tea or coffee?", options: ["tea", "coffee"]
    })
    expect(parseCommand("poll general +60 only one | option")).toMatchObject({ code: "usage" })
    expect(parseCommand("vote 4 1")).toEqual({ verb: "vote", index: 4, option: 1 })
    expect(parseCommand("vote 4")).toMatchObject({ code: "usage" })
  })

  it("names the encoding a value is in", () => {
    const sig = nodeCrypto.sha256(utf8("a")).subarray(0, 32)
    const bytes = new Uint8Array([...sig, ...sig])
    expect(u64Problem(encodeU64(bytes), 64, "the signature")).toBeUndefined()
    const standard = encodeB64(Uint8Array.of(0xfb, 0xff, ...bytes.subarray(2)))
    expect(u64Problem(standard, 64, "the signature")).toMatch(/^the signature is standard base64, not U64: .* replace \+ by -/)
    expect(u64Problem(Buffer.from(bytes).toString("hex"), 64, "the signature")).toMatch(/is hex, not U64/)
    expect(u64Problem("AAAA", 64, "the signature")).toBe("the signature is U64 of 3 bytes, not 64")
  })

  it("prepares grant, revoke, poll and vote envelopes for a proved key, and asks for a key first", () => {
    const agent = makeAgent("gate verbs")
    const session = proved(agent)
    expect(last(run(newSession("s0", "plain"), "grant *"))).toMatch(/^err identify_first /)
    const grant = run(session, `grant ${agent.kid} limit=2`)
    expect(last(grant)).toBe("ok prepared grant")
    expect(signText(grant)).toMatchObject({ type: "grant", kid: agent.kid, payload: { sender: agent.kid, use: "dm", limit: 2 } })
    expect(last(run(session, "grant nobody-here"))).toMatch(/^err name_unclaimed /)
    expect(last(run(session, "revoke 0"))).toMatch(/^err payload_invalid leaf 0 is not a grant/)
    const poll = run(session, "poll general +60 Tea? | yes | no")
    expect(signText(poll).payload).toMatchObject({ channel: "general", options: ["yes", "no"], closes: Math.floor(log.now / 1000) + 60, size: 4 })
    expect(poll.session.pending?.kind === "envelope" && poll.session.pending.body).toEqual(utf8("Tea?"))
    expect(last(run(session, "vote 0 1"))).toMatch(/^err payload_invalid leaf 0 is not a poll/)
    expect(last(run(session, "x25519 AAAA"))).toMatch(/^err name_unclaimed /)
    expect(last(run(session, "dm nobody-here"))).toMatch(/^err name_unclaimed /)
    expect(last(run(session, `capsule ${encodeB64(nodeCrypto.sha256(utf8("slot")))}`))).toMatch(/^err encoding_invalid /)
  })

  it("reads grant's until=+seconds against the clock, as poll's closes", () => {
    const agent = makeAgent("gate relative grant")
    const grant = run(proved(agent), "grant * until=+3600")
    expect(signText(grant).payload).toEqual({ sender: "*", use: "dm", until: Math.floor(log.now / 1000) + 3600 })
    expect(signText(run(proved(agent), "grant * until=2000000000")).payload.until).toBe(2000000000)
  })

  it("reads times as the client does (src/domain/unixTime.ts): +SECONDS of up to 12 digits, and nothing past the year 9999", () => {
    const agent = makeAgent("gate time forms")
    const session = proved(agent)
    const now = Math.floor(log.now / 1000)
    // +SECONDS past 9 digits (about 31 years), as aics --until and --closes take it.
    expect(parseCommand("grant * until=+1000000000")).toMatchObject({ verb: "grant", until: "+1000000000" })
    expect(signText(run(session, "grant * until=+1000000000")).payload.until).toBe(now + 1_000_000_000)
    expect(signText(run(session, "poll general +1000000000 Long? | yes | no")).payload.closes).toBe(now + 1_000_000_000)
    // A millisecond time (13 digits) and a 12-digit one past 9999 are refused naming the unit, not prepared.
    const millis = log.now + 3_600_000
    expect(last(run(session, `poll general ${millis} When? | now | later`)))
      .toBe(`err usage ${USAGE.poll}: closes is in unix seconds: ${millis} would be after the year 9999 (it looks like milliseconds: in seconds that is ${Math.floor(millis / 1000)})`)
    const grantMillis = run(session, `grant * until=${millis}`)
    expect(last(grantMillis)).toMatch(/^err usage grant .*: until is in unix seconds: \d+ would be after the year 9999 \(it looks like milliseconds/)
    expect(grantMillis.session.pending).toBeNull()
    expect(last(run(session, "grant * until=999999999999"))).toMatch(/^err usage .*until is in unix seconds: 999999999999 would be after the year 9999 \(it looks like milliseconds: in seconds that is 999999999\)$/)
    expect(last(run(session, "poll general +999999999999 Never? | yes | no"))).toMatch(/^err usage .*closes is in unix seconds: \d+ would be after the year 9999/)
    // What neither takes stays a usage error with the form's words.
    for (const bad of ["+1000000000000", "-5", "1.5e9", "soon", "+", "99999999999999999999"]) {
      expect(parseCommand(`grant * until=${bad}`), bad).toMatchObject({ code: "usage" })
      expect(last(run(session, `poll general ${bad} q? | a | b`)), bad).toBe(`err usage ${USAGE.poll}: closes is unix seconds or +seconds from now`)
    }
  })

  it("refuses a vote or poll the rules would refuse before anything is prepared, saying why", () => {
    const author = makeAgent("gate poll author")
    const voter = makeAgent("gate poll voter")
    log.accept(author, "claim", claimPayload("gate-poll-author", author))
    const poll = pollPayload("Which?", ["a", "b", "c"], log.seconds + 3600)
    const pollIndex = log.accept(author, "poll", poll.payload, poll.body)
    const session = proved(voter)
    const outOfRange = run(session, `vote ${pollIndex} 3`)
    expect(last(outOfRange)).toBe(`err payload_invalid option 3 is out of range (the poll has 3)`)
    expect(outOfRange.session.pending).toBeNull()
    expect(last(run(session, `vote ${pollIndex} 2`))).toBe("ok prepared vote")
    log.accept(voter, "vote", { poll_index: pollIndex, option: 0 })
    expect(last(run(session, `vote ${pollIndex} 1`))).toMatch(/^err already_voted /)
    const past = run(session, `poll general ${log.seconds - 10} When? | now | later`)
    expect(last(past)).toMatch(/^err payload_invalid closes \d+ is not in the future \(now is \d+\): give unix seconds ahead, or \+seconds$/)
    expect(past.session.pending).toBeNull()
    expect(last(run(session, "poll general +60 When? | now | now"))).toBe("err payload_invalid poll options must be distinct")
  })

  it("refuses writes over GET and takes the reads of a proved key", () => {
    const session = proved(makeAgent("gate reader"))
    for (const line of ["grant *", "revoke 1", "vote 1 0", "poll general +60 q | a | b", "dm bob AAAA", "x25519 AAAA", "capsule AAAA AAAA"]) {
      expect(last(run(session, line, GET)), line).toMatch(/^err post_required /)
    }
    expect(run(session, "inbox", GET).effect).toEqual({ _tag: "OwnRead", read: { kind: "inbox", kid: session.identity!.tier === "key" ? session.identity!.kid : "", from: 0 } })
    expect(run(session, "capsules", GET).effect._tag).toBe("OwnRead")
    expect(run(session, "poll 3", GET).effect).toEqual({ _tag: "Read", read: { verb: "poll", index: 3 } })
  })
})
