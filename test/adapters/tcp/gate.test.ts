// The text gate end to end (docs/spec/service.md "Text gate", "Authentication" 7; docs/protocol.md
// section 17): the compiled server with its plaintext and TLS TCP ports (a self-signed
// certificate made here with openssl), POST and GET /t. Onboarding from `help` to a claimed
// name and a post for a key identity (HTTP and TCP) and for a secret identity (TLS); the
// secrets refused where they must be; session continuity; the limits; every leaf the
// gate wrote read back from the verified tiles with its signature checked; and the gate's
// events in the owner statistics.

import { existsSync } from "node:fs"
import { readdir, readFile } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort, removeDir, type RunningServer, startServer, tempDataDir } from "../../support/server.js"
import { ownerOf, signedGet } from "../../support/signedHttp.js"
import { field, GateConnection, getGate, lastLine, leavesFromTiles, postGate, selfSignedCert, sessionOf } from "../../support/gateClient.js"
import { advanceChain, claimDraft, gateLine, generateAgentKey, postDraft, signGateText } from "../../../src/client/index.js"
import { Ed25519Key, envelopeHash, envelopeSignatureHolds, jcs, sha256, u64, utf8, type Envelope } from "../../support/outsideOwner.js"
import { decodeB64 } from "../../../src/domain/encoding.js"
import { makeTreeHasher } from "../../../src/domain/tlog/hasher.js"
import { verifyInclusion } from "../../../src/domain/tlog/inclusion.js"

let server: RunningServer
let dataDir: string
let gatePort: number
let tlsPort: number
let vkey: string
const written: Record<string, number> = {}

const SECRET = "correct-horse-battery-staple"
const randomX25519 = () => u64(sha256(utf8(`x25519 ${Math.random()}`)))
const signed = (key: Ed25519Key, text: string) => u64(key.sign(utf8(text)))
const acceptedIndex = (lines: ReadonlyArray<string>): number => {
  const match = /^ok accepted (\d+) /.exec(lastLine(lines))
  if (match === null) throw new Error(`not accepted: ${lines.join(" | ")}`)
  return Number(match[1])
}

beforeAll(async () => {
  dataDir = await tempDataDir()
  const { cert, key } = selfSignedCert(dataDir)
  gatePort = await freePort()
  tlsPort = await freePort()
  server = await startServer({
    dataDir,
    env: { AICS_GATE_PORT: String(gatePort), AICS_GATE_TLS_PORT: String(tlsPort), AICS_GATE_TLS_CERT: cert, AICS_GATE_TLS_KEY: key }
  })
  for (let i = 0; i < 100 && (server.output().match(/Text gate listening/g) ?? []).length < 2; i++) await new Promise((r) => setTimeout(r, 50))
  vkey = (await readFile(join(dataDir, "log.vkey"), "utf8")).trim()
}, 30_000)

afterAll(async () => {
  await server?.stop()
  await removeDir(dataDir)
})

describe("the text gate", () => {
  it("onboards a key identity over POST /t, from help to a claimed name and a post", async () => {
    const help = await postGate(server.baseUrl, ["help"])
    let session = field(help.lines, "session")
    expect(help.lines).toContain("expect identify <your did:key>")
    expect(lastLine(help.lines)).toBe("ok help")

    const key = Ed25519Key.random()
    const challenge = await postGate(server.baseUrl, [`identify ${key.kid}`], session)
    expect(challenge.lines[0]).toMatch(/^challenge /)
    const proved = await postGate(server.baseUrl, [`prove ${signed(key, field(challenge.lines, "challenge"))}`], session)
    expect(lastLine(proved.lines)).toBe(`ok key ${key.kid}`)
    expect(proved.lines).toContain("expect claim <name> <your X25519 public key, U64>  |  post <channel> <text>")
    // The proof renews the session id: whoever knew the anonymous one does not speak for the key.
    const anonymous = session
    session = sessionOf(proved.lines)
    expect(session).not.toBe(anonymous)
    expect((await postGate(server.baseUrl, ["whoami"], anonymous)).lines.at(-1)).toBe("ok anonymous")

    const claim = await postGate(server.baseUrl, [`claim gate-alice ${randomX25519()}`], session)
    expect(claim.lines.some((l) => l.startsWith("expect sig "))).toBe(true)
    const claimed = await postGate(server.baseUrl, [`sig ${signed(key, field(claim.lines, "sign"))}`], session)
    written["keyClaim"] = acceptedIndex(claimed.lines)
    const receipt = JSON.parse(field(claimed.lines, "receipt"))
    expect(receipt.entry).toMatchObject({ index: written["keyClaim"], type: "claim", kid: key.kid, seq: 0 })

    const post = await postGate(server.baseUrl, ["post general hello from the gate"], session)
    const posted = await postGate(server.baseUrl, [`sig ${signed(key, field(post.lines, "sign"))}`], session)
    written["keyPost"] = acceptedIndex(posted.lines)

    const name = await (await fetch(`${server.baseUrl}/v2/names/gate-alice`)).json() as Record<string, unknown>
    expect([name["tier"], name["kid"]]).toEqual(["key", key.kid])
  })

  it("answers a wrong signature with the refusal, and keeps the session", async () => {
    const key = Ed25519Key.random()
    const opened = await postGate(server.baseUrl, [`identify ${key.kid}`])
    let session = field(opened.lines, "session")
    const wrong = await postGate(server.baseUrl, [`prove ${signed(Ed25519Key.random(), field(opened.lines, "challenge"))}`], session)
    expect(lastLine(wrong.lines)).toMatch(/^err proof_invalid /)
    const proved = await postGate(server.baseUrl, [`prove ${signed(key, field(opened.lines, "challenge"))}`], session)
    expect(lastLine(proved.lines)).toBe(`ok key ${key.kid}`)
    session = sessionOf(proved.lines)
    const prepared = await postGate(server.baseUrl, ["post general signed by someone else"], session)
    const refused = await postGate(server.baseUrl, [`sig ${signed(Ed25519Key.random(), field(prepared.lines, "sign"))}`], session)
    // Refused before submission: the envelope stays prepared, and the right signature of the same text is taken.
    expect(lastLine(refused.lines)).toMatch(/^err envelope_signature_invalid .*the envelope is still prepared/)
    const who = await postGate(server.baseUrl, ["whoami"], session)
    expect(who.lines).toEqual([`ok key ${key.kid}`])
    acceptedIndex((await postGate(server.baseUrl, [`sig ${signed(key, field(prepared.lines, "sign"))}`], session)).lines)
  })

  it("onboards a key identity over plaintext TCP, and takes a pasted signed request line", async () => {
    const gate = await GateConnection.open(gatePort, false)
    const key = Ed25519Key.random()
    const challenge = await gate.send(`identify ${key.kid}`)
    // HTTP never reaches a TCP session, even knowing its id.
    const tcpSession = JSON.parse(field(challenge, "challenge")).session as string
    expect((await postGate(server.baseUrl, ["whoami"], tcpSession)).lines).toContain("# that session is unknown or expired; this is a new one")
    expect(lastLine(await gate.send(`prove ${signed(key, field(challenge, "challenge"))}`))).toBe(`ok key ${key.kid}`)
    const claim = await gate.send(`claim gate-bob ${randomX25519()}`)
    const signText = field(claim, "sign")
    const sig = signed(key, signText)
    written["tcpClaim"] = acceptedIndex(await gate.send(`sig ${sig}`))

    // The agent's own library made this one: the whole {envelope, body} on one line.
    const claimEnvelope = { ...JSON.parse(signText), auth: { alg: "ed25519-jcs", sig } } as Envelope
    const body = utf8("pasted by bob")
    const created = Math.floor(Date.now() / 1000)
    const unsigned = {
      v: "AICS-1", origin: "localhost/aics", type: "post", kid: key.kid, seq: 1, prev: u64(envelopeHash(claimEnvelope)),
      nonce: u64(sha256(utf8(`nonce ${Math.random()}`)).subarray(0, 16)), created, expires: created + 300,
      payload: { channel: "general", body_hash: u64(sha256(body)), size: body.length }
    }
    const envelope = { ...unsigned, auth: { alg: "ed25519-jcs", sig: signed(key, jcs({ ...unsigned, auth: { alg: "ed25519-jcs" } })) } }
    written["tcpPasted"] = acceptedIndex(await gate.send(JSON.stringify({ envelope, body: u64(body) })))
    // The same line again: the nonce is spent, as on POST /v2/entries.
    expect(lastLine(await gate.send(JSON.stringify({ envelope, body: u64(body) })))).toMatch(/^err nonce_reused /)
    expect(await gate.send("quit")).toEqual(["ok bye"])
  })

  it("takes the lines the aics library makes: a claim and a post pasted whole, and a proof signed with signGateText", async () => {
    const key = generateAgentKey()
    const gate = await GateConnection.open(gatePort, false)
    const claimLine = gateLine(key, "localhost/aics", claimDraft(key, "gate-lib"))
    const claimed = await gate.send(claimLine)
    written["libraryClaim"] = acceptedIndex(claimed)
    // The agent keeps its chain with the receipt the gate printed, as after an HTTP write.
    const { entry, receipt_note } = JSON.parse(field(claimed, "receipt"))
    const next = advanceChain(key, JSON.parse(claimLine).envelope, { ...entry, receipt_note })
    written["libraryPost"] = acceptedIndex(await gate.send(gateLine(next, "localhost/aics", postDraft("general", "made by the library"))))
    const challenge = await gate.send(`identify ${key.kid}`)
    expect(await gate.send(`prove ${signGateText(key, field(challenge, "challenge"))}`)).toContain(`ok key ${key.kid}`)
    gate.close()
  })

  it("onboards a secret identity over TLS: claim, post, a login on a later connection, and the upgrade to a key", async () => {
    const first = await GateConnection.open(tlsPort, true)
    written["secretClaim"] = acceptedIndex(await first.send(`claim gate-carol secret ${SECRET}`))
    written["secretPost"] = acceptedIndex(await first.send("post general hello from a secret-bound name"))
    first.close()

    const later = await GateConnection.open(tlsPort, true)
    expect(lastLine(await later.send("post general before login"))).toMatch(/^err identify_first /)
    expect(lastLine(await later.send("login gate-carol wrong-secret-but-long"))).toMatch(/^err login_failed /)
    expect(lastLine(await later.send("login gate-alice wrong-secret-but-long"))).toMatch(/^err login_failed /)
    const loggedIn = await later.send(`login gate-carol ${SECRET}`)
    expect(loggedIn).toEqual([`session ${sessionOf(loggedIn)}`, "expect post <channel> <text>  |  upgrade <your did:key> <secret>", "ok secret gate-carol"])
    written["secretPost2"] = acceptedIndex(await later.send("post general back again"))
    expect(lastLine(await later.send(`claim gate-carol secret ${SECRET}`))).toMatch(/^err name_taken /)

    // The upgrade: the name moves to the agent's own key, and the secret stops working.
    const key = Ed25519Key.random()
    // The session alone does not move the name: the secret is asked again.
    expect(lastLine(await later.send(`upgrade ${key.kid}`))).toMatch(/^err usage /)
    expect(lastLine(await later.send(`upgrade ${key.kid} wrong-secret-but-long`))).toMatch(/^err login_failed /)
    // A refused policy leaf prints its refusal receipt, as a key's submission does.
    const badRotation = await later.send(`upgrade ${key.kid} ${SECRET}`)
    const badSig = await later.send(`sig ${signed(Ed25519Key.random(), field(badRotation, "sign"))}`)
    expect(lastLine(badSig)).toMatch(/^err proof_invalid /)
    expect(JSON.parse(field(badSig, "receipt")).entry).toMatchObject({ refused: "proof_invalid" })
    const rotation = await later.send(`upgrade ${key.kid} ${SECRET}`)
    written["upgrade"] = acceptedIndex(await later.send(`sig ${signed(key, field(rotation, "sign"))}`))
    // The name is a key's now: its verifier is no longer kept (on the filesystem store, its file is gone).
    const secretsDir = join(dataDir, "gate-secrets")
    if (existsSync(secretsDir)) expect((await readdir(secretsDir)).filter((f) => f.endsWith("-gate-carol"))).toEqual([])
    expect(await later.send("whoami")).toEqual(["name gate-carol", `ok key ${key.kid}`])
    later.close()
    const again = await GateConnection.open(tlsPort, true)
    expect(lastLine(await again.send(`login gate-carol ${SECRET}`))).toMatch(/^err login_failed /)
    again.close()

    const name = await (await fetch(`${server.baseUrl}/v2/names/gate-carol`)).json() as Record<string, unknown>
    expect([name["tier"], name["kid"]]).toEqual(["key", key.kid])
    const posts = await (await fetch(`${server.baseUrl}/v2/agora/posts?channel=general`)).json() as { posts: Array<Record<string, unknown>> }
    expect(posts.posts.find((p) => p["index"] === written["secretPost2"])).toMatchObject({ name: "gate-carol", text: "back again" })
  })

  it("lets a secret-bound name post at most 10 times a minute", async () => {
    const flooder = await GateConnection.open(tlsPort, true)
    acceptedIndex(await flooder.send(`claim gate-flood secret ${SECRET}`))
    for (let i = 0; i < 10; i++) acceptedIndex(await flooder.send(`post flood ${i}`))
    expect(lastLine(await flooder.send("post flood 10"))).toMatch(/^err rate_limited /)
    flooder.close()
  })

  it("refuses secrets on plaintext TCP, on GET /t and on plain HTTP POST", async () => {
    const plain = await GateConnection.open(gatePort, false)
    expect(lastLine(await plain.send(`claim gate-dave secret ${SECRET}`))).toMatch(/^err tls_required /)
    // The reply names the TLS port this instance opened, not docs/spec/service.md's 7700.
    expect(lastLine(await plain.send(`login gate-carol ${SECRET}`)))
      .toBe(`err tls_required secrets travel only over TLS: TCP port ${tlsPort} or POST /t over HTTPS; a secret this line carried has crossed in the clear: ` +
        "treat it as known to others (for a new claim choose another; for a name bound to it, log in over TLS and upgrade to a key)")
    plain.close()

    expect((await getGate(server.baseUrl, `claim gate-dave secret ${SECRET}`)).text).toMatch(/^session \S+\nerr post_required /)
    expect((await getGate(server.baseUrl, `login gate-carol ${SECRET}`)).text).toMatch(/\nerr post_required /)
    expect(lastLine((await postGate(server.baseUrl, [`claim gate-dave secret ${SECRET}`])).lines)).toMatch(/^err tls_required /)
    // A proxy that says the request came over plain HTTP is believed.
    const forwarded = await postGate(server.baseUrl, [`login gate-carol ${SECRET}`], undefined, { "x-forwarded-proto": "http" })
    expect(lastLine(forwarded.lines)).toMatch(/^err tls_required /)
    expect((await fetch(`${server.baseUrl}/v2/names/gate-dave`)).status).toBe(404)
  })

  it("answers err post_required to content writes on GET /t, and takes reads and the proof of possession", async () => {
    const opened = await getGate(server.baseUrl, "post general hello")
    expect(opened.status).toBe(200)
    expect(opened.headers.get("cache-control")).toBe("no-store")
    expect(opened.text).toMatch(/^session \S+\nerr post_required /)
    // A reader's session is kept (apart from those that hold an identity), so `s` works as help says.
    const reader = /^session (\S+)\n/.exec(opened.text)![1]!
    expect((await getGate(server.baseUrl, "whoami", reader)).text).toBe("ok anonymous\n")
    expect((await getGate(server.baseUrl, "checkpoint", reader)).text).toMatch(/^\{.*\n+ok checkpoint \d+\n$/s)

    const key = Ed25519Key.random()
    const challenged = await getGate(server.baseUrl, `identify ${key.kid}`)
    let session = /^session (\S+)\n/.exec(challenged.text)![1]!
    expect((await getGate(server.baseUrl, '{"envelope":{},"body":null}', session)).text).toMatch(/^err post_required /)
    expect((await getGate(server.baseUrl, "sig AAAA", session)).text).toMatch(/^err post_required /)
    const proved = await getGate(server.baseUrl, `prove ${signed(key, field(challenged.text.split("\n"), "challenge"))}`, session)
    expect(proved.text).toMatch(new RegExp(`ok key ${key.kid}\\n$`))
    session = sessionOf(proved.text.split("\n"))
    expect((await getGate(server.baseUrl, `claim gate-erin ${randomX25519()}`, session)).text).toMatch(/^err post_required /)

    const name = (await getGate(server.baseUrl, "name gate-alice", session)).text.split("\n")
    expect(JSON.parse(name[0]!)).toMatchObject({ name: "gate-alice", tier: "key" })
    expect(name[1]).toBe("ok name gate-alice")
    const checkpoint = (await getGate(server.baseUrl, "checkpoint", session)).text.split("\n")
    expect(checkpoint[1]).toMatch(/^ok checkpoint \d+$/)
    const entry = (await getGate(server.baseUrl, "entry 0", session)).text.split("\n")
    expect(JSON.parse(entry[0]!).envelope.type).toBe("charter")
  })

  it("keeps a session across POSTs and starts a new one for an unknown id", async () => {
    const key = Ed25519Key.random()
    const first = await postGate(server.baseUrl, [`identify ${key.kid}`])
    const session = field(first.lines, "session")
    const second = await postGate(server.baseUrl, [`prove ${signed(key, field(first.lines, "challenge"))}`, "whoami"], session)
    expect(second.lines).toEqual([
      `session ${sessionOf(second.lines)}`,
      "expect claim <name> <your X25519 public key, U64>  |  post <channel> <text>",
      `ok key ${key.kid}`,
      `ok key ${key.kid}`
    ])
    const unknown = await postGate(server.baseUrl, ["whoami"], "no-such-session")
    expect(field(unknown.lines, "session")).not.toBe(session)
    expect(lastLine(unknown.lines)).toBe("ok anonymous")
  })

  it("holds its limits: s over 64, l over 1048576, an over-long TCP line", async () => {
    const longS = await getGate(server.baseUrl, "help", "s".repeat(65))
    expect(longS.status).toBe(422)
    expect(JSON.parse(longS.text).errors[0].path).toBe("s")
    const longL = await getGate(server.baseUrl, `login gate-carol ${SECRET}${"a".repeat(1_048_577)}`)
    expect(longL.status).toBe(422)
    expect(JSON.parse(longL.text).errors[0].path).toBe("l")
    // The problem names the limit in fixed words: never the value, nor a secret in it.
    expect(longL.text).not.toContain(SECRET)
    expect(longL.text.length).toBeLessThan(1000)
    expect(JSON.parse(longL.text).errors[0].message).toBe("one string of at most 1048576 characters")
    const twoS = await fetch(`${server.baseUrl}/t?s=${SECRET}&s=${SECRET}`)
    expect(twoS.status).toBe(422)
    expect(await twoS.text()).not.toContain(SECRET)
    expect((await getGate(server.baseUrl, "help", "s".repeat(64))).status).toBe(200)
    const spec = await (await fetch(`${server.baseUrl}/openapi.json`)).json() as { paths: Record<string, any> }
    expect(spec.paths["/t"].get.responses["422"]).toBeDefined()
    expect(spec.paths["/t"].post).toBeDefined()

    const gate = await GateConnection.open(gatePort, false)
    gate.socket.write("x".repeat(300 * 1024))
    expect(lastLine(await gate.until((l) => l.startsWith("err ")))).toMatch(/^err line_too_long /)
    await gate.until(() => false, 2000).catch(() => undefined)
    expect(gate.closed).toBe(true)
  })

  it("over TCP answers an empty line, a session line and HTTP, proves inclusion, and says how to renew a stale envelope", async () => {
    const gate = await GateConnection.open(gatePort, false)
    expect(await gate.send("")).toEqual(["err usage an empty line is no command; send help"])
    expect(lastLine(await gate.send("session abc"))).toMatch(/^err session_not_resumable a TCP session is its connection .*POST \/t/)

    // The inclusion proof of leaf 0, as /v2/tlog/inclusion answers it, verifies against the checkpoint's root.
    const checkpoint = JSON.parse((await gate.send("checkpoint"))[0]!) as { tree_size: number; root_hash: string }
    const proof = await gate.send(`proof 0 ${checkpoint.tree_size}`)
    expect(lastLine(proof)).toBe(`ok proof 0 ${checkpoint.tree_size}`)
    const answer = JSON.parse(proof[0]!) as { index: number; size: number; hashes: Array<string> }
    expect(answer).toEqual(await (await fetch(`${server.baseUrl}/v2/tlog/inclusion?index=0&size=${checkpoint.tree_size}`)).json())
    const leaf = (await gate.send("entry 0"))[0]!
    const hasher = makeTreeHasher(sha256)
    expect(verifyInclusion(hasher, 0, answer.size, hasher.leafHash(utf8(leaf)), answer.hashes.map((h) => decodeB64(h)!), decodeB64(checkpoint.root_hash)!)).toBe(true)
    expect(lastLine(await gate.send("proof 0"))).toMatch(/^ok proof 0 \d+$/)
    expect(lastLine(await gate.send(`proof 0 ${checkpoint.tree_size + 1_000_000}`))).toMatch(/^err size_out_of_range /)

    // One key on two connections: the chain moves under the first one's prepared envelope.
    const key = Ed25519Key.random()
    const other = await GateConnection.open(gatePort, false)
    for (const connection of [gate, other]) {
      const challenge = await connection.send(`identify ${key.kid}`)
      expect(lastLine(await connection.send(`prove ${signed(key, field(challenge, "challenge"))}`))).toBe(`ok key ${key.kid}`)
    }
    const stale = await gate.send("post general prepared first")
    acceptedIndex(await other.send(`sig ${signed(key, field(await other.send("post general prepared second"), "sign"))}`))
    expect(lastLine(await gate.send(`sig ${signed(key, field(stale, "sign"))}`))).toMatch(/^err seq_mismatch .*; send the command again to prepare it at the current seq/)
    other.close()

    // A bare CR ends no line, over TCP as over POST /t: `quit` after it is no second command,
    // and the one line, with its control character, is refused.
    expect(lastLine(await gate.send("whoami\rquit"))).toMatch(/^err usage a command is one line of text without control characters/)
    expect(gate.closed).toBe(false)
    expect(lastLine((await postGate(server.baseUrl, ["whoami\rquit"])).lines)).toMatch(/^err usage a command is one line of text without control characters/)

    // An HTTP client on the gate's port is told where HTTP is, and the connection closes.
    gate.socket.write("GET / HTTP/1.1\r\nHost: example\r\n\r\n")
    expect(lastLine(await gate.until((l) => l.startsWith("err ")))).toMatch(/^err not_http this port speaks the AICS-1 text gate .*HTTP is at http/)
    await gate.until(() => false, 2000).catch(() => undefined)
    expect(gate.closed).toBe(true)
  })

  it("wrote leaves that verify from the tiles, signed by the agent's key or, with as, by the policy key", async () => {
    const leaves = await leavesFromTiles(server.baseUrl, vkey, Math.max(...Object.values(written)) + 1)
    const policyKid = leaves[0]!.envelope["payload"]["policy_kid"]
    for (const index of Object.values(written)) expect(envelopeSignatureHolds(leaves[index]!.envelope as Envelope)).toBe(true)

    expect(leaves[written["keyClaim"]!]!.envelope).toMatchObject({ type: "claim", payload: { name: "gate-alice" } })
    expect(leaves[written["keyClaim"]!]!.envelope["kid"]).not.toBe(policyKid)
    expect(leaves[written["tcpPasted"]!]!.envelope).toMatchObject({ type: "post", seq: 1 })
    expect(leaves[written["secretClaim"]!]!.envelope).toMatchObject({ type: "claim", kid: policyKid, payload: { name: "gate-carol", as: "gate-carol" } })
    expect(leaves[written["secretPost"]!]!.envelope).toMatchObject({ type: "post", kid: policyKid, payload: { channel: "general", as: "gate-carol" } })
    expect(leaves[written["upgrade"]!]!.envelope).toMatchObject({ type: "key.rotate", kid: policyKid, payload: { name: "gate-carol", as: "gate-carol" } })
    // The secret never reaches the log.
    expect(JSON.stringify(leaves)).not.toContain(SECRET)
  })

  it("counts its events for the owner statistics: sessions and verbs per transport, nothing of the lines", async () => {
    const response = await signedGet(server, await ownerOf(server), "/v2/admin/stats?days=1")
    expect(response.status).toBe(200)
    const text = await response.text()
    const stats = JSON.parse(text) as { lists: { gate_events: Array<string> }; gate: { totals: { by_event: Record<string, number>; by_transport: Record<string, Record<string, number>> } } }
    expect(stats.lists.gate_events).toEqual(expect.arrayContaining(["session", "help", "claim_secret", "login", "post", "sig", "invalid", "refused"]))
    const { by_event: events, by_transport: transports } = stats.gate.totals
    // Every door was used by the tests above.
    for (const transport of ["http_get", "http_post", "tcp_plain", "tcp_tls"]) expect(transports[transport]!["session"], transport).toBeGreaterThan(0)
    expect(transports["tcp_tls"]!["claim_secret"]).toBeGreaterThanOrEqual(1)
    expect(transports["tcp_tls"]!["login"]).toBeGreaterThanOrEqual(1)
    expect(transports["tcp_plain"]!["login"]).toBeGreaterThanOrEqual(1) // refused there: tls_required
    expect(transports["http_get"]!["help"]).toBeGreaterThanOrEqual(1)
    expect(events["post"]).toBeGreaterThanOrEqual(2)
    expect(events["sig"]).toBeGreaterThanOrEqual(1)
    expect(events["invalid"]).toBeGreaterThanOrEqual(1) // the over-long line
    expect(events["refused"]).toBeGreaterThanOrEqual(3)
    expect(events["session"]).toBe(Object.values(transports).reduce((n, t) => n + t["session"]!, 0))
    // Aggregates only: no name, key, secret or session id of the sessions above.
    for (const needle of [SECRET, "gate-carol", "gate-alice", "did:key"]) expect(text).not.toContain(needle)
  })
})
