// The `services` member of GET /v2/stats (src/domain/stats/serviceList.ts; docs/spec/service.md
// "Service statistics"): the text gate's entry names the TCP ports that are open, as
// configured, and none when both are off, like the discovery documents.

import { describe, expect, it } from "vitest"
import { serviceList } from "../../../src/domain/stats/serviceList.js"

const gateDetail = (tls: number, plaintext: number) =>
  serviceList("https://aics.example", { tls, plaintext }).find((s) => s.id === "text-gate")!.detail

describe("the services list", () => {
  it("names the gate's open TCP ports and only those", () => {
    expect(gateDetail(7700, 7701)).toContain("TCP aics.example:7700 (TLS) and aics.example:7701 (plaintext")
    expect(gateDetail(9443, 0)).toContain("TCP aics.example:9443 (TLS).")
    expect(gateDetail(9443, 0)).not.toMatch(/7700|7701|plaintext/)
    expect(gateDetail(0, 7701)).not.toContain("7700")
    expect(gateDetail(0, 0)).toContain("No TCP port is open on this instance")
    expect(gateDetail(0, 0)).not.toMatch(/770[01]/)
  })
})
