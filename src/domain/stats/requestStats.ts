// The owner's request statistics (docs/spec/service.md "Owner statistics" `GET /v2/admin/stats`,
// "Authentication" 5; docs/protocol.md section 12). Each request is reduced, as it is
// answered, to five words: its UTC day, an access class, a route group, an outcome and a
// latency bucket. Only the count of each combination is kept: no address, user agent, key,
// name, session, path or content, so no series per key or name can be rebuilt from it.
// The text gate's events are counted alike, in counters of their own (gateEvents.ts).
// The document is a pure function of those counts, the window and the time.

import { GATE_EVENTS, gateStats, isGateKey } from "./gateEvents.js"

/** Who asked, in the coarsest terms: a program (signed requests and the owner routes always), a browser or a crawler. */
export const ACCESS_CLASSES = ["program", "browser", "crawler"] as const
export type AccessClass = typeof ACCESS_CLASSES[number]

export const ROUTE_GROUPS = [
  "entries", "tlog", "tiles", "identity", "messaging", "forum", "tasks", "sup", "admin", "notices", "telemetry",
  "discovery", "gate", "other"
] as const
export type RouteGroup = typeof ROUTE_GROUPS[number]

/** The answer's status in words: 2xx/3xx ok; 401/403 denied; 404/410 not_found; 400/413/422 invalid; 409 conflict; 429/503 unavailable; other 4xx client_error; other 5xx server_error. */
export const OUTCOMES = ["ok", "denied", "not_found", "invalid", "conflict", "unavailable", "client_error", "server_error"] as const
export type Outcome = typeof OUTCOMES[number]

export const LATENCY_BOUNDS_MS = [50, 100, 250, 500, 1000, 5000] as const
export const LATENCY_BUCKETS = [...LATENCY_BOUNDS_MS.map((b) => `le_${b}`), `gt_${LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1]}`] as const

const CRAWLER = /bot|crawl|spider|slurp|archiver|fetcher/i

/** The class of a request, from facts read once and then forgotten. */
export const accessClass = (request: {
  readonly path: string
  readonly signed: boolean
  readonly userAgent: string | undefined
  readonly acceptsHtml: boolean
}): AccessClass => {
  if (request.signed || request.path.startsWith("/v2/admin/")) return "program"
  if (request.userAgent !== undefined && CRAWLER.test(request.userAgent)) return "crawler"
  return request.acceptsHtml && request.userAgent?.startsWith("Mozilla/") === true ? "browser" : "program"
}

const GROUP_PREFIXES: ReadonlyArray<readonly [string, RouteGroup]> = [
  ["/v2/admin/", "admin"], ["/v2/entries", "entries"], ["/v2/bodies/", "entries"], ["/v2/tlog/", "tlog"],
  ["/checkpoint", "tlog"], ["/tiles", "tiles"], ["/v2/names/", "identity"], ["/v2/keys/", "identity"],
  ["/v2/ans/", "identity"], ["/v2/directory", "identity"], ["/directory", "identity"], ["/v2/agents/", "identity"], ["/v2/owner", "identity"],
  ["/v2/inbox", "messaging"], ["/v2/capsules", "messaging"], ["/v2/agora", "forum"], ["/agora", "forum"],
  ["/v2/tasks", "tasks"], ["/v2/support/tasks", "tasks"], ["/tasks", "tasks"], ["/v2/sup", "sup"], ["/v2/support", "sup"],
  ["/notice", "notices"], ["/healthz", "telemetry"], ["/v2/stats", "telemetry"], ["/v2/online", "telemetry"],
  ["/stats", "telemetry"], ["/online", "telemetry"], ["/t", "gate"]
]

/** The route group of a path (the query already cut off): the first prefix it equals or lies under. */
export const routeGroup = (path: string): RouteGroup => {
  for (const [prefix, group] of GROUP_PREFIXES) {
    if (prefix.endsWith("/") ? path.startsWith(prefix) : path === prefix || path.startsWith(`${prefix}/`)) return group
  }
  return path.startsWith("/v2/") ? "other" : "discovery"
}

export const outcomeOf = (status: number): Outcome => {
  if (status < 400) return "ok"
  if (status === 401 || status === 403) return "denied"
  if (status === 404 || status === 410) return "not_found"
  if (status === 400 || status === 413 || status === 422) return "invalid"
  if (status === 409) return "conflict"
  if (status === 429 || status === 503) return "unavailable"
  return status < 500 ? "client_error" : "server_error"
}

export const latencyBucket = (ms: number): string => {
  for (const bound of LATENCY_BOUNDS_MS) if (ms <= bound) return `le_${bound}`
  return LATENCY_BUCKETS[LATENCY_BUCKETS.length - 1]!
}

/** YYYY-MM-DD of a Unix ms time, in UTC. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10)

/** ISO 8601 UTC to the second (`2026-11-22T05:53:40Z`), as the statistics documents write times. */
export const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z")

/** The counter a request adds one to: its five words joined by spaces (none contains one). */
export const countKey = (day: string, cls: AccessClass, group: RouteGroup, outcome: Outcome, bucket: string): string =>
  `${day} ${cls} ${group} ${outcome} ${bucket}`

const DAY_MS = 86_400_000

/** The `days` UTC days ending today (oldest first). */
export const windowDays = (now: number, days: number): ReadonlyArray<string> => {
  const today = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate())
  return Array.from({ length: days }, (_, i) => utcDay(today - (days - 1 - i) * DAY_MS))
}

const zeros = (names: ReadonlyArray<string>): Record<string, number> => Object.fromEntries(names.map((n) => [n, 0]))

interface Tally {
  total: number
  by_class: Record<string, number>
  by_group: Record<string, number>
  by_outcome: Record<string, number>
  by_latency: Record<string, number>
}

const emptyTally = (): Tally => ({
  total: 0, by_class: zeros(ACCESS_CLASSES), by_group: zeros(ROUTE_GROUPS), by_outcome: zeros(OUTCOMES), by_latency: zeros(LATENCY_BUCKETS)
})

const add = (tally: Tally, cls: string, group: string, outcome: string, bucket: string, n: number) => {
  tally.total += n
  tally.by_class[cls] = (tally.by_class[cls] ?? 0) + n
  tally.by_group[group] = (tally.by_group[group] ?? 0) + n
  tally.by_outcome[outcome] = (tally.by_outcome[outcome] ?? 0) + n
  tally.by_latency[bucket] = (tally.by_latency[bucket] ?? 0) + n
}

/** The owner statistics document of the counts, for the `days` UTC days ending at `now` (today included). */
// `counts` is read twice (requests, then the gate): a collection, not a one-pass iterator.
export const ownerStats = (counts: Iterable<readonly [string, number]>, days: number, now: number) => {
  const window = windowDays(now, days)
  const daily = new Map(window.map((day) => [day, emptyTally()]))
  const totals = emptyTally()
  const byGroupOutcome: Record<string, Record<string, number>> = Object.fromEntries(ROUTE_GROUPS.map((g) => [g, zeros(OUTCOMES)]))
  for (const [key, n] of counts) {
    if (isGateKey(key)) continue
    const [day, cls, group, outcome, bucket] = key.split(" ") as [string, string, string, string, string]
    const tally = daily.get(day)
    if (tally === undefined) continue
    add(tally, cls, group, outcome, bucket, n)
    add(totals, cls, group, outcome, bucket, n)
    const row = byGroupOutcome[group] ?? (byGroupOutcome[group] = zeros(OUTCOMES))
    row[outcome] = (row[outcome] ?? 0) + n
  }
  return {
    generated_at: isoSeconds(now),
    days,
    window: { from: window[0]!, to: window[window.length - 1]! },
    lists: {
      access_classes: [...ACCESS_CLASSES],
      route_groups: [...ROUTE_GROUPS],
      outcomes: [...OUTCOMES],
      latency_bounds_ms: [...LATENCY_BOUNDS_MS],
      latency_buckets: [...LATENCY_BUCKETS],
      gate_events: [...GATE_EVENTS]
    },
    requests: {
      daily: window.map((day) => ({ day, ...daily.get(day)! })),
      totals,
      by_group_outcome: byGroupOutcome
    },
    gate: gateStats(counts, window)
  }
}

/** The oldest day the longest window (366 days) reads: older counters are dropped. */
export const oldestKeptDay = (now: number): string => windowDays(now, 366)[0]!

export const keepCounter = (key: string, oldestDay: string): boolean => key.slice(0, 10) >= oldestDay
