// Effect's metric registry as the Prometheus text exposition format, version 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/): one `# HELP` and `# TYPE`
// per family, then a sample per label set. Written here rather than through prom-client or
// @effect/opentelemetry (docs/operations.md "Metrics" says why): the format is a page of
// rules, and Metric.unsafeSnapshot() already holds every value.
//
// Counters become `counter` (their name ends in _total), gauges `gauge`, histograms
// `histogram` with cumulative `_bucket{le}` samples (Effect's buckets are cumulative
// already, and end at +Inf), `_sum` and `_count`. Frequencies and summaries are not used
// by the service and are rendered as their counts (a frequency) or left out (a summary).

import { Option } from "effect"
import type * as MetricPair from "effect/MetricPair"
import * as MetricState from "effect/MetricState"

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

type Labels = ReadonlyArray<readonly [string, string]>

/** A label value with \, " and newlines escaped, as the format asks. */
const escapeValue = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, "\\\"").replace(/\n/g, "\\n")
const escapeHelp = (text: string) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")

const labelText = (labels: Labels) =>
  labels.length === 0 ? "" : `{${labels.map(([k, v]) => `${k}="${escapeValue(v)}"`).join(",")}}`

const number = (n: number | bigint) =>
  typeof n === "bigint" ? n.toString() : Number.isNaN(n) ? "NaN" : n === Infinity ? "+Inf" : n === -Infinity ? "-Inf" : String(n)

interface Family {
  type: "counter" | "gauge" | "histogram"
  help: string
  lines: Array<string>
}

/**
 * The text of the series of `pairs` (Metric.unsafeSnapshot()) whose names start with
 * `prefix` (the service's own; Effect's fiber counters are not Prometheus counters: they go
 * down), families sorted by name, series by labels, a histogram's buckets in bound order.
 * A labelled series appears with its first event, as in every Prometheus client.
 */
export const prometheusText = (pairs: ReadonlyArray<MetricPair.MetricPair.Untyped>, prefix = "aics_"): string => {
  const families = new Map<string, Family>()
  const family = (name: string, type: Family["type"], description: Option.Option<string>) => {
    let found = families.get(name)
    if (found === undefined) {
      found = { type, help: Option.getOrElse(description, () => name), lines: [] }
      families.set(name, found)
    }
    return found
  }
  const series = pairs
    .filter((pair) => pair.metricKey.name.startsWith(prefix))
    .map((pair) => ({
      pair,
      labels: pair.metricKey.tags.map((t) => [t.key, t.value] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) as Labels
    }))
    .map((s) => ({ ...s, order: `${s.pair.metricKey.name}${labelText(s.labels)}` }))
    .sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0))
  for (const { pair: { metricKey, metricState }, labels } of series) {
    const name = metricKey.name
    if (MetricState.isCounterState(metricState)) {
      family(name, "counter", metricKey.description).lines.push(`${name}${labelText(labels)} ${number(metricState.count)}`)
    } else if (MetricState.isGaugeState(metricState)) {
      family(name, "gauge", metricKey.description).lines.push(`${name}${labelText(labels)} ${number(metricState.value)}`)
    } else if (MetricState.isHistogramState(metricState)) {
      const f = family(name, "histogram", metricKey.description)
      let sawInfinity = false
      for (const [bound, count] of metricState.buckets) {
        if (bound === Infinity) sawInfinity = true
        f.lines.push(`${name}_bucket${labelText([...labels, ["le", number(bound)]])} ${count}`)
      }
      if (!sawInfinity) f.lines.push(`${name}_bucket${labelText([...labels, ["le", "+Inf"]])} ${metricState.count}`)
      f.lines.push(`${name}_sum${labelText(labels)} ${number(metricState.sum)}`)
      f.lines.push(`${name}_count${labelText(labels)} ${metricState.count}`)
    } else if (MetricState.isFrequencyState(metricState)) {
      const f = family(name, "counter", metricKey.description)
      for (const [value, count] of metricState.occurrences) f.lines.push(`${name}${labelText([...labels, ["value", value]])} ${count}`)
    }
  }
  const out: Array<string> = []
  for (const name of [...families.keys()].sort()) {
    const f = families.get(name)!
    out.push(`# HELP ${name} ${escapeHelp(f.help)}`, `# TYPE ${name} ${f.type}`, ...f.lines)
  }
  return out.length === 0 ? "" : `${out.join("\n")}\n`
}
