// The one failure every storage port reports: the medium failed or holds something it
// should not. Callers cannot repair it; they stop acknowledging writes and surface it.

import { Data, MetricKey } from "effect"
import { labelledMetric } from "./labelledMetric.js"

/**
 * aics_store_errors_total{operation} on /metrics (app/Metrics.ts): every storage failure is
 * counted where it is made, whichever adapter made it and whoever handles it after.
 */
export const storeErrors = labelledMetric(MetricKey.counter("aics_store_errors_total", {
  description: "Storage failures by operation.",
  incremental: true
}))

export class StorageError extends Data.TaggedError("StorageError")<{
  readonly operation: string
  readonly detail: string
  readonly cause?: unknown
}> {
  constructor(args: { readonly operation: string; readonly detail: string; readonly cause?: unknown }) {
    super(args)
    storeErrors.of(["operation", args.operation]).unsafeUpdate(1, [])
  }

  override get message(): string {
    return `${this.operation}: ${this.detail}`
  }
}
