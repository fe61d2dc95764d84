// The Prometheus text of the metric registry (src/adapters/metrics/prometheusText.ts), read
// back by a strict parser: counters, gauges and histograms in the format's shape, label
// values escaped, and the counters other parts bump (the rate limits' aics_rate_limited_total,
// the stores' aics_store_errors_total) move when incremented.

import { Effect, Metric, MetricBoundaries } from "effect"
import { describe, expect, it } from "vitest"
import { prometheusText } from "../../../src/adapters/metrics/prometheusText.js"
import { countRateLimited } from "../../../src/app/RateLimitMetric.js"
import { StorageError } from "../../../src/ports/StorageError.js"
import { parsePrometheus, seriesKey, total } from "../../support/prometheus.js"

const scrape = () => parsePrometheus(prometheusText(Metric.unsafeSnapshot()))

describe("prometheusText", () => {
  it("renders counters, gauges and histograms that a strict parser reads back", () => {
    const counter = Metric.counter("aics_test_events_total", { description: "test events", incremental: true })
    const gauge = Metric.gauge("aics_test_level", { description: "a level" })
    const histogram = Metric.histogram("aics_test_seconds", MetricBoundaries.fromIterable([0.1, 1]), "durations")
    Effect.runSync(Effect.all([
      Metric.incrementBy(Metric.tagged(counter, "kind", "quote\"back\\slash\nline"), 3),
      Metric.set(gauge, 7.5),
      Metric.update(histogram, 0.05),
      Metric.update(histogram, 0.5),
      Metric.update(histogram, 5)
    ]))
    const read = scrape()
    expect(read.types.get("aics_test_events_total")).toBe("counter")
    expect(read.types.get("aics_test_level")).toBe("gauge")
    expect(read.types.get("aics_test_seconds")).toBe("histogram")
    expect(read.samples.get(seriesKey("aics_test_events_total", { kind: "quote\\\"back\\\\slash\\nline" }))).toBe(3)
    expect(read.samples.get("aics_test_level")).toBe(7.5)
    expect(read.samples.get(seriesKey("aics_test_seconds_bucket", { le: "0.1" }))).toBe(1)
    expect(read.samples.get(seriesKey("aics_test_seconds_bucket", { le: "1" }))).toBe(2)
    expect(read.samples.get(seriesKey("aics_test_seconds_bucket", { le: "+Inf" }))).toBe(3)
    expect(read.samples.get("aics_test_seconds_count")).toBe(3)
    expect(read.samples.get("aics_test_seconds_sum")).toBeCloseTo(5.55)
    // Buckets in bound order, as the format asks.
    const text = prometheusText(Metric.unsafeSnapshot())
    expect(text.indexOf("le=\"0.1\"")).toBeLessThan(text.indexOf("le=\"1\""))
    expect(text.indexOf("le=\"1\"")).toBeLessThan(text.indexOf("le=\"+Inf\""))
    // Effect's own fiber series are left out (not counters in Prometheus' sense).
    expect([...read.types.keys()].every((name) => name.startsWith("aics_"))).toBe(true)
  })

  it("aics_rate_limited_total{budget} moves when a refusal is counted", () => {
    const before = total(scrape(), "aics_rate_limited_total", { budget: "writes_per_address" })
    Effect.runSync(countRateLimited("writes_per_address"))
    Effect.runSync(countRateLimited("writes_per_address"))
    Effect.runSync(countRateLimited("gate_sessions"))
    const after = scrape()
    expect(after.types.get("aics_rate_limited_total")).toBe("counter")
    expect(total(after, "aics_rate_limited_total", { budget: "writes_per_address" }) - before).toBe(2)
    expect(total(after, "aics_rate_limited_total", { budget: "gate_sessions" })).toBeGreaterThanOrEqual(1)
  })

  it("aics_store_errors_total{operation} counts every StorageError made", () => {
    const before = total(scrape(), "aics_store_errors_total", { operation: "append" })
    void new StorageError({ operation: "append", detail: "disk full" })
    expect(total(scrape(), "aics_store_errors_total", { operation: "append" }) - before).toBe(1)
  })
})
