// Measurements of the machine and process the service runs on, for the `host` member of
// the service statistics (docs/spec/service.md "Service statistics (GET /v2/stats)"). A port, so the
// app never reads the operating system itself and tests can pin the figures.
//
// Contract: `measure` never fails and never waits on the disk or the database: it serves
// the latest samples, taken in the background. A figure the platform cannot give, or not
// measured yet, is null (the disk of a file system without statfs, the size of a database
// that does not answer), never a made-up number.

import type { Effect } from "effect"
import { Context } from "effect"

export interface HostMeasurements {
  /** Resident set size of this process, bytes. */
  readonly processRssBytes: number
  /** CPU time of this process between the last two samples (the first from its start), as a percent of the cores it may use. */
  readonly cpuPercent: number
  /** The system's 1-minute load average (0 where the platform has none). */
  readonly loadAverage1m: number
  /** Storage the log and its stores take: the data folder's files, or the PostgreSQL database. */
  readonly databaseBytes: number | null
  /** The file system holding the data folder. */
  readonly diskTotalBytes: number | null
  readonly diskUsedBytes: number | null
  /** diskUsedBytes / (diskUsedBytes + the bytes available to users), as df counts it, a percent with one decimal. */
  readonly diskUsedPercent: number | null
}

export class HostMetrics extends Context.Tag("aics/HostMetrics")<HostMetrics, {
  readonly measure: Effect.Effect<HostMeasurements>
  /** Whole seconds since this process started (not since the service's layers were built). */
  readonly uptimeSeconds: Effect.Effect<number>
}>() {}
