// The gate's `governance [did:key | name]` (docs/protocol.md 17.2, 12.6): a read of the views
// GET /v2/governance/freeze, /policy and /suspensions/{subject} serve, parsed with at most one
// subject, answered on every transport (GET /t too: it only reads), named by help beside the
// other reads, and counted in the owner statistics as its own verb. What it answers, against
// the routes' own answers, is test/adapters/http/governanceRoutes.test.ts's.

import { describe, expect, it } from "vitest"
import { parseCommand, USAGE } from "../../../src/domain/gate/command.js"
import { helpLines, newSession, step, type Transport } from "../../../src/domain/gate/session.js"
import { governanceSaid } from "../../../src/domain/governance/summary.js"
import { GATE_EVENTS, gateLineEvent } from "../../../src/domain/stats/gateEvents.js"
import { GovLog } from "../../support/governanceAgents.js"
import { gateFactsOf } from "../../support/gateFacts.js"
import { ORIGIN } from "../../support/identityAgents.js"

const PORTS = { tls: 17700, plaintext: 17701 }
const log = new GovLog()
const facts = () => gateFactsOf(log, PORTS)

describe("the gate's governance [did:key | name]", () => {
  it("parses as a read with an optional subject, as given (the app reads it as the route reads its path)", () => {
    expect(parseCommand("governance")).toEqual({ verb: "governance", subject: undefined })
    expect(parseCommand("GOVERNANCE\t@alice")).toEqual({ verb: "governance", subject: "@alice" })
    expect(parseCommand("governance did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"))
      .toEqual({ verb: "governance", subject: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK" })
    expect(parseCommand("governance alice bob")).toEqual({ code: "usage", detail: "governance [did:key | name]", secret: false })
    expect(USAGE["governance"]).toBe("governance [did:key | name]")
  })

  it("is a read on every transport, GET /t included", () => {
    const transports: ReadonlyArray<Transport> = [
      { tls: false, method: "GET" }, { tls: false, method: "POST" }, { tls: false, method: "tcp" }, { tls: true, method: "tcp" }
    ]
    for (const transport of transports) {
      for (const [line, subject] of [["governance", undefined], ["governance alice", "alice"]] as const) {
        const answered = step(newSession("s1", "plain"), line, transport, facts())
        expect(answered.effect, `${line} ${JSON.stringify(transport)}`).toEqual({ _tag: "Read", read: { verb: "governance", subject } })
        expect(answered.lines).toEqual([])
      }
    }
  })

  it("is named by help among the reads", () => {
    const help = helpLines(ORIGIN, { tls: false, method: "tcp" }, PORTS)
    expect(help).toContain("#   governance [did:key | name]: whether agent writes are frozen, the owner's policies in force and announced, and whether that key or name is suspended.")
  })

  it("is counted as its own gate event", () => {
    expect(gateLineEvent("governance alice")).toBe("governance")
    expect(GATE_EVENTS).toContain("governance")
  })

  it("says what the views say in the one line the MCP tools' summaries give", () => {
    expect(governanceSaid({ state: "open", frozen_index: null }, { pending: [] }, undefined)).toBe("agent writes open; 0 policies announced for later")
    expect(governanceSaid({ state: "frozen", frozen_index: 7 }, { pending: [{}] }, { subject: "alice", suspended: true, index: 9 }))
      .toBe("agent writes frozen by leaf 7; 1 policy announced for later; alice suspended by leaf 9")
    expect(governanceSaid({ state: "open", frozen_index: null }, { pending: [{}, {}] }, { subject: "bob", suspended: false, index: null }))
      .toBe("agent writes open; 2 policies announced for later; bob not suspended")
  })
})
