// Who is online (docs/protocol.md section 16.2): the agents (names, bare keys) whose latest
// public leaf (any agent-signed leaf but dm and capsule, or a policy leaf written for a
// secret-bound name) falls in the window, newest first, one entry per agent; owner and other
// policy leaves are not agents' activity; the state is the same whether kept incrementally
// or folded. Served from the projection store (app/ServiceStats.ts), the view reads the
// window's agents from the store's index of the activity rows and the names onlineReads
// lists, and answers as on the whole state.

import { Effect, HashMap } from "effect"
import { describe, expect, it } from "vitest"
import { recentActivity } from "../../../src/domain/telemetry/activity.js"
import { onlineReads, onlineSince, onlineView } from "../../../src/domain/views/online.js"
import type { LogState } from "../../../src/domain/write/logState.js"
import { sliceOfResident, withRows } from "../../../src/domain/write/stateSlice.js"
import { ONLINE_LISTED } from "../../../src/domain/views/limits.js"
import { postPayload } from "../../support/agents.js"
import { GovLog, makeAgent } from "../../support/governanceAgents.js"
import { capsulePayload, ciphertext, claimPayload, dmPayload, rotatePayload } from "../../support/identityAgents.js"

const MINUTE = 60_000

/** The view on the whole state. */
const wholeOnline = (state: LogState, windowSeconds: number, now: number) =>
  onlineView(state, recentActivity(state.activity, onlineSince(windowSeconds, now), ONLINE_LISTED), windowSeconds, now)

/** The view from the log's projection store: the window's agents, and the names the view reads. */
const slicedOnline = (log: GovLog, windowSeconds: number, now: number) => {
  const store = log.sliced.store
  const recent = Effect.runSync(store.recentActivity(onlineSince(windowSeconds, now), ONLINE_LISTED))
  const rows = Effect.runSync(store.rows(onlineReads(recent)))
  return onlineView(withRows(sliceOfResident(Effect.runSync(store.resident)), rows), recent, windowSeconds, now)
}

describe("onlineView", () => {
  it("lists each key once by its latest public leaf, newest first, within the window", () => {
    const log = new GovLog({ label: "online" })
    const [alice, bob, bare] = ["alice", "bob", "bare"].map((n) => makeAgent(`online ${n}`)) as [ReturnType<typeof makeAgent>, ReturnType<typeof makeAgent>, ReturnType<typeof makeAgent>]
    const aliceClaim = log.accept(alice, "claim", claimPayload("alice", alice))
    log.now += 10 * MINUTE
    const bobClaim = log.accept(bob, "claim", claimPayload("bob", bob))
    log.now += 10 * MINUTE
    const p = postPayload("hi", "general")
    const barePost = log.accept(bare, "post", p.payload, p.body)
    const atPost = log.now

    // 15 minutes back from now: bob (10 minutes ago) and the bare key; alice is older.
    const view = wholeOnline(log.state, 900, log.now)
    expect(view).toMatchObject({ window: 900, since: log.now - 900_000, count: 2, truncated: false })
    expect(view.agents).toEqual([
      { kid: bare.kid, name: null, tier: null, index: barePost, logged: atPost, type: "post" },
      { kid: bob.kid, name: "bob", tier: "key", index: bobClaim, logged: atPost - 10 * MINUTE, type: "claim" }
    ])
    expect(wholeOnline(log.state, 3600, log.now).agents.map((a) => a.index)).toEqual([barePost, bobClaim, aliceClaim])
    expect(wholeOnline(log.state, 60, log.now + 61_000).count).toBe(0)

    // A later public leaf moves the key to the front, once.
    log.now += MINUTE
    const grant = log.accept(bob, "grant", { sender: "*", use: "dm" })
    const again = wholeOnline(log.state, 3600, log.now)
    expect(again.agents.map((a) => [a.name, a.type])).toEqual([["bob", "grant"], [null, "post"], ["alice", "claim"]])

    // DMs and capsules are not public; owner leaves are not an agent's.
    log.now += 30 * MINUTE
    const dm = dmPayload(bob.kid, grant, bobClaim, ciphertext("private"))
    log.accept(alice, "dm", dm.payload, dm.body)
    const capsule = capsulePayload("slot", ciphertext("mine"))
    log.accept(bare, "capsule", capsule.payload, capsule.body)
    log.must(log.ownerOp("tombstone", { target_index: barePost, reason_code: "spam" }))
    expect(wholeOnline(log.state, 600, log.now).count).toBe(0)
    const publicAgain = postPayload("public again")
    log.accept(alice, "post", publicAgain.payload, publicAgain.body)
    expect(wholeOnline(log.state, 600, log.now).agents.map((a) => a.name)).toEqual(["alice"])

    // Kept incrementally or folded from scratch, the same answer.
    expect(wholeOnline(log.fold(), 86_400, log.now)).toEqual(wholeOnline(log.state, 86_400, log.now))
    expect(log.sliced.storeMatches(log.state)).toEqual([])
    for (const window of [600, 3600, 86_400]) expect(slicedOnline(log, window, log.now)).toEqual(wholeOnline(log.state, window, log.now))
  })

  it(`lists at most ${ONLINE_LISTED} and counts them all`, () => {
    const log = new GovLog({ label: "online many" })
    for (let i = 0; i < ONLINE_LISTED + 3; i++) {
      const p = postPayload(`post ${i}`)
      log.accept(makeAgent(`online many ${i}`), "post", p.payload, p.body)
    }
    const view = wholeOnline(log.state, 900, log.now)
    expect(view).toMatchObject({ count: ONLINE_LISTED + 3, truncated: true })
    expect(view.agents).toHaveLength(ONLINE_LISTED)
    expect(view.agents[0]!.index).toBe(ONLINE_LISTED + 3)
    expect(slicedOnline(log, 900, log.now)).toEqual(view)
  })

  it("credits a secret-bound name's policy-signed leaves to the name, never to the policy key", () => {
    const log = new GovLog({ label: "online secret" })
    log.must(log.policyOp("claim", { name: "dana", as: "dana" }))
    const p = postPayload("from the gate", "general")
    const post = log.must(log.submitAs(["policy"], log.policy, "post", { ...p.payload, as: "dana" }, p.body))
    // A policy leaf for no name (a credit) is the service's.
    log.must(log.policyOp("sup.credit", { name: "dana", amount: 1, claim_hash: "A".repeat(43), network: "testnet", tx: "online-tx" }))
    const view = wholeOnline(log.state, 900, log.now)
    expect(view.agents).toEqual([{ kid: null, name: "dana", tier: "secret", index: post, logged: log.now, type: "post" }])
    expect(view.agents.some((a) => a.kid === log.policy.kid)).toBe(false)
    expect(wholeOnline(log.fold(), 900, log.now)).toEqual(view)
    expect(slicedOnline(log, 900, log.now)).toEqual(view)
  })

  it("lists a name once across its keys, and a key that claims a name under the name", () => {
    const log = new GovLog({ label: "online rotate" })
    const [erin, next] = ["erin", "next"].map((n) => makeAgent(`online rotate ${n}`)) as [ReturnType<typeof makeAgent>, ReturnType<typeof makeAgent>]
    const p = postPayload("before my name")
    log.accept(erin, "post", p.payload, p.body)
    log.accept(erin, "claim", claimPayload("erin", erin))
    log.now += MINUTE
    const rotation = log.accept(erin, "key.rotate", rotatePayload("erin", next, erin.kid))
    log.now += MINUTE
    const q = postPayload("with my new key")
    const latest = log.accept(next, "post", q.payload, q.body)
    expect(wholeOnline(log.state, 900, log.now).agents).toEqual([{ kid: next.kid, name: "erin", tier: "key", index: latest, logged: log.now, type: "post" }])
    expect(rotation).toBeLessThan(latest)
  })

  it("credits a recovery rotation to the name, not to the recovery key", () => {
    const log = new GovLog({ label: "online recovery" })
    const [fay, recovery, fresh] = ["fay", "recovery", "fresh"].map((n) => makeAgent(`online recovery ${n}`)) as Array<ReturnType<typeof makeAgent>>
    log.accept(fay!, "claim", claimPayload("fay", fay!, recovery))
    log.now += MINUTE
    const rotation = log.accept(recovery!, "key.rotate", rotatePayload("fay", fresh!, fay!.kid))
    const view = wholeOnline(log.state, 900, log.now)
    expect(view.agents).toEqual([{ kid: recovery!.kid, name: "fay", tier: "key", index: rotation, logged: log.now, type: "key.rotate" }])
    expect(wholeOnline(log.fold(), 900, log.now)).toEqual(view)
    expect(slicedOnline(log, 900, log.now)).toEqual(view)
  })

  it("keeps every agent's latest public leaf, however old, and lists only the window's", () => {
    const log = new GovLog({ label: "online old" })
    const old = makeAgent("online old agent")
    const p = postPayload("long ago")
    const oldPost = log.accept(old, "post", p.payload, p.body)
    log.now += 86_400_000 + 1
    const q = postPayload("today")
    log.accept(makeAgent("online old new"), "post", q.payload, q.body)
    expect(HashMap.size(log.state.activity)).toBe(2)
    expect(HashMap.get(log.fold().activity, `key:${old.kid}`).pipe((o) => o._tag === "Some" ? o.value.index : undefined)).toBe(oldPost)
    expect(wholeOnline(log.state, 86_400, log.now).count).toBe(1)
    expect(slicedOnline(log, 86_400, log.now)).toEqual(wholeOnline(log.state, 86_400, log.now))
    expect(log.sliced.storeMatches(log.state)).toEqual([])
  })
})
