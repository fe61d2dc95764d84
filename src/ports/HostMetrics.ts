// Measurements of the machine and process the service runs on, for the `host` member of
// the service statistics (service.md "Service statistics (GET /v2/stats)"). A port, so the
// app never reads the operating system itself and tests can pin the figures.
//
// Contract: `measure` never fails. A figure the platform cannot give is null (the disk of
// a file system without statfs, the size of a database that does not answer), never a
// made-up number.

import type { Effect } from "effect"
import { Context } from "effect"

export interface HostMeasurements {
  /** Resident set size of this process, bytes. */
  readonly processRssBytes: number
  /** CPU time of this process since the previous measurement (or its start), as a percent of all cores' time. */
  readonly cpuPercent: number
  /** The system's 1-minute load average (0 where the platform has none). */
  readonly loadAverage1m: number
  /** Storage the log and its stores take: the data folder's files, or the PostgreSQL database. */
  readonly databaseBytes: number | null
  /** The file system holding the data folder. */
  readonly diskTotalBytes: number | null
  readonly diskUsedBytes: number | null
  /** diskUsedBytes / diskTotalBytes, as a percent with one decimal. */
  readonly diskUsedPercent: number | null
}

export class HostMetrics extends Context.Tag("aics/HostMetrics")<HostMetrics, {
  readonly measure: Effect.Effect<HostMeasurements>
}>() {}
