// The owner's request statistics service (app/RequestStats.ts) with a controlled clock: each
// answered request bumps one counter; the document is cached for 10 seconds; the counters
// survive a restart through the StatsStore (saved when the service stops).

import { it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { expect } from "vitest"
import { makeTestClock } from "../../src/adapters/clock/TestClock.js"
import { FsStatsStoreLive } from "../../src/adapters/fs/FsStatsStore.js"
import { MemoryStatsStoreLive } from "../../src/adapters/memory/MemoryStatsStore.js"
import { RequestStats, type AnsweredRequest } from "../../src/app/RequestStats.js"
import { StatsStore } from "../../src/ports/StatsStore.js"
import { tempDir } from "../adapters/fs/tempDir.js"

const T0 = Date.UTC(2026, 2, 1, 10, 0)
const request = (over: Partial<AnsweredRequest> = {}): AnsweredRequest =>
  ({ path: "/v2/agora/posts", signed: false, userAgent: "curl/8", acceptsHtml: false, status: 200, latencyMs: 3, ...over })

it.scoped("counts, caches for 10 s, and keeps the counters across a restart", () =>
  Effect.gen(function*() {
    const dir = yield* tempDir("request-stats")
    const clock = makeTestClock(T0)
    const layer = RequestStats.layer.pipe(Layer.provide(Layer.mergeAll(clock.layer, FsStatsStoreLive(dir))))

    yield* Effect.scoped(Effect.gen(function*() {
      const stats = yield* RequestStats
      yield* stats.count(request())
      yield* stats.count(request({ path: "/v2/admin/stats", status: 403, latencyMs: 120 }))
      const first = yield* stats.document(1)
      expect(first.requests.totals.total).toBe(2)
      yield* stats.count(request({ status: 404 }))
      expect((yield* stats.document(1)).requests.totals.total).toBe(2) // cached
      yield* clock.advance(10_000)
      const later = yield* stats.document(1)
      expect(later.requests.totals.total).toBe(3)
      expect(later.requests.by_group_outcome["admin"]).toMatchObject({ denied: 1 })
      expect(later.requests.totals.by_latency).toMatchObject({ le_50: 2, le_250: 1 })
      // The gate's events are counted beside the requests, by transport and event.
      yield* stats.countGate("tcp_tls", ["session", "login", "refused"])
      yield* stats.countGate("http_get", ["help"])
      yield* clock.advance(10_000)
      const gate = (yield* stats.document(1)).gate
      expect(gate.totals.by_event).toMatchObject({ session: 1, login: 1, refused: 1, help: 1 })
      expect(gate.totals.by_transport["tcp_tls"]).toMatchObject({ session: 1, login: 1, help: 0 })
      expect(gate.daily[0]!.by_event["help"]).toBe(1)
    }).pipe(Effect.provide(layer)))

    yield* Effect.scoped(Effect.gen(function*() {
      const stats = yield* RequestStats
      yield* stats.count(request())
      const doc = yield* stats.document(30)
      expect(doc.requests.totals.total).toBe(4)
      expect(doc.gate.totals.by_event["session"]).toBe(1) // kept across the restart too
      expect(doc.requests.daily[29]).toMatchObject({ day: "2026-03-01", total: 4 })
    }).pipe(Effect.provide(layer)))
  }))

it.scoped("two nodes on one store: each adds its counts, a document counts both, old counters are dropped", () =>
  Effect.gen(function*() {
    const clock = makeTestClock(T0)
    // A counter from before the kept window (366 days), as a store a year old holds.
    const stale = "2024-01-01 program tlog ok le_50"
    const shared = yield* Layer.build(MemoryStatsStoreLive)
    yield* Context.get(shared, StatsStore).add([[stale, 5]], [])
    const node = RequestStats.layer.pipe(Layer.provide(Layer.mergeAll(clock.layer, Layer.succeedContext(shared))))

    const b = Context.get(yield* Layer.build(node), RequestStats)
    // Node A answers three requests and stops (its counts are added as it stops).
    yield* Effect.scoped(Effect.gen(function*() {
      const a = Context.get(yield* Layer.build(node), RequestStats)
      for (let i = 0; i < 3; i++) yield* a.count(request())
    }))
    yield* b.count(request({ status: 404 }))
    const doc = yield* b.document(1)
    expect(doc.requests.totals.total).toBe(4)
    expect(doc.requests.by_group_outcome["forum"]).toMatchObject({ ok: 3 })
    // B's add dropped the stale counter; A's three and B's one are in the store.
    const stored = yield* Context.get(shared, StatsStore).load
    expect(stored.find(([key]) => key === stale)).toBeUndefined()
    expect(stored.reduce((sum, [, n]) => sum + n, 0)).toBe(4)
  }))
