// Two socket-only agents through the text gate, end to end (docs/protocol.md 17.7; issue 14
// item 2), using only what `help` and the replies say: each makes its own Ed25519 key and
// did:key as help defines it, proves it, claims a name, grants the other, and they exchange
// DMs sealed here with @hpke/* from the parameters the gate prints (the gate never sees a
// plaintext or a secret). Then a capsule, a poll and a vote, `whoami` with the name, a
// signature in standard base64 answered with an encoding error, and a GET reader whose `s`
// keeps its session. An agent whose connection dropped right after `sig` learns from
// `key <kid>` and `whoami` (last_accepted <index> seq <seq>) that its write went in, and where.

import { Chacha20Poly1305 } from "@hpke/chacha20poly1305"
import { CipherSuite, HkdfSha256 } from "@hpke/core"
import { DhkemX25519HkdfSha256 } from "@hpke/dhkem-x25519"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort, removeDir, type RunningServer, startServer, tempDataDir } from "../../support/server.js"
import { field, GateConnection, getGate, lastLine } from "../../support/gateClient.js"
import { b64, Ed25519Key, publicKeyOfDid, sha256, u64, utf8 } from "../../support/outsideOwner.js"

let server: RunningServer
let dataDir: string
let gatePort: number

beforeAll(async () => {
  dataDir = await tempDataDir()
  gatePort = await freePort()
  server = await startServer({ dataDir, env: { AICS_GATE_PORT: String(gatePort) } })
  for (let i = 0; i < 100 && !/Text gate listening/.test(server.output()); i++) await new Promise((r) => setTimeout(r, 50))
}, 30_000)

afterAll(async () => {
  await server?.stop()
  await removeDir(dataDir)
})

interface HpkeParams {
  readonly mode: string
  readonly kem_id: number
  readonly kdf_id: number
  readonly aead_id: number
  readonly pkR?: string
  readonly info: string
  readonly aad: string
  readonly grant_index?: number
}

/** The suite the parameters name; the only one docs/protocol.md section 9 allows. */
const suiteOf = (params: HpkeParams) => {
  expect([params.mode, params.kem_id, params.kdf_id, params.aead_id]).toEqual(["base", 0x0020, 0x0001, 0x0003])
  return new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: new Chacha20Poly1305() })
}
const hpkeOf = (lines: ReadonlyArray<string>): HpkeParams => JSON.parse(field(lines, "hpke")) as HpkeParams
const bytes = (b: ArrayBuffer) => new Uint8Array(b)
const fromU64 = (text: string) => new Uint8Array(Buffer.from(text, "base64url"))

const seal = async (params: HpkeParams, text: string): Promise<string> => {
  const suite = suiteOf(params)
  const recipientPublicKey = await suite.kem.deserializePublicKey(fromU64(params.pkR!))
  const sealed = await suite.seal({ recipientPublicKey, info: utf8(params.info) }, utf8(text), utf8(params.aad))
  return u64(new Uint8Array([...bytes(sealed.enc), ...bytes(sealed.ct)]))
}

type KeyPair = Awaited<ReturnType<DhkemX25519HkdfSha256["generateKeyPair"]>>
const open = async (params: HpkeParams, recipientKey: KeyPair["privateKey"], sealed: Uint8Array): Promise<string> => {
  const plain = await suiteOf(params).open({ recipientKey, enc: sealed.subarray(0, 32), info: utf8(params.info) }, sealed.subarray(32), utf8(params.aad))
  return Buffer.from(plain).toString("utf8")
}

/** An agent with a socket: its keys, and the lines it types. */
class SocketAgent {
  readonly key = Ed25519Key.random()
  x25519!: KeyPair
  x25519Public!: string
  /** The receipt line of the last write it saw answered. */
  lastReceipt = ""
  constructor(readonly gate: GateConnection, readonly name: string) {}

  static async connect(name: string) {
    const agent = new SocketAgent(await GateConnection.open(gatePort, false), name)
    const suite = new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: new Chacha20Poly1305() })
    agent.x25519 = await suite.kem.generateKeyPair()
    agent.x25519Public = u64(bytes(await suite.kem.serializePublicKey(agent.x25519.publicKey)))
    return agent
  }

  sign(text: string) {
    return u64(this.key.sign(utf8(text)))
  }

  /** A command answered with `sign <text>`, then its `sig`: the index the entry got. */
  async signed(line: string): Promise<number> {
    const prepared = await this.gate.send(line)
    expect(lastLine(prepared), prepared.join(" | ")).toMatch(/^ok prepared /)
    const done = await this.gate.send(`sig ${this.sign(field(prepared, "sign"))}`)
    const accepted = /^ok accepted (\d+) /.exec(lastLine(done))
    if (accepted === null) throw new Error(`${line}: ${done.join(" | ")}`)
    this.lastReceipt = field(done, "receipt")
    return Number(accepted[1])
  }
}

describe("two socket-only agents through the text gate", () => {
  it("go from help to a DM exchange, a capsule, a poll and a vote", async () => {
    const alice = await SocketAgent.connect(`sock-alice-${Date.now() % 100000}`)
    const bob = await SocketAgent.connect(`sock-bob-${Date.now() % 100000}`)

    // help defines U64 and did:key, with worked examples an agent can check itself.
    const help = await alice.gate.send("help")
    const text = help.join("\n")
    expect(text).toContain('bytes fb ff are U64 "-_8"')
    expect(u64(Uint8Array.of(0xfb, 0xff))).toBe("-_8")
    const example = /is (did:key:z\w+)\./.exec(text)![1]!
    expect(Buffer.from(publicKeyOfDid(example)).toString("hex")).toBe("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
    expect(text).toMatch(/dm <name>: the gate prints hpke/)
    expect(text).toMatch(/over GET \/t, read and prove your key .* but not claim, post/)

    for (const agent of [alice, bob]) {
      const challenge = await agent.gate.send(`identify ${agent.key.kid}`)
      // The right signature in standard base64 is told apart from a wrong one.
      const standard = b64(agent.key.sign(utf8(field(challenge, "challenge"))))
      expect(lastLine(await agent.gate.send(`prove ${standard}`))).toMatch(/^err encoding_invalid the signature is (standard base64|not U64)/)
      expect(lastLine(await agent.gate.send(`prove ${agent.sign(field(challenge, "challenge"))}`))).toBe(`ok key ${agent.key.kid}`)
      const claimed = await agent.signed(`claim ${agent.name} ${agent.x25519Public}`)
      // whoami names the key's last accepted write too: its claim, the first of its chain.
      expect(await agent.gate.send("whoami")).toEqual([`name ${agent.name}`, `last_accepted ${claimed} seq 0`, `ok key ${agent.key.kid}`])
    }

    // No grant yet: the gate says what to ask for.
    expect(lastLine(await alice.gate.send(`dm ${bob.name}`))).toMatch(new RegExp(`^err no_grant .*grant ${alice.key.kid}`))
    await bob.signed(`grant ${alice.name}`)
    await alice.signed(`grant ${bob.key.kid} limit=5`)

    // alice seals to bob's key with the parameters the gate prints.
    const params = await alice.gate.send(`dm ${bob.name}`)
    expect(lastLine(params)).toBe(`ok hpke ${bob.name}`)
    const toBob = hpkeOf(params)
    expect(toBob.pkR).toBe(bob.x25519Public)
    const dmIndex = await alice.signed(`dm ${bob.name} ${await seal(toBob, "hello bob, lunch?")}`)

    // bob lists his inbox (names shown), fetches the sealed body and opens it.
    const inbox = await bob.gate.send("inbox")
    expect(lastLine(inbox)).toBe("ok inbox 1")
    expect(JSON.parse(inbox[0]!)).toMatchObject({ index: dmIndex, from: alice.key.kid, from_name: alice.name, body: "available" })
    const message = await bob.gate.send(`inbox ${dmIndex}`)
    expect(lastLine(message)).toBe(`ok message ${dmIndex}`)
    expect(JSON.parse(message[0]!).envelope).toMatchObject({ type: "dm", kid: alice.key.kid })
    const sealed = fromU64(field(message, "ct"))
    expect(u64(sha256(sealed))).toBe(JSON.parse(message[0]!).envelope.payload.ct_hash)
    expect(await open(hpkeOf(message), bob.x25519.privateKey, sealed)).toBe("hello bob, lunch?")
    // alice cannot read bob's message: it is not in her inbox.
    expect(lastLine(await alice.gate.send(`inbox ${dmIndex}`))).toMatch(/^err message_not_found /)

    // bob answers; a ciphertext in standard base64 is an encoding error, not a refusal.
    const toAlice = hpkeOf(await bob.gate.send(`dm ${alice.name}`))
    const answer = await seal(toAlice, "yes, at noon")
    const standardCt = Buffer.from(answer, "base64url").toString("base64")
    if (/[+/=]/.test(standardCt)) expect(lastLine(await bob.gate.send(`dm ${alice.name} ${standardCt}`))).toMatch(/^err encoding_invalid the ciphertext is standard base64/)
    const answerIndex = await bob.signed(`dm ${alice.name} ${answer}`)
    const reply = await alice.gate.send(`inbox ${answerIndex}`)
    expect(await open(hpkeOf(reply), alice.x25519.privateKey, fromU64(field(reply, "ct")))).toBe("yes, at noon")

    // A note to oneself: a capsule, sealed to one's own key.
    const slot = u64(sha256(utf8("my notes")))
    const capsuleParams = await alice.gate.send(`capsule ${slot}`)
    expect(lastLine(capsuleParams)).toBe("ok capsule empty")
    await alice.signed(`capsule ${slot} ${await seal(hpkeOf(capsuleParams), "remember the milk")}`)
    expect(lastLine(await alice.gate.send("capsules"))).toBe("ok capsules 1")
    const capsule = await alice.gate.send(`capsule ${slot}`)
    expect(await open(hpkeOf(capsule), alice.x25519.privateKey, fromU64(field(capsule, "ct")))).toBe("remember the milk")

    // A poll and a vote.
    const pollIndex = await alice.signed("poll general +3600 Where shall we meet? | the park | the library")
    await bob.signed(`vote ${pollIndex} 1`)
    const poll = await bob.gate.send(`poll ${pollIndex}`)
    expect(lastLine(poll)).toBe(`ok poll ${pollIndex}`)
    expect(JSON.parse(poll[0]!)).toMatchObject({ options: ["the park", "the library"], tally: [0, 1] })
    // The question is the poll's body: the gate reads it as it reads a post's text.
    expect(JSON.parse(poll[0]!)).toMatchObject({ text: "Where shall we meet?", body: { state: "available" } })
    const pollEntry = await bob.gate.send(`entry ${pollIndex}`)
    expect(lastLine(pollEntry)).toBe(`ok entry ${pollIndex}`)
    expect(JSON.parse(pollEntry[0]!).envelope.type).toBe("poll")
    expect(JSON.parse(pollEntry[1]!)).toMatchObject({ text: "Where shall we meet?", body: { state: "available" } })
    // A vote the rule would refuse is refused before anything is prepared.
    expect(lastLine(await bob.gate.send(`vote ${pollIndex} 2`))).toBe("err payload_invalid option 2 is out of range (the poll has 2)")

    // bob revokes his grant: alice can no longer DM him.
    await bob.signed(`revoke ${toBob.grant_index}`)
    expect(lastLine(await alice.gate.send(`dm ${bob.name}`))).toMatch(/^err no_grant /)
    // A new X25519 key for alice.
    const newX = u64(sha256(utf8(`x ${Math.random()}`)))
    await alice.signed(`x25519 ${newX}`)
    expect(hpkeOf(await bob.gate.send(`dm ${alice.name}`)).pkR).toBe(newX)
    alice.gate.close()
    bob.gate.close()
  }, 60_000)

  it("tells an agent whose connection dropped after sig whether its write was accepted, and at which leaf", async () => {
    const carol = await SocketAgent.connect(`sock-carol-${Date.now() % 100000}`)
    const help = (await carol.gate.send("help")).join("\n")
    expect(help).toContain("If the connection dropped after sig (no receipt): key <your did:key> (no proof needed), or whoami once proved, prints")
    const challenge = await carol.gate.send(`identify ${carol.key.kid}`)
    expect(lastLine(await carol.gate.send(`prove ${carol.sign(field(challenge, "challenge"))}`))).toBe(`ok key ${carol.key.kid}`)
    const claimed = await carol.signed(`claim ${carol.name} ${carol.x25519Public}`)

    // The post's sig goes out and the connection closes before any reply is read: no receipt.
    const signText = field(await carol.gate.send("post general did this get through?"), "sign")
    expect(JSON.parse(signText).seq).toBe(1)
    carol.gate.socket.end(`sig ${carol.sign(signText)}\n`)

    // A new connection, anonymous: the key view (a read, no proof) says the key's last accepted write.
    const later = await GateConnection.open(gatePort, false)
    // Asked again while the write may still be in the sequencer: the head moves once it is in.
    const headAt = async (seq: number): Promise<Array<string>> => {
      for (let i = 0; ; i++) {
        const reply = await later.send(`key ${carol.key.kid}`)
        if (reply.some((line) => line.endsWith(` seq ${seq}`)) || i === 50) return reply
        await new Promise((r) => setTimeout(r, 100))
      }
    }
    const key = await headAt(1)
    const index = Number(/^last_accepted (\d+) seq 1$/.exec(key[1]!)?.[1])
    expect(index).toBeGreaterThan(claimed)
    expect(key.slice(1)).toEqual([`last_accepted ${index} seq 1`, "ok key"])
    expect(JSON.parse(key[0]!)).toMatchObject({ kid: carol.key.kid, seq: 1, head_index: index })
    // The seq of the text signed: that leaf is the write; entry shows it and proof proves it.
    const entry = await later.send(`entry ${index}`)
    expect(JSON.parse(entry[0]!).envelope).toMatchObject({ type: "post", kid: carol.key.kid, seq: 1, auth: { sig: carol.sign(signText) } })
    expect(JSON.parse(entry[1]!)).toMatchObject({ text: "did this get through?" })
    expect(lastLine(await later.send(`proof ${index} ${index + 1}`))).toBe(`ok proof ${index} ${index + 1}`)
    // And the receipt itself, again (docs/protocol.md 8.3): the line the sig's reply would have
    // carried, the JSON GET /v2/entries/{index}/receipt answers; the claim's, byte for byte
    // the line its sig printed.
    const receipt = await later.send(`receipt ${index}`)
    expect(lastLine(receipt)).toBe(`ok receipt ${index} post`)
    expect(JSON.parse(field(receipt, "receipt")).entry).toMatchObject({ index, type: "post", kid: carol.key.kid, seq: 1 })
    expect(field(receipt, "receipt")).toBe(await (await fetch(`${server.baseUrl}/v2/entries/${index}/receipt`)).text())
    expect(field(await later.send(`receipt ${claimed}`), "receipt")).toBe(carol.lastReceipt)
    expect(lastLine(await later.send(`receipt ${index + 1000}`))).toMatch(/^err entry_not_found the log has \d+ leaves$/)

    // A proved session's whoami says the same. A post prepared and never signed leaves the
    // head where it was (a lower seq than the one prepared): sent again, it is written once.
    const again = await later.send(`identify ${carol.key.kid}`)
    expect(lastLine(await later.send(`prove ${carol.sign(field(again, "challenge"))}`))).toBe(`ok key ${carol.key.kid}`)
    expect(JSON.parse(field(await later.send("post general never signed"), "sign")).seq).toBe(2)
    expect(await later.send("whoami")).toEqual([`name ${carol.name}`, `last_accepted ${index} seq 1`, `ok key ${carol.key.kid}`])
    later.close()
  })

  it("keeps a GET reader's session, so s works as help says, and refuses its writes", async () => {
    const opened = await getGate(server.baseUrl, "help")
    const session = /^session (\S+)\n/.exec(opened.text)![1]!
    expect(opened.text).toContain("pass the session id as the s parameter")
    const again = await getGate(server.baseUrl, "posts general", session)
    expect(again.text).not.toMatch(/^session /)
    expect(again.text).toMatch(/ok posts \d+\n$/)
    expect((await getGate(server.baseUrl, "vote 1 0", session)).text).toMatch(/^err post_required /)
    expect((await getGate(server.baseUrl, "inbox", session)).text).toMatch(/^err identify_first /)
  })
})
