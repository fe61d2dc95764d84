// The gate's `receipt <index>` (docs/protocol.md 17.2, 8.3): a read like `entry <index>`,
// parsed with its bounds, answered on every transport (GET /t too: it only reads), named
// by help beside the other reads and in the "connection dropped" paragraph, and counted in
// the owner statistics as its own verb.

import { describe, expect, it } from "vitest"
import { parseCommand, USAGE } from "../../../src/domain/gate/command.js"
import { helpLines, newSession, step, type Transport } from "../../../src/domain/gate/session.js"
import { GATE_EVENTS, gateLineEvent } from "../../../src/domain/stats/gateEvents.js"
import { GovLog } from "../../support/governanceAgents.js"
import { gateFactsOf } from "../../support/gateFacts.js"
import { ORIGIN } from "../../support/identityAgents.js"

const PORTS = { tls: 17700, plaintext: 17701 }
const log = new GovLog()
const facts = () => gateFactsOf(log, PORTS)

describe("the gate's receipt <index>", () => {
  it("parses as a read of one index, with the usage of entry's bounds", () => {
    expect(parseCommand("receipt 5")).toEqual({ verb: "receipt", index: 5 })
    expect(parseCommand("RECEIPT\t12")).toEqual({ verb: "receipt", index: 12 })
    for (const line of ["receipt", "receipt 007", "receipt -1", "receipt 1 2", "receipt x", `receipt ${2 ** 53}`]) {
      expect(parseCommand(line), line).toEqual({ code: "usage", detail: "receipt <index>", secret: false })
    }
    expect(USAGE["receipt"]).toBe("receipt <index>")
  })

  it("is a read on every transport, GET /t included", () => {
    const transports: ReadonlyArray<Transport> = [
      { tls: false, method: "GET" }, { tls: false, method: "POST" }, { tls: false, method: "tcp" }, { tls: true, method: "tcp" }
    ]
    for (const transport of transports) {
      const answered = step(newSession("s1", "plain"), "receipt 3", transport, facts())
      expect(answered.effect, JSON.stringify(transport)).toEqual({ _tag: "Read", read: { verb: "receipt", index: 3 } })
      expect(answered.lines).toEqual([])
    }
  })

  it("is named by help, beside the reads and for a connection that dropped after sig", () => {
    const help = helpLines(ORIGIN, { tls: false, method: "tcp" }, PORTS).join("\n")
    expect(help).toMatch(/^# Read: .*\| receipt <index> \|/m)
    expect(help).toContain("receipt <index> prints its receipt line again, the same signed bytes")
    expect(help).toContain("A refusal is in no leaf: its receipt cannot be fetched again.")
  })

  it("is counted as its own gate event", () => {
    expect(gateLineEvent("receipt 3")).toBe("receipt")
    expect(GATE_EVENTS).toContain("receipt")
  })
})
