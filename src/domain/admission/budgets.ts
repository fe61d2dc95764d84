// The published budgets of fair admission (docs/protocol.md "Fair admission"; issue 13): what one
// client address, one key, one name and the whole service may spend, each a token bucket
// (tokenBucket.ts) of `capacity` per `windowSeconds`. The operator sets each capacity with
// its environment variable (README "Configuration"; 0 turns that budget off); the windows
// are fixed, so a budget reads the same everywhere it is published: the signed assurance
// card, /llms.txt and the agent manifest (publishedLimits below).
//
// Subjects: an address is the client's IP (IPv6 grouped by /64, clientAddress.ts); a key is
// a verified did:key (a signature that does not verify spends nothing of the key's budget,
// so no one can spend another's); a name is the name the signing key acts for.

import type { BucketRule } from "./tokenBucket.js"

export type BudgetScope = "address" | "key" | "name" | "service"

export interface BudgetDefinition {
  readonly scope: BudgetScope
  readonly windowSeconds: number
  readonly defaultCapacity: number
  /** The environment variable that sets the capacity. */
  readonly env: string
  /** What one token buys, for the published documents. */
  readonly what: string
}

export const BUDGETS = {
  requests: { scope: "address", windowSeconds: 60, defaultCapacity: 1200, env: "AICS_LIMIT_REQUESTS_PER_MINUTE", what: "HTTP requests of any route" },
  writes: { scope: "address", windowSeconds: 60, defaultCapacity: 120, env: "AICS_LIMIT_WRITES_PER_MINUTE", what: "entry writes (POST /v2/entries and the gate's writes), refused or not" },
  claims: { scope: "address", windowSeconds: 3600, defaultCapacity: 20, env: "AICS_LIMIT_CLAIMS_PER_HOUR", what: "new identities: claim entries (names) submitted" },
  gate_sessions: { scope: "address", windowSeconds: 3600, defaultCapacity: 120, env: "AICS_LIMIT_GATE_SESSIONS_PER_HOUR", what: "text gate sessions kept: a TCP connection, or a session over GET or POST /t left holding a challenge, an identity or an envelope to sign (one that only reads costs none)" },
  gate_lines: { scope: "address", windowSeconds: 60, defaultCapacity: 600, env: "AICS_LIMIT_GATE_LINES_PER_MINUTE", what: "text gate command lines" },
  notices: { scope: "address", windowSeconds: 3600, defaultCapacity: 20, env: "AICS_LIMIT_NOTICES_PER_HOUR", what: "notices filed (POST /notice)" },
  intents: { scope: "address", windowSeconds: 3600, defaultCapacity: 10, env: "AICS_LIMIT_INTENTS_PER_HOUR", what: "contribution intents made; each holds an amount's slot for its validity" },
  name_intents: { scope: "name", windowSeconds: 3600, defaultCapacity: 5, env: "AICS_LIMIT_NAME_INTENTS_PER_HOUR", what: "contribution intents made for one name" },
  key_writes_minute: { scope: "key", windowSeconds: 60, defaultCapacity: 30, env: "AICS_LIMIT_KEY_WRITES_PER_MINUTE", what: "entries signed by one key" },
  key_writes_day: { scope: "key", windowSeconds: 86_400, defaultCapacity: 2000, env: "AICS_LIMIT_KEY_WRITES_PER_DAY", what: "entries signed by one key" },
  name_writes_minute: { scope: "name", windowSeconds: 60, defaultCapacity: 30, env: "AICS_LIMIT_NAME_WRITES_PER_MINUTE", what: "entries signed by the key a name is bound to" },
  name_writes_day: { scope: "name", windowSeconds: 86_400, defaultCapacity: 2000, env: "AICS_LIMIT_NAME_WRITES_PER_DAY", what: "entries signed by the key a name is bound to" },
  dms: { scope: "key", windowSeconds: 3600, defaultCapacity: 120, env: "AICS_LIMIT_DMS_PER_HOUR", what: "DMs sent by one key" },
  service_writes: { scope: "service", windowSeconds: 1, defaultCapacity: 1000, env: "AICS_LIMIT_SERVICE_WRITES_PER_SECOND", what: "entry writes of all clients together, below what the sequencer commits, so its queue never fills" }
} as const satisfies Record<string, BudgetDefinition>

export type BudgetName = keyof typeof BUDGETS

export const BUDGET_NAMES = Object.keys(BUDGETS) as ReadonlyArray<BudgetName>

/** The capacity of each budget as configured (0: that budget is off). */
export type BudgetCapacities = Readonly<Record<BudgetName, number>>

export const DEFAULT_CAPACITIES: BudgetCapacities = Object.fromEntries(
  BUDGET_NAMES.map((name) => [name, BUDGETS[name].defaultCapacity])
) as Record<BudgetName, number>

/** Everything admission publishes and enforces. */
export interface AdmissionLimits {
  /** false: no budget is enforced (a private instance or a test harness); connection caps stay. */
  readonly enabled: boolean
  readonly capacities: BudgetCapacities
  /** Proof of work a claim carries, in leading zero bits (0: none asked; proofOfWork.ts). */
  readonly claimWorkBits: number
  /** Concurrent connections one address may hold on each listener (HTTP, each gate port). */
  readonly connectionsPerAddress: number
  /**
   * HTTP requests of one address handled at once; the others wait their turn (live streams
   * aside: they have a cap of their own). Trusted proxies are exempt.
   */
  readonly requestsInFlightPerAddress: number
  /**
   * Nodes sharing the budgets (several nodes on PostgreSQL): each node enforces
   * capacity / nodes, so the service as a whole never admits more than it publishes
   * (docs/operations.md "Fair admission on several nodes").
   */
  readonly nodes: number
  /**
   * How long a 429 is held before it is sent (a tarpit): a client that ignores Retry-After
   * and asks again at once gets at most one answer a second per connection, and its
   * connections are capped, so a flood cannot take the service's CPU from everyone else.
   */
  readonly refusalDelayMs: number
}

export const DEFAULT_CONNECTIONS_PER_ADDRESS = 256
export const DEFAULT_REQUESTS_IN_FLIGHT_PER_ADDRESS = 4
export const DEFAULT_REFUSAL_DELAY_MS = 1000

export const DEFAULT_LIMITS: AdmissionLimits = {
  enabled: true,
  capacities: DEFAULT_CAPACITIES,
  claimWorkBits: 0,
  connectionsPerAddress: DEFAULT_CONNECTIONS_PER_ADDRESS,
  requestsInFlightPerAddress: DEFAULT_REQUESTS_IN_FLIGHT_PER_ADDRESS,
  nodes: 1,
  refusalDelayMs: DEFAULT_REFUSAL_DELAY_MS
}

/** The rule this node enforces for a budget: its share of the capacity; undefined when off. */
export const nodeRule = (limits: AdmissionLimits, name: BudgetName): BucketRule | undefined => {
  const capacity = limits.capacities[name]
  if (!limits.enabled || capacity === 0) return undefined
  return { capacity: Math.max(1, Math.floor(capacity / limits.nodes)), windowSeconds: BUDGETS[name].windowSeconds }
}

/**
 * A refusal's detail: the quota this node enforces (`rule`, as its RateLimit-Policy says), and
 * with several nodes that it is this node's share of the published one.
 */
export const spentDetail = (limits: AdmissionLimits, name: BudgetName, rule: BucketRule, retryAfterSeconds: number): string => {
  const share = limits.nodes > 1 ? ` on this node, its share of ${limits.capacities[name]} over ${limits.nodes} nodes` : ""
  return `the ${name} budget (${rule.capacity} per ${rule.windowSeconds} s per ${BUDGETS[name].scope}${share}) is spent; retry in ${retryAfterSeconds} s`
}

/** RateLimit-Policy (IETF httpapi ratelimit-headers draft): `"name";q=<quota>;w=<window>`. */
export const rateLimitPolicyField = (name: BudgetName, rule: BucketRule): string => `"${name}";q=${rule.capacity};w=${rule.windowSeconds}`

/** RateLimit: `"name";r=<remaining>;t=<seconds until full>`. */
export const rateLimitField = (name: BudgetName, remaining: number, resetSeconds: number): string => `"${name}";r=${remaining};t=${resetSeconds}`

/** The limits as the card, /llms.txt and the manifest publish them (the service's totals). */
export const publishedLimits = (limits: AdmissionLimits) => ({
  enforced: limits.enabled,
  budgets: BUDGET_NAMES.filter((name) => limits.enabled && limits.capacities[name] > 0).map((name) => ({
    name,
    scope: BUDGETS[name].scope,
    quota: limits.capacities[name],
    window_seconds: BUDGETS[name].windowSeconds,
    what: BUDGETS[name].what
  })),
  connections_per_address: limits.connectionsPerAddress,
  requests_in_flight_per_address: limits.requestsInFlightPerAddress,
  refusal_delay_ms: limits.refusalDelayMs,
  claim_pow_bits: limits.claimWorkBits
})

export type PublishedLimits = ReturnType<typeof publishedLimits>

/** One line per budget, for /llms.txt and the gate's help. */
export const limitsLines = (limits: AdmissionLimits): ReadonlyArray<string> => {
  const published = publishedLimits(limits)
  return [
    ...(published.enforced ? [] : ["- rate limits: not enforced on this instance"]),
    ...published.budgets.map((b) => `- ${b.name}: ${b.quota} per ${b.window_seconds} s per ${b.scope} (${b.what})`),
    `- connections: at most ${published.connections_per_address} at once per address`,
    `- requests in flight: ${published.requests_in_flight_per_address} at once per address are handled; the others wait their turn`,
    published.claim_pow_bits === 0
      ? "- proof of work: none asked for claims"
      : `- proof of work: a claim's envelope needs ${published.claim_pow_bits} leading zero bits of SHA-256 over its signing input (vary the envelope nonce); a claim without a key through the gate, as many over its work text (the gate's help says how)`
  ]
}
