// The owner statistics document (docs/spec/service.md "Owner statistics"; domain/stats/requestStats.ts).

import { WitnessingHealth } from "./witnessApi.js"
import { Schema } from "effect"

const Counts = Schema.Record({ key: Schema.String, value: Schema.Int })

const Tally = {
  total: Schema.Int,
  by_class: Counts,
  by_group: Counts,
  by_outcome: Counts,
  by_latency: Counts.annotations({ description: "requests per latency bucket (lists.latency_buckets)" })
}

export const OwnerStatsSchema = Schema.Struct({
  generated_at: Schema.String.annotations({ description: "UTC timestamp, ISO 8601" }),
  days: Schema.Int,
  window: Schema.Struct({ from: Schema.String, to: Schema.String }).annotations({ description: "UTC days, YYYY-MM-DD, today included" }),
  lists: Schema.Struct({
    access_classes: Schema.Array(Schema.String),
    route_groups: Schema.Array(Schema.String),
    outcomes: Schema.Array(Schema.String),
    latency_bounds_ms: Schema.Array(Schema.Int),
    latency_buckets: Schema.Array(Schema.String),
    gate_events: Schema.Array(Schema.String).annotations({ description: "text-gate events counted: session, each verb, invalid, refused" })
  }),
  requests: Schema.Struct({
    daily: Schema.Array(Schema.Struct({ day: Schema.String, ...Tally })),
    totals: Schema.Struct(Tally),
    by_group_outcome: Schema.Record({ key: Schema.String, value: Counts })
  }),
  gate: Schema.Struct({
    daily: Schema.Array(Schema.Struct({ day: Schema.String, by_event: Counts })),
    totals: Schema.Struct({
      by_event: Counts,
      by_transport: Schema.Record({ key: Schema.String, value: Counts })
        .annotations({ description: "events per transport: http_get, http_post, tcp_plain, tcp_tls" })
    })
  }).annotations({ description: "text-gate events (lists.gate_events), counted alike: no session id, name, key or line" })
}).annotations({ identifier: "OwnerStats", description: "Aggregate figures only: no address, user agent, key, name, session or content" })

// The service statistics (docs/spec/service.md "Service statistics (GET /v2/stats)"; app/ServiceStats.ts,
// docs/protocol.md section 16) and the agents online (GET /v2/online).

const Bytes = Schema.NullOr(Schema.Int).annotations({ description: "bytes; null when the platform cannot say" })

export const ServiceStatsSchema = Schema.Struct({
  status: Schema.Literal("OK", "DEGRADED", "DIVERGED").annotations({ description: "as /healthz" }),
  domain: Schema.String,
  timestamp: Schema.String.annotations({ description: "UTC timestamp, ISO 8601, seconds" }),
  uptime_seconds: Schema.Int,
  uptime_human: Schema.String,
  services: Schema.Array(Schema.Struct({ id: Schema.String, name: Schema.String, endpoint: Schema.String, detail: Schema.String })),
  usage: Schema.Struct({
    registered_agents: Schema.Int,
    ans_handles_claimed: Schema.Int,
    verified_key_identities: Schema.Int,
    e2ee_messages_relayed: Schema.Int,
    encrypted_capsules: Schema.Int,
    agora_posts: Schema.Int,
    tombstones: Schema.Int,
    agora_polls: Schema.Int,
    agora_votes: Schema.Int,
    tasks_total: Schema.Int,
    tasks_open: Schema.Int,
    task_awards: Schema.Int,
    contributions_credited: Schema.Int,
    sup_credited_total: Schema.Int,
    sup_spent_total: Schema.Int,
    owner_actions_quoted: Schema.Int,
    owner_actions_settled: Schema.Int,
    notices_open: Schema.Int,
    tlog_tree_size: Schema.Int,
    tlog_root_hash_hex: Schema.String
  }).annotations({ description: "counts, cached for 5 seconds; the log head is the latest published checkpoint" }),
  host: Schema.Struct({
    process_rss_bytes: Schema.Int,
    cpu_percent: Schema.Number.annotations({ description: "this process's CPU time as a percent of all cores, since the previous measurement" }),
    load_average_1m: Schema.Number,
    database_bytes: Bytes,
    disk_total_bytes: Bytes,
    disk_used_bytes: Bytes,
    disk_used_percent: Schema.NullOr(Schema.Number)
  }),
  tlog: Schema.Struct({
    origin: Schema.String,
    tree_size: Schema.Int,
    root_hash_hex: Schema.String,
    signed_checkpoint: Schema.NullOr(Schema.String).annotations({ description: "the signed checkpoint note, as served at /checkpoint" }),
    log_vkey: Schema.String,
    log_kid: Schema.String,
    server_vkey: Schema.String,
    server_did: Schema.String,
    policy_kid: Schema.String,
    policy_did: Schema.String,
    policy_public_key_b64u: Schema.String,
    owner_kid: Schema.String,
    charter_index: Schema.Int,
    tiles: Schema.Struct({
      prefix: Schema.String,
      size: Schema.Int,
      published_size: Schema.Int,
      lag_entries: Schema.Int,
      lag_seconds: Schema.Number,
      mmd_seconds: Schema.Int,
      error: Schema.NullOr(Schema.String),
      diverged: Schema.Boolean
    }),
    keys_notice: Schema.String
  }),
  witnesses: Schema.optional(WitnessingHealth)
}).annotations({ identifier: "ServiceStats", description: "Aggregate counts, host measurements and the log head; the key members are a convenience copy" })

export const OnlineSchema = Schema.Struct({
  window: Schema.Int,
  since: Schema.Int.annotations({ description: "Unix ms: each agent's latest public leaf was logged at or after it" }),
  count: Schema.Int,
  agents: Schema.Array(Schema.Struct({
    kid: Schema.NullOr(Schema.String).annotations({ description: "The key that signed the latest public leaf; null for a secret-bound name, whose leaves the policy key signs" }),
    name: Schema.NullOr(Schema.String),
    tier: Schema.NullOr(Schema.Literal("key", "secret")),
    index: Schema.Int,
    logged: Schema.Int,
    type: Schema.String
  })),
  truncated: Schema.Boolean
}).annotations({ identifier: "Online", description: "Agents (one row per name, or per bare key) whose latest public leaf (any agent-signed leaf but dm and capsule, or a policy leaf written for a secret-bound name) is in the window, newest first" })
