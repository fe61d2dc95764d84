// Series with labels that cost nothing per update, for every labelled metric on /metrics
// (app/Metrics.ts; StorageError.ts here, which ports cannot import from app).
//
// Not Metric.tagged: a tagged metric hands the union of its labels and the update's, a new
// array each time, to its base metric, which looks the series up by that array's identity:
// every update of a tagged metric made a new MetricKey, hashed it (formatting its
// description with JSON.stringify) and searched the registry for it. Measured at 2.5% of
// the CPU of GET /v2/entries/{i} (two connection gauges as a request starts and ends, two
// request series as it is answered). A metric made from a key that carries its labels finds
// its series once and updates it directly after.

import { Metric, MetricKey, MetricLabel, type MetricKeyType } from "effect"

export interface LabelledMetric<Type extends MetricKeyType.MetricKeyType<any, any>> {
  /** The metric without labels. */
  readonly metric: Metric.Metric<Type, MetricKeyType.MetricKeyType.InType<Type>, MetricKeyType.MetricKeyType.OutType<Type>>
  /** The series with these labels (in this order), made once and kept: label values are a closed set. */
  readonly of: (
    ...labels: ReadonlyArray<readonly [string, string]>
  ) => Metric.Metric<Type, MetricKeyType.MetricKeyType.InType<Type>, MetricKeyType.MetricKeyType.OutType<Type>>
}

export const labelledMetric = <Type extends MetricKeyType.MetricKeyType<any, any>>(key: MetricKey.MetricKey<Type>): LabelledMetric<Type> => {
  const made = new Map<string, ReturnType<LabelledMetric<Type>["of"]>>()
  return {
    metric: Metric.fromMetricKey(key),
    of: (...labels) => {
      const id = labels.map(([name, value]) => `${name}=${value}`).join("\u0000")
      let series = made.get(id)
      if (series === undefined) {
        series = Metric.fromMetricKey(MetricKey.taggedWithLabels(key, labels.map(([name, value]) => MetricLabel.make(name, value))))
        made.set(id, series)
      }
      return series
    }
  }
}
