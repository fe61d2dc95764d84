// What bench/scaleTraffic measures on the real service (dist/src/main.js in a child
// process, bench/serverProcess.ts): the time a start takes to answer /healthz and to accept
// a write, its resident memory, read latencies one request at a time, reads per second
// from several connections, and durable writes per second under bench/write's load (keys
// posting pre-signed entries, each key's chain in order). Requests go out on raw keep-alive
// connections (test/support/load.ts), so the client costs the shared cores little.

import type { ChildProcess } from "node:child_process"
import { readFileSync } from "node:fs"
import { makeAgent } from "../test/support/agents.js"
import { cutOff, percentile, presignPosts, rawGetter, sendInOrder, signedPost, type WriteResult } from "../test/support/load.js"
import { cpuSeconds } from "./processCpu.js"
import { benchServerPort, startServerProcess } from "./serverProcess.js"

/** The origin of a service started with the default AICS_DOMAIN (localhost). */
export const ORIGIN = "localhost/aics"

export interface RunningService {
  readonly child: ChildProcess
  readonly port: number
  readonly baseUrl: string
  readonly authority: string
}

export interface TimedStart extends RunningService {
  /** Milliseconds from the spawn to the "Listening" line, to the first 200 of /healthz, to the first 202. */
  readonly listenMs: number
  readonly healthzMs: number
  readonly firstWriteMs: number
  /** CPU the process had used when it first answered /healthz 200, seconds. */
  readonly healthzCpuSeconds: number
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Resident memory of a process (VmRSS), MiB. */
export const rssMiB = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024

/** The most resident memory a process has held since it started (VmHWM), MiB. */
export const peakRssMiB = (pid: number): number => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024

/** Starts the service on `dataDir` and times it until it answers /healthz 200 and accepts a post from a new key. */
export const timedStart = async (dataDir: string, env: Readonly<Record<string, string>>): Promise<TimedStart> => {
  const port = benchServerPort()
  const baseUrl = `http://127.0.0.1:${port}`
  const authority = `127.0.0.1:${port}`
  const started = performance.now()
  const child = await startServerProcess({ dataDir, port, env })
  const listenMs = performance.now() - started
  const health = rawGetter(baseUrl)
  try {
    while ((await health.get("/healthz")).status !== 200) await sleep(10)
  } finally {
    health.close()
  }
  const healthzMs = performance.now() - started
  const healthzCpuSeconds = cpuSeconds(child.pid!)
  // A new key each try: a refused post's nonce is spent.
  for (;;) {
    const post = signedPost(makeAgent(`first write ${Math.random()}`), "the first write after a start", { origin: ORIGIN, authority })
    const [result] = await sendInOrder(baseUrl, [[post]])
    if (result?.status === 202) break
    await sleep(10)
  }
  return { child, port, baseUrl, authority, listenMs, healthzMs, healthzCpuSeconds, firstWriteMs: performance.now() - started }
}

/** Stops the service (SIGTERM, or SIGKILL) and waits for its exit. */
export const stop = async (service: RunningService, signal: NodeJS.Signals = "SIGTERM"): Promise<void> => {
  if (service.child.exitCode !== null || service.child.signalCode !== null) return
  const exited = new Promise((resolve) => service.child.once("exit", resolve))
  service.child.kill(signal)
  await exited
}

export interface Request {
  readonly path: string
  readonly headers?: Readonly<Record<string, string>>
}

export interface Latencies {
  readonly p50: number
  readonly p99: number
  /** Answers that were not 200, by status. */
  readonly failures: Readonly<Record<string, number>>
}

/** Each request alone, one after the other on one connection (light load), after `warmup` untimed ones. */
export const timedReads = async (baseUrl: string, requests: ReadonlyArray<Request>, warmup = 20): Promise<Latencies> => {
  const getter = rawGetter(baseUrl)
  const times: Array<number> = []
  const failures: Record<string, number> = {}
  try {
    for (const [i, request] of requests.entries()) {
      const started = performance.now()
      const { status } = await getter.get(request.path, request.headers)
      if (i >= warmup) times.push(performance.now() - started)
      if (status !== 200) failures[status] = (failures[status] ?? 0) + 1
    }
  } finally {
    getter.close()
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99), failures }
}

/**
 * Requests per second from `connections` connections, each sending `next()`'s path as soon
 * as the last is answered, for `seconds`; and the service's CPU per answer (ms).
 */
export const readsPerSecond = async (
  service: RunningService,
  next: () => string,
  connections: number,
  seconds: number
): Promise<{ perSecond: number; cpuMsPerRequest: number; failures: number }> => {
  const until = performance.now() + seconds * 1000
  let answered = 0
  let failures = 0
  const cpuBefore = cpuSeconds(service.child.pid!)
  const started = performance.now()
  await Promise.all(Array.from({ length: connections }, async () => {
    const getter = rawGetter(service.baseUrl)
    try {
      while (performance.now() < until) {
        if ((await getter.get(next())).status === 200) answered++
        else failures++
      }
    } finally {
      getter.close()
    }
  }))
  const cpuMsPerRequest = ((cpuSeconds(service.child.pid!) - cpuBefore) * 1000) / Math.max(1, answered + failures)
  return { perSecond: answered / ((performance.now() - started) / 1000), cpuMsPerRequest, failures }
}

export interface WriteLoad {
  readonly accepted: number
  readonly refused: number
  /** Writes whose connection the server closed under them (a load that measured less than it says). */
  readonly notSent: number
  readonly seconds: number
  readonly perSecond: number
  readonly p50: number
  readonly p99: number
  readonly maxRssMiB: number
  /** The service's CPU per accepted entry (every thread), ms; NaN when it did not live through the load. */
  readonly cpuMsPerEntry: number
  /** The highest index a 202 named, -1 for none. */
  readonly lastIndex: number
}

/**
 * `keys` new keys posting `perKey` pre-signed posts each, every key's chain in order, all
 * keys at once (bench/write's load). RSS is sampled every 250 ms; `onResult` sees each answer.
 */
export const writeLoad = async (
  service: RunningService,
  keys: number,
  perKey: number,
  label: string,
  onResult?: (result: WriteResult) => void
): Promise<WriteLoad> => {
  const writes = presignPosts({ keys, perKey, origin: ORIGIN, authority: service.authority, label })
  let maxRss = 0
  const sampler = setInterval(() => {
    try {
      maxRss = Math.max(maxRss, rssMiB(service.child.pid!))
    } catch {
      // The process is gone (the kill of the crash phase).
    }
  }, 250)
  const cpuBefore = cpuSeconds(service.child.pid!)
  const started = performance.now()
  const results = await sendInOrder(service.baseUrl, writes, onResult).finally(() => clearInterval(sampler))
  const seconds = (performance.now() - started) / 1000
  let cpuAfter = NaN
  try {
    cpuAfter = cpuSeconds(service.child.pid!)
  } catch {
    // Killed during the load.
  }
  const accepted = results.filter((r) => r.status === 202)
  const latencies = accepted.map((r) => r.latency)
  return {
    accepted: accepted.length,
    refused: results.length - accepted.length,
    notSent: cutOff(writes, results),
    seconds,
    perSecond: accepted.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    maxRssMiB: maxRss,
    cpuMsPerEntry: ((cpuAfter - cpuBefore) * 1000) / accepted.length,
    lastIndex: accepted.reduce((last, r) => Math.max(last, r.json!.entry["index"] as number), -1)
  }
}
