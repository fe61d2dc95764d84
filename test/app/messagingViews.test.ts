// The identity, messaging and SUP views read from the projection store (src/app/identityViews.ts,
// messagingViews.ts, supViews.ts; issue 12) answer the same bytes as the views on the whole
// state: every key's envelopes and every inbox from every leaf index they hold (and around
// them) with several page sizes, byte budgets and read cursors, every key's grants with
// every sender, capsules, SUP accounts and totals. The store is the one the pure log built
// from slices (log.sliced.store); JSON text is compared, so the members' order counts.
// Random logs mix claims, rotations, grants and their revocations, DMs, capsules, posts and
// SUP credits; a long log has lists longer than the reads' pages (the grants' search and
// whole-list reads cross page ends, the inbox's search runs over many positions).

import { Chunk, Effect } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { keyViewFrom, ownAgentViewFrom } from "../../src/app/identityViews.js"
import { capsuleListFrom, capsuleSlotFrom, governingGrantsFrom, grantsViewFrom, inboxStatusFrom, inboxViewFrom, messageAt } from "../../src/app/messagingViews.js"
import { supAccountFrom, supOverviewFrom } from "../../src/app/supViews.js"
import { withRecipientGrants } from "../../src/domain/gate/gateReads.js"
import { currentNameOf, nameRecordOf } from "../../src/domain/identity/bindings.js"
import { governingGrant } from "../../src/domain/messaging/grants.js"
import { balanceOf } from "../../src/domain/sup/ledger.js"
import { agentView } from "../../src/domain/views/agentView.js"
import { capsuleList } from "../../src/domain/views/capsuleList.js"
import { capsuleSlot } from "../../src/domain/views/capsuleSlot.js"
import { grantsView } from "../../src/domain/views/grantsView.js"
import { inboxOf, inboxStatus } from "../../src/domain/views/inboxStatus.js"
import { inboxView } from "../../src/domain/views/inboxView.js"
import { keyView } from "../../src/domain/views/keyView.js"
import { supAccountOf, supOverview } from "../../src/domain/views/supOverview.js"
import { keyRecordOf } from "../../src/domain/write/logState.js"
import { postPayload } from "../support/agents.js"
import { GovLog, hashOf, makeAgent, type TestAgent } from "../support/governanceAgents.js"
import { capsulePayload, ciphertext, claimPayload, dmPayload, INSTANCE_DOMAIN, rotatePayload, slotOf, x25519Key } from "../support/identityAgents.js"
import { storeReader } from "../support/storeReader.js"

const json = (value: unknown) => JSON.stringify(value)
const read = <A>(effect: Effect.Effect<A, unknown>): A => Effect.runSync(effect)
const NAMES = ["alice", "bob", "carol"] as const
const SLOTS = ["s0", "s1", "s2"] as const
const ASSET = { hash: "asset-hash", url: "https://sup.test/v2/sup/asset" }

/** A log being written, with the agents that signed in it (rotated keys stay listed). */
class Scene {
  readonly log: GovLog
  readonly agents: Array<TestAgent> = []
  private counter = 0

  constructor(readonly label: string) {
    this.log = new GovLog({ label })
  }

  agent(tag: string): TestAgent {
    const agent = makeAgent(`${this.label} ${tag} ${this.counter++}`)
    this.agents.push(agent)
    return agent
  }

  /** A DM from `from` to the name `to` acts for, citing the governing grant; false when none governs. */
  dm(from: TestAgent, to: TestAgent): boolean {
    const state = this.log.state
    const name = currentNameOf(state, to.kid)
    const record = name === undefined ? undefined : nameRecordOf(state, name)
    const grant = governingGrant(state, to.kid, from.kid, Math.max(this.log.now, state.lastLogged))
    if (record === undefined || record.x25519Index === null || grant === null || from.kid === to.kid) return false
    const { payload, body } = dmPayload(to.kid, grant, record.x25519Index, ciphertext(`${this.label} dm ${this.counter++}`, 48 + (this.counter % 5) * 16))
    this.log.accept(from, "dm", payload, body)
    return true
  }

  credit(name: string, amount: number): void {
    const id = `${this.label} credit ${this.counter++}`
    this.log.must(this.log.policyOp("sup.credit", { name, amount, claim_hash: hashOf(id), network: "testnet", tx: id.replace(/ /g, "-") }))
  }
}

/** Leaf indexes around each of these: the pages a client may start at. */
const around = (indexes: Iterable<number>): ReadonlyArray<number> => {
  const froms = new Set<number>([0, 1, 1_000_000])
  for (const i of indexes) for (const d of [-1, 0, 1]) if (i + d >= 0) froms.add(i + d)
  return [...froms]
}

/** Every view of the scene from the store, compared with the view on the whole state. */
const expectSameViews = (scene: Scene, limits: ReadonlyArray<number> = [1, 2, 5, 1000]) => {
  const { log } = scene
  const state = log.state
  const reader = storeReader(log.sliced.store)
  const unknown = makeAgent(`${scene.label} never seen`)
  for (const now of [log.now, log.now + 40_000, log.now + 91 * 86_400_000]) {
    for (const agent of [...scene.agents, unknown]) {
      const kid = agent.kid
      const envelopes = Chunk.toReadonlyArray(keyRecordOf(state, kid).envelopes)
      for (const from of around(envelopes)) {
        for (const limit of limits) {
          expect(json(read(keyViewFrom(reader, kid, { from, limit }))), `key ${from} ${limit}`).toBe(json(keyView(state, kid, { from, limit })))
        }
      }
      const messages = Chunk.toReadonlyArray(inboxOf(state, kid)).map((m) => m.index)
      const cursors = [null, ...around(messages)]
      for (const readThrough of cursors) {
        expect(json(read(inboxStatusFrom(reader, kid, readThrough)))).toBe(json(inboxStatus(state, kid, readThrough)))
        const whole = agentView(state, kid, readThrough)
        expect(json(read(ownAgentViewFrom(reader, kid, readThrough))))
          .toBe(json({ ...whole, balance: whole.name === null ? 0 : balanceOf(state.sup, whole.name) }))
      }
      for (const from of around(messages)) {
        for (const limit of limits) {
          for (const extra of [{}, { ctBytes: 100 }, { ctBytes: 1 }, { unreadOnly: true, readThrough: messages[1] ?? null }, { unreadOnly: true, readThrough: null }]) {
            const query = { from, limit, ...extra }
            expect(json(read(inboxViewFrom(reader, kid, query, now))), json(query)).toBe(json(inboxView(state, kid, query, now)))
          }
        }
        const found = Chunk.findFirst(inboxOf(state, kid), (m) => m.index === from)
        expect(json(read(messageAt(reader, kid, from)))).toBe(json(found._tag === "Some" ? found.value : undefined))
      }
      for (const sender of [undefined, "*", ...scene.agents.map((a) => a.kid)]) {
        expect(json(read(grantsViewFrom(reader, kid, sender, now)))).toBe(json(grantsView(state, kid, sender, now)))
        if (sender === undefined) continue
        // The gate's dm: the grants the search read are all governingGrant needs of the list.
        const slice = withRecipientGrants(read(reader.slice([])), kid, read(governingGrantsFrom(reader, kid, sender, now)))
        expect(governingGrant(slice, kid, sender, now)).toBe(governingGrant(state, kid, sender, now))
      }
      expect(json(read(capsuleListFrom(reader, kid, now)))).toBe(json(capsuleList(state, kid, now)))
    }
    for (const slot of [...SLOTS, "unused"].map(slotOf)) {
      expect(json(read(capsuleSlotFrom(reader, slot, now)))).toBe(json(capsuleSlot(state, slot, now)))
    }
  }
  for (const handle of [...NAMES, "@alice", `@bob.${INSTANCE_DOMAIN}`, "nobody", "not a name", "@carol.elsewhere.test"]) {
    expect(json(read(supAccountFrom(reader, handle))), handle).toBe(json(supAccountOf(state, handle)))
  }
  expect(json(read(supOverviewFrom(reader, ASSET)))).toBe(json(supOverview(state, ASSET)))
}

type Act =
  | { k: "grant"; a: number; sender: number | null; limit: number | null; until: number | null }
  | { k: "revoke"; a: number; pick: number }
  | { k: "dm"; a: number; to: number }
  | { k: "capsule"; a: number; slot: number }
  | { k: "rotate"; a: number }
  | { k: "x25519"; a: number }
  | { k: "post"; a: number }
  | { k: "credit"; name: number; amount: number }
  | { k: "tick"; ms: number }

const acts = (n: number): fc.Arbitrary<Act> => {
  const a = fc.nat({ max: n - 1 })
  return fc.oneof(
    { weight: 4, arbitrary: fc.record({ k: fc.constant("grant" as const), a, sender: fc.option(a, { nil: null }), limit: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }), until: fc.option(fc.integer({ min: 1, max: 60 }), { nil: null }) }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant("revoke" as const), a, pick: fc.nat({ max: 40 }) }) },
    { weight: 6, arbitrary: fc.record({ k: fc.constant("dm" as const), a, to: a }) },
    { weight: 2, arbitrary: fc.record({ k: fc.constant("capsule" as const), a, slot: fc.nat({ max: SLOTS.length - 1 }) }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant("rotate" as const), a }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant("x25519" as const), a }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant("post" as const), a }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant("credit" as const), name: fc.nat({ max: NAMES.length - 1 }), amount: fc.integer({ min: 1, max: 9 }) }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant("tick" as const), ms: fc.integer({ min: 0, max: 30_000 }) }) }
  )
}

let run = 0

/** Plays the acts; refused writes (a revoked grant revoked again, a slot of another key) are part of the mix. */
const play = (n: number, list: ReadonlyArray<Act>): Scene => {
  const scene = new Scene(`store messaging ${++run}`)
  const { log } = scene
  // The current key of each of the n participants; the first ones hold the names.
  const current = Array.from({ length: n }, (_, i) => scene.agent(`agent ${i}`))
  NAMES.slice(0, Math.min(n, NAMES.length)).forEach((name, i) => log.accept(current[i]!, "claim", claimPayload(name, current[i]!)))
  const grants: Array<number> = []
  for (const act of list) {
    switch (act.k) {
      case "grant": {
        const sender = act.sender === null ? "*" : current[act.sender]!.kid
        const until = act.until === null ? undefined : Math.floor(log.now / 1000) + act.until
        const outcome = log.submit(current[act.a]!, "grant", { sender, use: "dm", ...(act.limit === null ? {} : { limit: act.limit }), ...(until === undefined ? {} : { until }) })
        if (outcome.index !== undefined) grants.push(outcome.index)
        break
      }
      case "revoke":
        if (grants.length > 0) log.submit(current[act.a]!, "grant.revoke", { grant_index: grants[act.pick % grants.length]! })
        break
      case "dm":
        scene.dm(current[act.a]!, current[act.to]!)
        break
      case "capsule": {
        const { payload, body } = capsulePayload(SLOTS[act.slot]!, ciphertext(`${scene.label} capsule ${act.a} ${log.state.size}`))
        log.submit(current[act.a]!, "capsule", payload, body)
        break
      }
      case "rotate": {
        const holder = current[act.a]!
        const name = currentNameOf(log.state, holder.kid)
        if (name === undefined) break
        const next = scene.agent(`rotated ${act.a}`)
        log.accept(holder, "key.rotate", rotatePayload(name, next, holder.kid))
        current[act.a] = next
        break
      }
      case "x25519": {
        const holder = current[act.a]!
        const name = currentNameOf(log.state, holder.kid)
        if (name !== undefined) log.accept(holder, "key.x25519", { name, x25519: x25519Key(`${scene.label} ${log.state.size}`) })
        break
      }
      case "post": {
        const { payload, body } = postPayload(`${scene.label} post ${log.state.size}`)
        log.accept(current[act.a]!, "post", payload, body)
        break
      }
      case "credit":
        if (act.name < n) scene.credit(NAMES[act.name]!, act.amount)
        break
      case "tick":
        log.now += act.ms
        break
    }
  }
  return scene
}

describe("identity, messaging and SUP views from the projection store", () => {
  it("answer as the views on the whole state, for random logs", () => {
    const scenes = fc.integer({ min: 2, max: 5 }).chain((n) => fc.tuple(fc.constant(n), fc.array(acts(n), { minLength: 1, maxLength: 50 })))
    fc.assert(fc.property(scenes, ([n, list]) => {
      expectSameViews(play(n, list), [1, 3, 1000])
    }), { numRuns: 20 })
  })

  it("answer as the views on the whole state when the lists are longer than the reads' pages", () => {
    const scene = new Scene(`store messaging long ${++run}`)
    const { log } = scene
    const [alice, bob, carol] = [scene.agent("alice"), scene.agent("bob"), scene.agent("carol")] as [TestAgent, TestAgent, TestAgent]
    for (const [name, agent] of [["alice", alice], ["bob", bob], ["carol", carol]] as const) log.accept(agent, "claim", claimPayload(name, agent))
    // bob's grant naming alice is old: the governing search walks back over many "*" grants.
    log.accept(bob, "grant", { sender: alice.kid, use: "dm" })
    for (let i = 0; i < 530; i++) log.accept(bob, "grant", { sender: i % 7 === 0 ? "*" : makeAgent(`long sender ${i}`).kid, use: "dm", until: Math.floor(log.now / 1000) + 20 + i })
    for (let i = 0; i < 70; i++) expect(scene.dm(i % 2 === 0 ? alice : carol, bob)).toBe(true)
    scene.credit("bob", 3)
    for (let i = 0; i < 12; i++) scene.credit("alice", i + 1)
    expectSameViews(scene, [1, 7, 64])
  }, 120_000)
})
