// The owner statistics document (service.md "Owner statistics"; domain/stats/requestStats.ts).

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
    gate_events: Schema.Array(Schema.String)
  }),
  requests: Schema.Struct({
    daily: Schema.Array(Schema.Struct({ day: Schema.String, ...Tally })),
    totals: Schema.Struct(Tally),
    by_group_outcome: Schema.Record({ key: Schema.String, value: Counts })
  })
}).annotations({ identifier: "OwnerStats", description: "Aggregate figures only: no address, user agent, key, name, session or content" })
