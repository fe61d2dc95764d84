// Identity and messaging as a pure fold: random sequences of claim, key.rotate, key.x25519,
// grant, grant.revoke, dm, capsule and post envelopes from many keys, valid and not, with
// time passing. Checked against an independent model written here:
//   - every envelope is accepted exactly when the model says so; in particular no dm is
//     accepted without a grant in force, and after a rotation only the new key (or the
//     recovery key, while it never acted for a name itself) acts for the name;
//   - the incremental state equals a fold of the accepted leaves from scratch (every view);
//   - every name view equals what a scan of the tiles' entry bundles derives.

import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { DAY_MS } from "../../../src/domain/bodyStatus.js"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { foldEntry } from "../../../src/domain/write/applyEntry.js"
import { emptyLogState, type LogState } from "../../../src/domain/write/logState.js"
import { decodeEntryBundle, encodeEntryBundle } from "../../../src/domain/tlog/entryBundle.js"
import { agentView } from "../../../src/domain/views/agentView.js"
import { ansLookup } from "../../../src/domain/views/ansLookup.js"
import { capsuleList } from "../../../src/domain/views/capsuleList.js"
import { capsuleSlot } from "../../../src/domain/views/capsuleSlot.js"
import { directoryView } from "../../../src/domain/views/directory.js"
import { grantsView } from "../../../src/domain/views/grantsView.js"
import { inboxView } from "../../../src/domain/views/inboxView.js"
import { keyView } from "../../../src/domain/views/keyView.js"
import { nameView } from "../../../src/domain/views/nameView.js"
import {
  capsulePayload,
  ciphertext,
  claimPayload,
  dmPayload,
  makeAgent,
  PureLog,
  rotatePayload,
  slotOf,
  x25519Key,
  type TestAgent
} from "../../support/identityAgents.js"
import { postPayload } from "../../support/agents.js"

const NAMES = ["alice", "bob", "carol", "dave"] as const
const SLOTS = ["s0", "s1", "s2"] as const

type Act =
  | { k: "claim"; a: number; name: number; recovery: number | null }
  | { k: "rotate"; a: number; who: Who; name: number; to: number; proof: "good" | "own_prev" | "by_signer" }
  | { k: "x25519"; a: number; who: Who; name: number }
  | { k: "grant"; a: number; sender: number | null; limit: number | null; until: number | null }
  | { k: "revoke"; a: number; pick: number }
  | { k: "dm"; a: number; pick: number; live: boolean; toSigner: boolean; to: number; x: "current" | "claim" | "any"; any: number }
  | { k: "capsule"; a: number; slot: number }
  | { k: "post"; a: number }
  | { k: "tick"; ms: number }

/** Who signs a key event: the name's current key, its recovery key, or agent `a`. */
type Who = "current" | "recovery" | "agent"
const who = fc.constantFrom<Who>("current", "current", "recovery", "agent")

const acts = (n: number): fc.Arbitrary<Act> => {
  const a = fc.nat({ max: n - 1 })
  const name = fc.nat({ max: NAMES.length - 1 })
  return fc.oneof(
    { weight: 3, arbitrary: fc.record({ k: fc.constant("claim" as const), a, name, recovery: fc.option(a, { nil: null }) }) },
    { weight: 3, arbitrary: fc.record({ k: fc.constant("rotate" as const), a, who, name, to: a, proof: fc.constantFrom("good" as const, "good" as const, "own_prev" as const, "by_signer" as const) }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant("x25519" as const), a, who, name }) },
    { weight: 3, arbitrary: fc.record({ k: fc.constant("grant" as const), a, sender: fc.option(a, { nil: null }), limit: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }), until: fc.option(fc.integer({ min: 0, max: 40 }), { nil: null }) }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant("revoke" as const), a, pick: fc.nat({ max: 60 }) }) },
    { weight: 6, arbitrary: fc.record({ k: fc.constant("dm" as const), a, pick: fc.nat({ max: 60 }), live: fc.boolean(), toSigner: fc.boolean(), to: a, x: fc.constantFrom("current" as const, "current" as const, "claim" as const, "any" as const), any: fc.nat({ max: 80 }) }) },
    { weight: 2, arbitrary: fc.record({ k: fc.constant("capsule" as const), a, slot: fc.nat({ max: SLOTS.length - 1 }) }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant("post" as const), a }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant("tick" as const), ms: fc.integer({ min: 0, max: 20_000 }) }) }
  )
}

/** The independent model: plain maps, written from docs/spec/profile.md section 5 alone. */
interface Model {
  names: Map<string, { kid: string; recovery: string | null; x25519Index: number; x25519Indexes: Array<number>; claimIndex: number }>
  current: Map<string, string>
  boundEver: Set<string>
  grants: Map<number, { signer: string; sender: string; limit: number | null; until: number | null; uses: number; revoked: boolean }>
  slots: Map<string, string>
}

const grantAdmits = (m: Model, grantIndex: number, from: string, to: string, logged: number): boolean => {
  const g = m.grants.get(grantIndex)
  return g !== undefined && g.signer === to && (g.sender === "*" || g.sender === from) && !g.revoked &&
    (g.until === null || logged < g.until * 1000) && (g.limit === null || g.uses < g.limit)
}

/** Name views as an auditor derives them from the tiles' entry bundles, sharing no code with the views. */
const scanNameViews = (bundles: ReadonlyArray<Uint8Array>) => {
  const decoder = new TextDecoder("utf-8", { fatal: true })
  const names = new Map<string, any>()
  // The leaf that first bound each key to a name: a recovery key bound so stands no more.
  const bound = new Map<string, number>()
  const bind = (kid: string, index: number) => {
    if (!bound.has(kid)) bound.set(kid, index)
  }
  for (const bundle of bundles) {
    for (const bytes of decodeEntryBundle(bundle)!) {
      const { envelope, index, logged } = JSON.parse(decoder.decode(bytes))
      const p = envelope.payload
      if (envelope.type === "claim") bind(envelope.kid, index)
      if (envelope.type === "key.rotate") bind(p.new_kid, index)
      if (envelope.type === "claim") {
        names.set(p.name, {
          name: p.name, tier: "key", kid: envelope.kid, kid_index: index, recovery: p.recovery ?? null,
          recovery_index: p.recovery === undefined ? null : index, x25519: p.x25519, x25519_index: index, claim_index: index,
          events: [{ type: "claim", index, logged, signer: envelope.kid, kid: envelope.kid, x25519: p.x25519, recovery: p.recovery ?? null }]
        })
      } else if (envelope.type === "key.rotate") {
        const view = names.get(p.name)
        view.events.push({ type: "key.rotate", index, logged, signer: envelope.kid, prev_kid: view.kid, kid: p.new_kid })
        view.kid = p.new_kid
        view.kid_index = index
      } else if (envelope.type === "key.x25519") {
        const view = names.get(p.name)
        view.events.push({ type: "key.x25519", index, logged, signer: envelope.kid, x25519: p.x25519 })
        view.x25519 = p.x25519
        view.x25519_index = index
      }
    }
  }
  for (const view of names.values()) {
    view.indices = view.events.map((e: { index: number }) => e.index)
    view.recovery_stands = view.recovery === null ? null : !bound.has(view.recovery)
    view.recovery_bound_index = view.recovery === null ? null : bound.get(view.recovery) ?? null
    view.size = Math.max(view.indices[view.indices.length - 1], view.recovery_bound_index ?? -1) + 1
  }
  return names
}

/** Every view of every key, name and slot the run could have touched. */
const allViews = (state: LogState, agents: ReadonlyArray<TestAgent>, now: number) => ({
  size: state.size,
  lastLogged: state.lastLogged,
  directory: directoryView(state, { limit: 500 }),
  names: NAMES.map((n) => [nameView(state, n), ansLookup(state, `@${n}`)]),
  keys: agents.map((a) => ({
    key: keyView(state, a.kid, { from: 0, limit: 10_000 }),
    agent: agentView(state, a.kid, null),
    inbox: inboxView(state, a.kid, { from: 0, limit: 10_000 }, now),
    grants: agents.map((s) => grantsView(state, a.kid, s.kid, now)),
    capsules: capsuleList(state, a.kid, now)
  })),
  slots: SLOTS.map((s) => capsuleSlot(state, slotOf(s), now))
})

let run = 0

/** The agent that signs: for key events, the name's current or recovery key when asked. */
const signerOf = (act: Exclude<Act, { k: "tick" }>, m: Model, agents: ReadonlyArray<TestAgent>): TestAgent => {
  if ((act.k === "rotate" || act.k === "x25519") && act.who !== "agent") {
    const record = m.names.get(NAMES[act.name]!)
    const kid = act.who === "current" ? record?.kid : record?.recovery
    const found = agents.find((x) => x.kid === kid)
    if (found !== undefined) return found
  }
  return agents[act.a]!
}

describe("identity and messaging as a fold", () => {
  it("accepts exactly what the model allows, and the incremental state is the fold of the tiles", () => {
    // n agents, the first ones (up to one per name) claiming a name first, with a recovery
    // key or not; then the random actions. Rotations often target keys that hold no name.
    const run_ = fc.integer({ min: 2, max: 8 }).chain((n) => fc.tuple(
      fc.constant(n),
      fc.array(fc.option(fc.nat({ max: n - 1 }), { nil: null }), { minLength: NAMES.length, maxLength: NAMES.length }),
      fc.array(acts(n), { minLength: 1, maxLength: 80, size: "max" })
    ))
    fc.assert(fc.property(run_, ([n, recoveries, randomActs]) => {
      const label = `fold-${++run}`
      const log = new PureLog({ label })
      const agents = Array.from({ length: n }, (_, i) => makeAgent(`${label} ${i}`))
      const m: Model = { names: new Map(), current: new Map(), boundEver: new Set(), grants: new Map(), slots: new Map() }
      let counter = 0
      const prelude: Array<Act> = NAMES.slice(0, Math.max(1, n - 2)).map((_, i) => ({ k: "claim", a: i, name: i, recovery: recoveries[i]! }))
      const actions = [...prelude, ...randomActs]

      for (const act of actions) {
        if (act.k === "tick") {
          log.now += act.ms
          continue
        }
        const agent = signerOf(act, m, agents)
        const kid = agent.kid
        const logged = Math.max(log.now, log.state.lastLogged)
        let expected: boolean
        let submit: () => ReturnType<PureLog["submit"]>
        let onAccept: (index: number) => void = () => {}
        switch (act.k) {
          case "claim": {
            const name = NAMES[act.name]!
            const recovery = act.recovery === null ? undefined : agents[act.recovery]!
            // Neither the claiming key nor the recovery key may hold or have held a name.
            expected = !m.names.has(name) && !m.boundEver.has(kid) && recovery?.kid !== kid && (recovery === undefined || !m.boundEver.has(recovery.kid))
            submit = () => log.submit(agent, "claim", claimPayload(name, agent, recovery))
            onAccept = (index) => {
              m.names.set(name, { kid, recovery: recovery?.kid ?? null, x25519Index: index, x25519Indexes: [index], claimIndex: index })
              m.current.set(kid, name)
              m.boundEver.add(kid)
            }
            break
          }
          case "rotate": {
            const name = NAMES[act.name]!
            const record = m.names.get(name)
            const next = agents[act.to]!
            const prevKid = act.proof === "own_prev" ? kid : record?.kid ?? kid
            const payload = act.proof === "by_signer"
              ? { ...rotatePayload(name, next, prevKid), new_sig: rotatePayload(name, agent, prevKid).new_sig }
              : rotatePayload(name, next, prevKid)
            const proofValid = record !== undefined && prevKid === record.kid && (act.proof !== "by_signer" || next.kid === kid)
            // The recovery key rotates only while it has never acted for a name itself.
            expected = record !== undefined && (kid === record.kid || (kid === record.recovery && !m.boundEver.has(kid))) &&
              !m.boundEver.has(next.kid) && next.kid !== record.recovery && proofValid
            submit = () => log.submit(agent, "key.rotate", payload)
            onAccept = () => {
              // Only the current key or the recovery key ever rotates a name.
              expect([record!.kid, record!.recovery]).toContain(kid)
              const old = record!.kid
              m.current.delete(old)
              m.current.set(next.kid, name)
              m.boundEver.add(next.kid)
              record!.kid = next.kid
              // The old key can no longer act for the name (refusals leave no trace).
              const oldAgent = agents.find((x) => x.kid === old)!
              expect(log.submit(oldAgent, "key.x25519", { name, x25519: x25519Key("old") }).refused).toBe("not_authorized")
              if (oldAgent.kid !== record!.recovery) {
                expect(log.submit(oldAgent, "key.rotate", rotatePayload(name, makeAgent(`${label} fresh ${counter++}`), next.kid)).refused).toBe("not_authorized")
              }
            }
            break
          }
          case "x25519": {
            const name = NAMES[act.name]!
            const record = m.names.get(name)
            expected = record !== undefined && record.kid === kid
            submit = () => log.submit(agent, "key.x25519", { name, x25519: x25519Key(`${label} ${counter++}`) })
            onAccept = (index) => {
              expect(kid).toBe(record!.kid)
              record!.x25519Index = index
              record!.x25519Indexes.push(index)
            }
            break
          }
          case "grant": {
            const sender = act.sender === null ? "*" : agents[act.sender]!.kid
            const until = act.until === null ? null : Math.floor(log.now / 1000) + act.until
            expected = until === null || logged < until * 1000
            submit = () => log.submit(agent, "grant", {
              sender, use: "dm", ...(act.limit === null ? {} : { limit: act.limit }), ...(until === null ? {} : { until })
            })
            onAccept = (index) => m.grants.set(index, { signer: kid, sender, limit: act.limit, until, uses: 0, revoked: false })
            break
          }
          case "revoke": {
            const indexes = [...m.grants.keys()]
            const target = indexes.length === 0 || act.pick % 7 === 6 ? 0 : indexes[act.pick % indexes.length]!
            const g = m.grants.get(target)
            expected = g !== undefined && g.signer === kid && !g.revoked
            submit = () => log.submit(agent, "grant.revoke", { grant_index: target })
            onAccept = () => {
              g!.revoked = true
            }
            break
          }
          case "dm": {
            const live = [...m.grants].filter(([, g]) => m.current.has(g.signer)).map(([i]) => i)
            const indexes = act.live && live.length > 0 ? live : [...m.grants.keys()]
            const grantIndex = indexes.length === 0 || act.pick % 9 === 8 ? 0 : indexes[act.pick % indexes.length]!
            const to = act.toSigner && m.grants.has(grantIndex) ? m.grants.get(grantIndex)!.signer : agents[act.to]!.kid
            const toName = m.current.get(to)
            const record = toName === undefined ? undefined : m.names.get(toName)
            const x25519Index = act.x === "current" ? record?.x25519Index ?? 1 : act.x === "claim" ? record?.claimIndex ?? 1 : act.any % (log.state.size + 1)
            const admitted = grantAdmits(m, grantIndex, kid, to, logged)
            expected = admitted && record !== undefined && x25519Index === record.x25519Index
            const { payload, body } = dmPayload(to, grantIndex, x25519Index, ciphertext(`${label} dm ${counter++}`))
            submit = () => log.submit(agent, "dm", payload, body)
            onAccept = () => {
              // No DM is ever accepted without a grant in force for it.
              expect(admitted).toBe(true)
              m.grants.get(grantIndex)!.uses++
            }
            break
          }
          case "capsule": {
            const slot = slotOf(SLOTS[act.slot]!)
            const owner = m.slots.get(slot)
            expected = owner === undefined || owner === kid
            const { payload, body } = capsulePayload(SLOTS[act.slot]!, ciphertext(`${label} capsule ${counter++}`))
            submit = () => log.submit(agent, "capsule", payload, body)
            onAccept = () => {
              m.slots.set(slot, kid)
            }
            break
          }
          case "post": {
            expected = true
            const { payload, body } = postPayload(`${label} post ${counter++}`)
            submit = () => log.submit(agent, "post", payload, body)
            break
          }
        }
        const before = log.state
        const outcome = submit()
        if (outcome.refused !== undefined) {
          expect(log.state).toBe(before)
          expect({ act, refused: outcome.refused, expected }).toMatchObject({ expected: false })
        } else {
          expect({ act, accepted: outcome.index, expected }).toMatchObject({ expected: true })
          onAccept(outcome.index)
        }
      }

      // The tiles: entry bundles of up to 256 leaves, as the publisher writes them.
      const bundles: Array<Uint8Array> = []
      for (let i = 0; i < log.leaves.length; i += 256) bundles.push(encodeEntryBundle(log.leaves.slice(i, i + 256)))
      let folded = emptyLogState
      for (const bundle of bundles) {
        for (const bytes of decodeEntryBundle(bundle)!) folded = Either.getOrThrow(foldEntry(nodeCrypto.sha256, folded, bytes))
      }
      for (const now of [log.now, log.now + 91 * DAY_MS]) expect(allViews(folded, agents, now)).toEqual(allViews(log.state, agents, now))
      // The store the same decisions built on slices holds the state, row by row (issue 12).
      expect(log.sliced.storeMatches(log.state)).toEqual([])

      // Every name view equals what the scan of the tiles derives, and no other name exists.
      const scanned = scanNameViews(bundles)
      expect(directoryView(log.state, { limit: 500 }).names.map((e) => e.name).sort()).toEqual([...scanned.keys()].sort())
      for (const [name, view] of scanned) expect(Either.getOrThrow(nameView(log.state, name))).toEqual(view)
    }), { numRuns: 150 })
  })
})
