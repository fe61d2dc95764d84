// The text gate's pure step on the slice the app loads for each line (src/app/gateSlice.ts,
// domain/gate/gateReads.ts; issue 12) answers exactly as on the whole state: the same reply
// lines, session (prepared envelope included) and effect, for every verb that reads the
// state, in every kind of session (anonymous, a key with or without a name, a rotated-out
// key, a secret-bound name), with names, did:keys and leaf indexes that exist and that do
// not. The recipient of the DMs has more grants than the governing search reads at once,
// with the grant naming the sender far back, lapsed ones, a revoked one and a "*" one.

import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { gateStepSlice } from "../../src/app/gateSlice.js"
import { utf8 } from "../../src/domain/bytes.js"
import { encodeU64 } from "../../src/domain/encoding.js"
import { challengeText, type GateSession, newSession, step, type Transport } from "../../src/domain/gate/session.js"
import { payloadSignatureCheck } from "../../src/domain/identity/possession.js"
import type { LogState } from "../../src/domain/write/logState.js"
import { postItemsReads } from "../../src/domain/gate/gateReads.js"
import { postItem } from "../../src/domain/views/agoraPosts.js"
import { postPayload } from "../support/agents.js"
import { GovLog, makeAgent, pollPayload } from "../support/governanceAgents.js"
import { capsulePayload, ciphertext, claimPayload, ORIGIN, rotatePayload, slotOf, x25519Key } from "../support/identityAgents.js"
import { storeReader } from "../support/storeReader.js"

const TLS_POST: Transport = { tls: true, method: "POST" }
const verify = payloadSignatureCheck(nodeCrypto.ed25519)

describe("the text gate's step on a slice from the store", () => {
  it("answers every line as on the whole state", () => {
    const log = new GovLog({ label: "gate slice" })
    const agent = (name: string) => makeAgent(`gate slice ${name}`)
    const [alice, bob, carol, carol2, dave, bare] = ["alice", "bob", "carol", "carol2", "dave", "bare"].map(agent) as [
      ReturnType<typeof agent>, ReturnType<typeof agent>, ReturnType<typeof agent>, ReturnType<typeof agent>, ReturnType<typeof agent>, ReturnType<typeof agent>
    ]
    log.accept(alice, "claim", claimPayload("alice", alice))
    log.accept(bob, "claim", claimPayload("bob", bob))
    log.accept(carol, "claim", claimPayload("carol", carol))
    log.accept(carol, "key.rotate", rotatePayload("carol", carol2, carol.kid))
    // "sekrit" is secret-bound: the policy key signs for it, and it has no X25519 key.
    log.accept(dave, "claim", claimPayload("dave", dave))
    log.must(log.policyOp("claim", { name: "sekrit", as: "sekrit" }))
    // bob's grants: one naming alice far back, then many others, some lapsing, one "*" revoked.
    const named = log.accept(bob, "grant", { sender: alice.kid, use: "dm" })
    const star = log.accept(bob, "grant", { sender: "*", use: "dm" })
    for (let i = 0; i < 150; i++) log.accept(bob, "grant", { sender: makeAgent(`gate slice sender ${i}`).kid, use: "dm", until: Math.floor(log.now / 1000) + 5 + i })
    const revoked = log.accept(bob, "grant", { sender: "*", use: "dm" })
    log.accept(bob, "grant.revoke", { grant_index: revoked })
    log.accept(alice, "grant", { sender: "*", use: "dm", limit: 1 })
    log.accept(alice, "key.x25519", { name: "alice", x25519: x25519Key("gate slice alice 2") })
    const slot = capsulePayload("alice notes", ciphertext("gate slice notes"))
    log.accept(alice, "capsule", slot.payload, slot.body)
    const poll = pollPayload("when?", ["mon", "tue"], log.seconds + 3600)
    const pollIndex = log.accept(bob, "poll", poll.payload, poll.body)
    log.accept(alice, "vote", { poll_index: pollIndex, option: 0 })

    const reader = storeReader(log.sliced.store)
    const key = (kid: string): GateSession => ({ ...newSession("s", "tls"), identity: { tier: "key", kid } })
    const sessions: ReadonlyArray<GateSession> = [
      newSession("s", "tls"),
      key(alice.kid), key(bob.kid), key(carol.kid), key(carol2.kid), key(dave.kid), key(bare.kid),
      { ...newSession("s", "tls"), identity: { tier: "secret", name: "sekrit" } },
      { ...newSession("s", "tls"), identity: { tier: "secret", name: "alice" } }
    ]
    const ct = encodeU64(ciphertext("gate slice dm", 64))
    const lines = [
      "whoami", "help", "checkpoint", "name alice", "key " + alice.kid, "posts", "directory al", `poll ${pollIndex}`,
      `claim alice ${x25519Key("c")}`, `claim newname ${x25519Key("c")}`, `claim Alice ${x25519Key("c")}`,
      "claim alice secret correct-horse-battery-staple", "claim fresh secret correct-horse-battery-staple",
      "login sekrit correct-horse-battery-staple",
      `upgrade ${bare.kid} correct-horse-battery-staple`,
      `x25519 ${x25519Key("x")}`,
      "grant *", "grant alice limit=2", "grant sekrit", "grant nobody", `grant ${carol.kid}`,
      `revoke ${named}`, `revoke ${star}`, `revoke ${revoked}`, "revoke 1",
      "dm bob", `dm bob ${ct}`, "dm alice", `dm ${bob.kid}`, `dm ${carol.kid}`, `dm ${carol2.kid}`, "dm carol", "dm dave", "dm sekrit", "dm nobody",
      `capsule ${slotOf("alice notes")}`, `capsule ${slotOf("alice notes")} ${ct}`, `capsule ${slotOf("new")}`, `capsule ${slotOf("new")} ${ct}`,
      `vote ${pollIndex} 1`, `vote ${pollIndex} 5`, `vote ${named} 0`, "poll-create general +60 when | a | b",
      "post general hello", "inbox", "inbox 3", "capsules", "sig " + encodeU64(new Uint8Array(64)), "prove x", "bogus line"
    ]
    const facts = (state: LogState, now: number, fresh: string) => ({
      now, fresh, origin: ORIGIN, gatePorts: { tls: 17700, plaintext: 17701 }, log: state, sha256: nodeCrypto.sha256, verify
    })
    let checked = 0
    for (const now of [log.now, log.now + 60_000, log.now + 400_000]) {
      for (const session of sessions) {
        for (const line of lines) {
          const fresh = encodeU64(nodeCrypto.sha256(utf8(`fresh ${checked++}`)).subarray(0, 16))
          const slice = Effect.runSync(gateStepSlice(reader, session, line, now))
          const whole = step(session, line, TLS_POST, facts(log.state, now, fresh))
          expect(step(session, line, TLS_POST, facts(slice, now, fresh)), `${JSON.stringify(session.identity)} ${line}`).toEqual(whole)
        }
      }
    }
    // prove reads the key's name for its expect line (claim only for a key without one).
    for (const who of [alice, bare]) {
      const text = challengeText(ORIGIN, who.kid, "s", "fresh", Math.floor(log.now / 1000) + 300)
      const session: GateSession = { ...newSession("s", "tls"), challenge: { kid: who.kid, text, expires: Math.floor(log.now / 1000) + 300 } }
      const line = `prove ${encodeU64(nodeCrypto.ed25519.sign(who.seed, utf8(text)))}`
      const slice = Effect.runSync(gateStepSlice(reader, session, line, log.now))
      const whole = step(session, line, TLS_POST, facts(log.state, log.now, "f"))
      expect(step(session, line, TLS_POST, facts(slice, log.now, "f"))).toEqual(whole)
      expect(whole.lines[0]!.startsWith("expect claim ")).toBe(who === bare)
    }
    // The DMs to bob read the grants: the named one governs alice's, a "*" one the others'.
    const alicesDm = step(key(alice.kid), "dm bob", TLS_POST, facts(Effect.runSync(gateStepSlice(reader, key(alice.kid), "dm bob", log.now)), log.now, "f"))
    expect(alicesDm.lines.find((l) => l.startsWith("hpke "))).toContain(`"grant_index":${named}`)
    const davesDm = step(key(dave.kid), "dm bob", TLS_POST, facts(Effect.runSync(gateStepSlice(reader, key(dave.kid), "dm bob", log.now)), log.now, "f"))
    expect(davesDm.lines.find((l) => l.startsWith("hpke "))).toContain(`"grant_index":${star}`)
  })

  it("shows the posts of the posts read from the rows it names", () => {
    const log = new GovLog({ label: "gate slice posts" })
    const [alice, alice2, bare] = ["alice", "alice2", "bare"].map((n) => makeAgent(`gate slice posts ${n}`)) as [
      ReturnType<typeof makeAgent>, ReturnType<typeof makeAgent>, ReturnType<typeof makeAgent>
    ]
    const post = (who: typeof alice, text: string) => {
      const p = postPayload(text)
      return log.accept(who, "post", p.payload, p.body)
    }
    const early = post(alice, "before my name")
    log.accept(alice, "claim", claimPayload("alice", alice))
    const named = post(alice, "with my name")
    log.accept(alice, "key.rotate", rotatePayload("alice", alice2, alice.kid))
    const rotated = post(alice2, "from my new key")
    const hidden = post(bare, "spam")
    log.must(log.ownerOp("tombstone", { target_index: hidden, reason_code: "spam" }))
    log.must(log.policyOp("claim", { name: "sekrit", as: "sekrit" }))
    const text = postPayload("a secret-bound post")
    const secret = log.must(log.submitAs(["policy"], log.policy, "post", { ...text.payload, as: "sekrit" }, text.body))
    const reader = storeReader(log.sliced.store)
    for (const index of [early, named, rotated, hidden, secret]) {
      const slice = Effect.runSync(reader.sliceFor(postItemsReads([index])))
      expect(postItem(slice, index, log.now)).toEqual(postItem(log.state, index, log.now))
    }
  })
})
