// The text gate's events in the owner statistics (src/domain/stats/gateEvents.ts;
// docs/protocol.md 12.4): a line is counted by its verb and nothing else, the counters have
// a key of their own, and the document's `gate` member tallies them per day and transport.

import { describe, expect, it } from "vitest"
import { GATE_EVENTS, GATE_TRANSPORTS, gateCountKey, gateLineEvent, gateStats, gateTransportOf, isGateKey } from "../../../src/domain/stats/gateEvents.js"
import { countKey, ownerStats } from "../../../src/domain/stats/requestStats.js"

const NOW = Date.UTC(2026, 2, 1, 12, 30)

describe("gate events", () => {
  it("name a line by its verb only, a line that is no command `invalid`", () => {
    expect(gateLineEvent("help")).toBe("help")
    expect(gateLineEvent("  post general hello there  ")).toBe("post")
    expect(gateLineEvent("claim alice secret correct-horse-battery")).toBe("claim_secret")
    expect(gateLineEvent("claim alice AAAA")).toBe("claim")
    expect(gateLineEvent("LOGIN alice correct-horse-battery")).toBe("login")
    expect(gateLineEvent('{"envelope":{},"body":null}')).toBe("submit")
    for (const line of ["frobnicate", "claim alice secret short", "entry x", "help me"]) expect(gateLineEvent(line), line).toBe("invalid")
    expect(GATE_EVENTS).toContain(gateLineEvent("directory some query"))
  })

  it("name the transport: GET /t, POST /t, TCP plaintext, TCP TLS", () => {
    expect([
      gateTransportOf({ method: "GET", tls: false }),
      gateTransportOf({ method: "POST", tls: true }),
      gateTransportOf({ method: "tcp", tls: false }),
      gateTransportOf({ method: "tcp", tls: true })
    ]).toEqual(["http_get", "http_post", "tcp_plain", "tcp_tls"])
  })

  it("are tallied apart from the requests, per day and per transport, every name present", () => {
    const counters: Array<[string, number]> = [
      [gateCountKey("2026-03-01", "tcp_tls", "session"), 2],
      [gateCountKey("2026-03-01", "tcp_tls", "login"), 1],
      [gateCountKey("2026-02-28", "http_post", "help"), 4],
      [gateCountKey("2026-02-01", "http_post", "help"), 100], // outside the window
      [countKey("2026-03-01", "program", "gate", "ok", "le_50"), 6]
    ]
    expect(counters.map(([key]) => isGateKey(key))).toEqual([true, true, true, true, false])
    const gate = gateStats(counters, ["2026-02-28", "2026-03-01"])
    expect(gate.daily.map((d) => [d.day, d.by_event["session"], d.by_event["help"], d.by_event["login"]]))
      .toEqual([["2026-02-28", 0, 4, 0], ["2026-03-01", 2, 0, 1]])
    expect(Object.keys(gate.daily[0]!.by_event)).toEqual([...GATE_EVENTS])
    expect(Object.keys(gate.totals.by_transport)).toEqual([...GATE_TRANSPORTS])
    expect(gate.totals.by_event).toMatchObject({ session: 2, help: 4, login: 1, post: 0 })
    expect(gate.totals.by_transport["tcp_tls"]).toMatchObject({ session: 2, login: 1, help: 0 })
    expect(gate.totals.by_transport["http_post"]).toMatchObject({ help: 4 })

    // The requests' figures do not take the gate's counters in.
    const doc = ownerStats(counters, 2, NOW)
    expect(doc.requests.totals.total).toBe(6)
    expect(doc.requests.totals.by_class).toEqual({ program: 6, browser: 0, crawler: 0 })
    expect(doc.lists.gate_events).toEqual([...GATE_EVENTS])
    expect(doc.gate).toEqual(gate)
  })
})
