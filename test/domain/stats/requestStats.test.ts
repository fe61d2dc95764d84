// The owner's request statistics as a pure function of counters (docs/protocol.md
// section 12): classes, groups, outcomes and latency buckets; a window of UTC days oldest
// first with today included; totals and by_group_outcome; nothing outside the window.

import { describe, expect, it } from "vitest"
import {
  accessClass, countKey, keepCounter, latencyBucket, oldestKeptDay, outcomeOf, ownerStats, routeGroup, utcDay, windowDays
} from "../../../src/domain/stats/requestStats.js"

const NOW = Date.UTC(2026, 2, 1, 12, 30) // 1 March 2026, 12:30 UTC

describe("request statistics", () => {
  it("classifies without keeping what it read", () => {
    expect(accessClass({ path: "/v2/admin/stats", signed: false, userAgent: "Mozilla/5.0 Googlebot", acceptsHtml: true })).toBe("program")
    expect(accessClass({ path: "/v2/inbox", signed: true, userAgent: "Mozilla/5.0", acceptsHtml: true })).toBe("program")
    expect(accessClass({ path: "/", signed: false, userAgent: "Mozilla/5.0 (X11)", acceptsHtml: true })).toBe("browser")
    expect(accessClass({ path: "/", signed: false, userAgent: "Mozilla/5.0 (compatible; bingbot/2.0)", acceptsHtml: true })).toBe("crawler")
    expect(accessClass({ path: "/v2/agora/posts", signed: false, userAgent: "curl/8", acceptsHtml: false })).toBe("program")
    expect(accessClass({ path: "/v2/agora/posts", signed: false, userAgent: undefined, acceptsHtml: false })).toBe("program")

    expect(["/v2/entries", "/v2/entries/5", "/v2/bodies/x"].map(routeGroup)).toEqual(["entries", "entries", "entries"])
    expect(["/tiles", "/tiles/tile/0/000", "/t", "/tasks", "/v2/support/tasks", "/v2/support", "/v2/sup/asset"].map(routeGroup))
      .toEqual(["tiles", "tiles", "gate", "tasks", "tasks", "sup", "sup"])
    expect(["/v2/admin/policy", "/notice", "/v2/agora/polls/3", "/.well-known/aics-card.json", "/v2/nothing", "/v2/entriesx"].map(routeGroup))
      .toEqual(["admin", "notices", "forum", "discovery", "other", "other"])

    expect([200, 202, 304, 401, 403, 404, 410, 400, 413, 422, 409, 429, 503, 418, 500].map(outcomeOf)).toEqual([
      "ok", "ok", "ok", "denied", "denied", "not_found", "not_found", "invalid", "invalid", "invalid", "conflict",
      "unavailable", "unavailable", "client_error", "server_error"
    ])
    expect([0, 50, 50.1, 100, 250, 499, 1000, 5000, 5001].map(latencyBucket)).toEqual([
      "le_50", "le_50", "le_100", "le_100", "le_250", "le_500", "le_1000", "le_5000", "gt_5000"
    ])
  })

  it("builds the document over UTC days, oldest first, today included", () => {
    expect(windowDays(NOW, 3)).toEqual(["2026-02-27", "2026-02-28", "2026-03-01"])
    const counters: Array<[string, number]> = [
      [countKey("2026-03-01", "program", "entries", "ok", "le_50"), 5],
      [countKey("2026-03-01", "browser", "forum", "not_found", "le_100"), 2],
      [countKey("2026-02-27", "program", "admin", "denied", "gt_5000"), 1],
      [countKey("2026-02-26", "program", "entries", "ok", "le_50"), 100] // outside a 3-day window
    ]
    const doc = ownerStats(counters, 3, NOW)
    expect(doc.generated_at).toBe("2026-03-01T12:30:00Z")
    expect(doc.window).toEqual({ from: "2026-02-27", to: "2026-03-01" })
    expect(doc.lists.latency_bounds_ms).toEqual([50, 100, 250, 500, 1000, 5000])
    expect(doc.requests.daily.map((d) => [d.day, d.total])).toEqual([["2026-02-27", 1], ["2026-02-28", 0], ["2026-03-01", 7]])
    expect(doc.requests.daily[2]!.by_class).toEqual({ program: 5, browser: 2, crawler: 0 })
    expect(doc.requests.totals.total).toBe(8)
    expect(doc.requests.totals.by_latency).toMatchObject({ le_50: 5, le_100: 2, gt_5000: 1 })
    expect(doc.requests.by_group_outcome["entries"]).toMatchObject({ ok: 5 })
    expect(doc.requests.by_group_outcome["admin"]).toMatchObject({ denied: 1 })
    expect(ownerStats(counters, 366, NOW).requests.totals.total).toBe(108)
    expect(ownerStats(counters, 366, NOW).requests.daily).toHaveLength(366)
  })

  it("drops counters older than the longest window", () => {
    expect(utcDay(NOW)).toBe("2026-03-01")
    expect(oldestKeptDay(NOW)).toBe("2025-03-01")
    expect(keepCounter(countKey("2025-03-01", "program", "tlog", "ok", "le_50"), oldestKeptDay(NOW))).toBe(true)
    expect(keepCounter(countKey("2025-02-28", "program", "tlog", "ok", "le_50"), oldestKeptDay(NOW))).toBe(false)
  })
})
