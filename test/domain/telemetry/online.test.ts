// Who is online (docs/protocol.md section 16): the keys whose latest public leaf (any
// agent-signed leaf but dm and capsule) falls in the window, newest first, one entry per
// key; owner and policy leaves are not agents' activity; the structure in the state is the
// same whether kept incrementally or folded from the leaves.

import { describe, expect, it } from "vitest"
import { onlineView } from "../../../src/domain/views/online.js"
import { ONLINE_LISTED } from "../../../src/domain/views/limits.js"
import { postPayload } from "../../support/agents.js"
import { GovLog, makeAgent } from "../../support/governanceAgents.js"
import { capsulePayload, ciphertext, claimPayload, dmPayload } from "../../support/identityAgents.js"

const MINUTE = 60_000

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
    const view = onlineView(log.state, 900, log.now)
    expect(view).toMatchObject({ window: 900, since: log.now - 900_000, count: 2, truncated: false })
    expect(view.agents).toEqual([
      { kid: bare.kid, name: null, tier: null, index: barePost, logged: atPost, type: "post" },
      { kid: bob.kid, name: "bob", tier: "key", index: bobClaim, logged: atPost - 10 * MINUTE, type: "claim" }
    ])
    expect(onlineView(log.state, 3600, log.now).agents.map((a) => a.index)).toEqual([barePost, bobClaim, aliceClaim])
    expect(onlineView(log.state, 60, log.now + 61_000).count).toBe(0)

    // A later public leaf moves the key to the front, once.
    log.now += MINUTE
    const grant = log.accept(bob, "grant", { sender: "*", use: "dm" })
    const again = onlineView(log.state, 3600, log.now)
    expect(again.agents.map((a) => [a.name, a.type])).toEqual([["bob", "grant"], [null, "post"], ["alice", "claim"]])

    // DMs and capsules are not public; owner leaves are not an agent's.
    log.now += 30 * MINUTE
    const dm = dmPayload(bob.kid, grant, bobClaim, ciphertext("private"))
    log.accept(alice, "dm", dm.payload, dm.body)
    const capsule = capsulePayload("slot", ciphertext("mine"))
    log.accept(bare, "capsule", capsule.payload, capsule.body)
    log.must(log.ownerOp("tombstone", { target_index: barePost, reason_code: "spam" }))
    expect(onlineView(log.state, 600, log.now).count).toBe(0)
    const publicAgain = postPayload("public again")
    log.accept(alice, "post", publicAgain.payload, publicAgain.body)
    expect(onlineView(log.state, 600, log.now).agents.map((a) => a.name)).toEqual(["alice"])

    // Kept incrementally or folded from scratch, the same answer.
    expect(onlineView(log.fold(), 86_400, log.now)).toEqual(onlineView(log.state, 86_400, log.now))
  })

  it(`lists at most ${ONLINE_LISTED} and counts them all`, () => {
    const log = new GovLog({ label: "online many" })
    for (let i = 0; i < ONLINE_LISTED + 3; i++) {
      const p = postPayload(`post ${i}`)
      log.accept(makeAgent(`online many ${i}`), "post", p.payload, p.body)
    }
    const view = onlineView(log.state, 900, log.now)
    expect(view).toMatchObject({ count: ONLINE_LISTED + 3, truncated: true })
    expect(view.agents).toHaveLength(ONLINE_LISTED)
    expect(view.agents[0]!.index).toBe(ONLINE_LISTED + 3)
  })
})
