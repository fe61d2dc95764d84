// The owner's request statistics (docs/spec/service.md "Owner statistics", `GET /v2/admin/stats`;
// domain/stats/requestStats.ts): one counter per (day, access class, route group, outcome,
// latency bucket), bumped by the HTTP middleware as each answer goes out, and one per
// (day, transport, event) of the text gate (domain/stats/gateEvents.ts), bumped by the
// Gate. Counting is a map increment, so the hot write route pays next to nothing. The counts are added to the
// StatsStore (pending ones every SAVE_EVERY, before a document is made, and when the
// service stops; a crash loses at most that interval), which several nodes share: each
// adds its own, so the document, made from the store's counters and this node's pending
// ones, counts every node's requests (another node's within its SAVE_EVERY). Counters
// older than the kept window are dropped as counts are added. The document is cached per
// `days` for 10 seconds, as docs/spec/service.md says.

import { Context, Duration, Effect, Layer, Schedule } from "effect"
import { gateCountKey, type GateEvent, type GateTransport } from "../domain/stats/gateEvents.js"
import {
  accessClass, countKey, keepCounter, latencyBucket, oldestKeptDay, outcomeOf, ownerStats, routeGroup, utcDay
} from "../domain/stats/requestStats.js"
import { Clock } from "../ports/Clock.js"
import { countGateSessionNow, countHttpNow } from "./Metrics.js"
import { StatsStore } from "../ports/StatsStore.js"

/** What the middleware reads of a request and its answer; nothing of it is kept but the counter it selects. */
export interface AnsweredRequest {
  readonly path: string
  readonly signed: boolean
  readonly userAgent: string | undefined
  readonly acceptsHtml: boolean
  readonly status: number
  readonly latencyMs: number
}

export type OwnerStatsDocument = ReturnType<typeof ownerStats>

const CACHE_MS = 10_000
const DAY_MS = 86_400_000
const SAVE_EVERY = Duration.seconds(60)

export class RequestStats extends Context.Tag("aics/RequestStats")<RequestStats, {
  readonly count: (request: AnsweredRequest) => Effect.Effect<void>
  /** The text gate's events of one exchange (domain/stats/gateEvents.ts), each one counter more. */
  readonly countGate: (transport: GateTransport, events: ReadonlyArray<GateEvent>) => Effect.Effect<void>
  readonly document: (days: number) => Effect.Effect<OwnerStatsDocument>
}>() {
  static readonly layer = Layer.scoped(RequestStats, Effect.gen(function*() {
    const clock = yield* Clock
    const store = yield* StatsStore
    // The store's counters as last loaded, and the counts made here not yet added to it.
    let stored = new Map<string, number>(yield* store.load)
    let pending = new Map<string, number>()
    const cache = new Map<number, { readonly at: number; readonly document: OwnerStatsDocument }>()
    // Adds and the loads after them run one at a time: a load never misses counts that
    // left `pending` for an add still under way.
    const lock = Effect.unsafeMakeSemaphore(1)

    const add = Effect.suspend(() => {
      if (pending.size === 0) return Effect.void
      const increments = pending
      pending = new Map()
      return Effect.flatMap(clock.nowMillis, (now) => {
        const oldest = oldestKeptDay(now)
        const drop = [...stored.keys()].filter((key) => !keepCounter(key, oldest))
        return Effect.map(store.add([...increments], drop), () => { for (const key of drop) stored.delete(key) })
      }).pipe(Effect.catchAll((e) =>
        Effect.zipRight(
          // Not added: counted again with what comes next, for the next add.
          Effect.sync(() => { for (const [key, n] of increments) pending.set(key, (pending.get(key) ?? 0) + n) }),
          Effect.logWarning("request statistics not saved").pipe(Effect.annotateLogs({ error: e.message }))
        )))
    })
    const save = lock.withPermits(1)(add)
    // Every node's counts: the store's, after adding this node's, plus any counted since.
    const current = lock.withPermits(1)(Effect.zipRight(
      add,
      store.load.pipe(
        Effect.map((loaded) => { stored = new Map(loaded) }),
        Effect.catchAll((e) => Effect.logWarning("request statistics not loaded, the document shows the last loaded").pipe(Effect.annotateLogs({ error: e.message })))
      )
    )).pipe(Effect.map(() => {
      const counters = new Map(stored)
      for (const [key, n] of pending) counters.set(key, (counters.get(key) ?? 0) + n)
      return counters
    }))
    yield* Effect.forkScoped(Effect.repeat(Effect.delay(save, SAVE_EVERY), Schedule.forever))
    yield* Effect.addFinalizer(() => save)

    // The day's name, recomputed only when the day changes (requests arrive in time order, near enough).
    let dayStart = -1
    let dayName = ""
    const dayOf = (now: number) => {
      if (now < dayStart || now >= dayStart + DAY_MS) {
        dayStart = now - (now % DAY_MS)
        dayName = utcDay(now)
      }
      return dayName
    }

    return {
      count: (r) => Effect.map(clock.nowMillis, (now) => {
        const group = routeGroup(r.path)
        countHttpNow(group, r.status, r.latencyMs / 1000)
        const key = countKey(
          dayOf(now),
          accessClass(r),
          group,
          outcomeOf(r.status),
          latencyBucket(r.latencyMs)
        )
        pending.set(key, (pending.get(key) ?? 0) + 1)
      }),
      countGate: (transport, events) => Effect.map(clock.nowMillis, (now) => {
        const day = dayOf(now)
        for (const event of events) {
          if (event === "session") countGateSessionNow(transport)
          const key = gateCountKey(day, transport, event)
          pending.set(key, (pending.get(key) ?? 0) + 1)
        }
      }),
      document: (days) => Effect.flatMap(clock.nowMillis, (now) => {
        const cached = cache.get(days)
        if (cached !== undefined && now - cached.at < CACHE_MS) return Effect.succeed(cached.document)
        return Effect.map(current, (counters) => {
          const document = ownerStats(counters, days, now)
          cache.set(days, { at: now, document })
          return document
        })
      })
    }
  }))
}
