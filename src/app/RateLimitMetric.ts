// The rate-limit refusals an operator sees on /metrics (issue 13 items 1 and 7): one counter,
// `aics_rate_limited_total{budget}`, bumped once per request refused for being over a
// budget, labelled with the budget's name (the name the limits publish). Its own module so
// the limits can count without importing the rest of the catalogue (Metrics.ts).

import { Metric, MetricKey } from "effect"
import { labelledMetric } from "../ports/labelledMetric.js"

const rateLimitedSeries = labelledMetric(MetricKey.counter("aics_rate_limited_total", {
  description: "Requests refused for being over a rate-limit budget, by budget.",
  incremental: true
}))
export const rateLimited = rateLimitedSeries.metric

/** Counts one refusal over `budget`. */
export const countRateLimited = (budget: string) => Metric.increment(rateLimitedSeries.of(["budget", budget]))
