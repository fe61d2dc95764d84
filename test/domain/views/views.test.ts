// The identity and messaging views (docs/protocol.md section 10): their members, pages,
// handles and the governing grant rule.

import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { agentView } from "../../../src/domain/views/agentView.js"
import { ansLookup } from "../../../src/domain/views/ansLookup.js"
import { capsuleList } from "../../../src/domain/views/capsuleList.js"
import { capsuleSlot } from "../../../src/domain/views/capsuleSlot.js"
import { directoryView } from "../../../src/domain/views/directory.js"
import { grantsView } from "../../../src/domain/views/grantsView.js"
import { inboxStatus } from "../../../src/domain/views/inboxStatus.js"
import { inboxView } from "../../../src/domain/views/inboxView.js"
import { keyView } from "../../../src/domain/views/keyView.js"
import { nameView } from "../../../src/domain/views/nameView.js"
import {
  capsulePayload,
  ciphertext,
  claimPayload,
  dmPayload,
  INSTANCE_DOMAIN,
  makeAgent,
  PureLog,
  slotOf
} from "../../support/identityAgents.js"

let run = 0
const agents = (label: string, ...names: Array<string>) => names.map((n) => makeAgent(`views ${label} ${n}`))

describe("names, handles and the directory", () => {
  it("resolves a name, @name and @name.<instance_domain>, and nothing of another instance", () => {
    const log = new PureLog({ label: `v${++run}` })
    const [alice] = agents(`${run}`, "alice")
    log.accept(alice!, "claim", claimPayload("alice", alice!))
    for (const handle of ["alice", "@alice", `@alice.${INSTANCE_DOMAIN}`, "ALICE"]) {
      expect(Either.getOrThrow(ansLookup(log.state, handle))).toMatchObject({ handle, name: "alice", kid: alice!.kid, kid_index: 1, x25519_index: 1, recovery: null, recovery_index: null, size: 2 })
      expect(Either.getOrThrow(nameView(log.state, handle)).name).toBe("alice")
    }
    expect(ansLookup(log.state, "@alice.elsewhere.test")).toEqual(Either.left("handle_invalid"))
    expect(ansLookup(log.state, "bobby")).toEqual(Either.left("name_not_found"))
    expect(nameView(log.state, "a")).toEqual(Either.left("name_invalid"))
  })

  it("lists names in claim order, filtered by part of the name, at most limit, with tiers", () => {
    const log = new PureLog({ label: `v${++run}` })
    const names = ["carol", "alice", "alina", "bob"]
    const keys = agents(`${run}`, ...names)
    names.forEach((name, i) => log.accept(keys[i]!, "claim", claimPayload(name, keys[i]!)))
    const all = directoryView(log.state, { limit: 100 })
    expect(all.names.map((n) => n.name)).toEqual(names)
    expect(all.names.every((n) => n.tier === "key")).toBe(true)
    expect(all.truncated).toBe(false)
    expect(directoryView(log.state, { q: "AL", limit: 100 }).names.map((n) => n.name)).toEqual(["alice", "alina"])
    expect(directoryView(log.state, { q: "al", limit: 1 })).toMatchObject({ q: "al", names: [{ name: "alice", kid: keys[1]!.kid }], truncated: true })
    expect(directoryView(log.state, { q: "zzz", limit: 5 }).names).toEqual([])
  })
})

describe("keys", () => {
  it("pages a key's envelope chain with from, limit and next_from", () => {
    const log = new PureLog({ label: `v${++run}` })
    const [alice] = agents(`${run}`, "alice")
    const indexes = [log.accept(alice!, "claim", claimPayload("alice", alice!))]
    for (let i = 0; i < 4; i++) indexes.push(log.accept(alice!, "grant", { sender: "*", use: "dm" }))
    const first = Either.getOrThrow(keyView(log.state, alice!.kid, { from: 0, limit: 2 }))
    expect(first).toMatchObject({ name: "alice", tier: "key", current: true, seq: 4, head_index: indexes[4], indices: indexes.slice(0, 2), next_from: indexes[2], size: indexes[4]! + 1 })
    const rest = Either.getOrThrow(keyView(log.state, alice!.kid, { from: first.next_from!, limit: 10 }))
    expect(rest).toMatchObject({ indices: indexes.slice(2), next_from: null })
    expect(keyView(log.state, makeAgent("never seen").kid, { from: 0, limit: 1 })).toEqual(Either.left("key_not_found"))
  })
})

describe("inboxes", () => {
  const inboxLog = () => {
    const log = new PureLog({ label: `v${++run}` })
    const [bob, alice] = agents(`${run}`, "bob", "alice")
    const claim = log.accept(bob!, "claim", claimPayload("bob", bob!))
    const grant = log.accept(bob!, "grant", { sender: "*", use: "dm" })
    const dms: Array<number> = []
    for (let i = 0; i < 5; i++) {
      const { payload, body } = dmPayload(bob!.kid, grant, claim, ciphertext(`m${i}`))
      dms.push(log.accept(alice!, "dm", payload, body))
    }
    return { log, bob: bob!, alice: alice!, dms, grant }
  }

  it("pages messages by leaf index, with their grant and body status, no bodies", () => {
    const { log, bob, alice, dms, grant } = inboxLog()
    const page = inboxView(log.state, bob.kid, { from: 0, limit: 2 }, log.now)
    expect(page).toMatchObject({ kid: bob.kid, indices: dms.slice(0, 2), size: dms[1]! + 1, next_from: dms[2] })
    expect(page.messages[0]).toMatchObject({ index: dms[0], from: alice.kid, to: bob.kid, grant_index: grant, grant: { index: grant, sender: "*", in_force: true, uses: 5 }, body: { state: "available", policy_index: null } })
    const last = inboxView(log.state, bob.kid, { from: dms[3]!, limit: 10 }, log.now)
    expect(last).toMatchObject({ indices: dms.slice(3), next_from: null })
    expect(inboxView(log.state, alice.kid, { from: 0, limit: 10 }, log.now)).toMatchObject({ indices: [], size: 0, next_from: null })
  })

  it("ends a page before the message whose ciphertext would pass ctBytes, always keeping the first", () => {
    const { log, bob, dms } = inboxLog()
    // Each test ciphertext is 48 bytes: two fit in 100, a third would make 144.
    const cut = inboxView(log.state, bob.kid, { from: 0, limit: 10, ctBytes: 100 }, log.now)
    expect(cut).toMatchObject({ indices: dms.slice(0, 2), size: dms[1]! + 1, next_from: dms[2] })
    expect(cut.messages.map((m) => m.index)).toEqual(dms.slice(0, 2))
    expect(inboxView(log.state, bob.kid, { from: 0, limit: 10, ctBytes: 96 }, log.now).indices).toEqual(dms.slice(0, 2))
    // A budget smaller than one message still answers that message, so paging advances.
    expect(inboxView(log.state, bob.kid, { from: 0, limit: 10, ctBytes: 1 }, log.now)).toMatchObject({ indices: dms.slice(0, 1), next_from: dms[1] })
    // The limit still ends a page first when it is the smaller bound.
    expect(inboxView(log.state, bob.kid, { from: 0, limit: 1, ctBytes: 100 }, log.now)).toMatchObject({ indices: dms.slice(0, 1), next_from: dms[1] })
    const seen: Array<number> = []
    for (let from: number | null = 0; from !== null;) {
      const page = inboxView(log.state, bob.kid, { from, limit: 10, ctBytes: 100 }, log.now)
      seen.push(...page.indices)
      from = page.next_from
    }
    expect(seen).toEqual(dms)
  })

  it("counts unread messages after the read cursor, and pages only those with unreadOnly", () => {
    const { log, bob, dms } = inboxLog()
    expect(inboxStatus(log.state, bob.kid, null)).toEqual({ kid: bob.kid, unread: 5, total: 5, latest_index: dms[4] })
    expect(inboxStatus(log.state, bob.kid, dms[1]!)).toMatchObject({ unread: 3, total: 5 })
    expect(agentView(log.state, bob.kid, dms[4]!)).toEqual({ kid: bob.kid, name: "bob", tier: "key", inbox: { unread: 0, total: 5, latest_index: dms[4] } })
    expect(inboxView(log.state, bob.kid, { from: 0, limit: 10, unreadOnly: true, readThrough: dms[2]! }, log.now).indices).toEqual(dms.slice(3))
    expect(agentView(log.state, makeAgent("nobody").kid, null)).toEqual({ kid: makeAgent("nobody").kid, name: null, tier: null, inbox: { unread: 0, total: 0, latest_index: null } })
  })
})

describe("grants", () => {
  it("governing_index: the newest in force for the sender by name, else the newest * in force, else null", () => {
    const log = new PureLog({ label: `v${++run}` })
    const [bob, alice, carol] = agents(`${run}`, "bob", "alice", "carol")
    const star1 = log.accept(bob!, "grant", { sender: "*", use: "dm" })
    const star2 = log.accept(bob!, "grant", { sender: "*", use: "dm" })
    const forAlice1 = log.accept(bob!, "grant", { sender: alice!.kid, use: "dm" })
    const forAlice2 = log.accept(bob!, "grant", { sender: alice!.kid, use: "dm", until: Math.floor(log.now / 1000) + 5 })
    expect(grantsView(log.state, bob!.kid, alice!.kid, log.now)).toMatchObject({ sender: alice!.kid, governing_index: forAlice2, indices: [star1, star2, forAlice1, forAlice2] })
    expect(grantsView(log.state, bob!.kid, carol!.kid, log.now).governing_index).toBe(star2)
    // After forAlice2's until, forAlice1 governs; revoking it leaves the newest *.
    expect(grantsView(log.state, bob!.kid, alice!.kid, log.now + 5000).governing_index).toBe(forAlice1)
    log.accept(bob!, "grant.revoke", { grant_index: forAlice1 })
    log.accept(bob!, "grant.revoke", { grant_index: star2 })
    expect(grantsView(log.state, bob!.kid, alice!.kid, log.now + 5000).governing_index).toBe(star1)
    log.accept(bob!, "grant.revoke", { grant_index: star1 })
    expect(grantsView(log.state, bob!.kid, alice!.kid, log.now + 5000).governing_index).toBeNull()
    expect(grantsView(log.state, bob!.kid, undefined, log.now)).not.toHaveProperty("governing_index")
  })
})

describe("capsules", () => {
  it("lists a key's slots in order of first write, each with its current write", () => {
    const log = new PureLog({ label: `v${++run}` })
    const [alice, carol] = agents(`${run}`, "alice", "carol")
    const a = capsulePayload("a", ciphertext("a1"))
    const first = log.accept(alice!, "capsule", a.payload, a.body)
    const b = capsulePayload("b", ciphertext("b1"))
    const second = log.accept(alice!, "capsule", b.payload, b.body)
    const a2 = capsulePayload("a", ciphertext("a2"))
    const third = log.accept(alice!, "capsule", a2.payload, a2.body)
    const list = capsuleList(log.state, alice!.kid, log.now)
    expect(list.capsules.map((c) => [c.slot, c.index, c.writes])).toEqual([[slotOf("a"), third, [first, third]], [slotOf("b"), second, [second]]])
    expect(list).toMatchObject({ indices: [third, second], size: third + 1 })
    expect(capsuleList(log.state, carol!.kid, log.now).capsules).toEqual([])
    expect(capsuleSlot(log.state, slotOf("none"), log.now)).toEqual(Either.left("capsule_not_found"))
  })
})
