// The owner's request statistics (service.md "Owner statistics", `GET /v2/admin/stats`;
// domain/stats/requestStats.ts): one counter per (day, access class, route group, outcome,
// latency bucket), bumped by the HTTP middleware as each answer goes out. Counting is a map
// increment, so the hot write route pays next to nothing. The counters survive a restart:
// loaded from the StatsStore at start, saved when changed every SAVE_EVERY and when the
// service stops (a crash loses at most that interval). The document is cached per `days`
// for 10 seconds, as service.md says.

import { Context, Duration, Effect, Layer, Schedule } from "effect"
import {
  accessClass, countKey, keepCounter, latencyBucket, oldestKeptDay, outcomeOf, ownerStats, routeGroup, utcDay
} from "../domain/stats/requestStats.js"
import { Clock } from "../ports/Clock.js"
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
  readonly document: (days: number) => Effect.Effect<OwnerStatsDocument>
}>() {
  static readonly layer = Layer.scoped(RequestStats, Effect.gen(function*() {
    const clock = yield* Clock
    const store = yield* StatsStore
    const counters = new Map<string, number>(yield* store.load)
    let dirty = false
    const cache = new Map<number, { readonly at: number; readonly document: OwnerStatsDocument }>()

    const save = Effect.suspend(() => {
      if (!dirty) return Effect.void
      dirty = false
      return Effect.flatMap(clock.nowMillis, (now) => {
        const oldest = oldestKeptDay(now)
        for (const key of counters.keys()) if (!keepCounter(key, oldest)) counters.delete(key)
        return store.save([...counters])
      }).pipe(Effect.catchAll((e) => Effect.zipRight(Effect.sync(() => { dirty = true }), Effect.logWarning(`request statistics not saved: ${e.message}`))))
    })
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
        const key = countKey(
          dayOf(now),
          accessClass(r),
          routeGroup(r.path),
          outcomeOf(r.status),
          latencyBucket(r.latencyMs)
        )
        counters.set(key, (counters.get(key) ?? 0) + 1)
        dirty = true
      }),
      document: (days) => Effect.map(clock.nowMillis, (now) => {
        const cached = cache.get(days)
        if (cached !== undefined && now - cached.at < CACHE_MS) return cached.document
        const document = ownerStats(counters, days, now)
        cache.set(days, { at: now, document })
        return document
      })
    }
  }))
}
