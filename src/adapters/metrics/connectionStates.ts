// Open connections by state for /metrics (aics_connections{listener,state}): on HTTP
// `active` while a request on it is answered and `idle` while a keep-alive connection waits
// for the next; on the gate's TCP ports `open` (a session lives as long as its connection),
// counted from the servers' own events. The gauges are set on every change: two integer updates per
// connection or request, nothing per byte.

import type { Server as HttpServer } from "node:http"
import type { Server, Socket } from "node:net"
import { Metric } from "effect"
import { connections } from "../../app/Metrics.js"

/** The two gauges of a listener (ports/labelledMetric.ts: a series found once, updated directly). */
const gauges = new Map<string, { readonly active: Metric.Metric.Gauge<number>; readonly idle: Metric.Metric.Gauge<number> }>()
const gaugesOf = (listener: string) => {
  let made = gauges.get(listener)
  if (made === undefined) {
    made = { active: connections.of(["listener", listener], ["state", "active"]), idle: connections.of(["listener", listener], ["state", "idle"]) }
    gauges.set(listener, made)
  }
  return made
}

const totals = new Map<string, { open: number; active: number }>()

const publish = (listener: string) => {
  const counts = totals.get(listener)!
  const { active, idle } = gaugesOf(listener)
  active.unsafeUpdate(counts.active, [])
  idle.unsafeUpdate(counts.open - counts.active, [])
}

const countsOf = (listener: string) => {
  let counts = totals.get(listener)
  if (counts === undefined) {
    counts = { open: 0, active: 0 }
    totals.set(listener, counts)
  }
  return counts
}

/** Counts an HTTP server's connections: active while a request on it is answered. */
export const trackHttpConnections = (server: HttpServer, listener = "http") => {
  const counts = countsOf(listener)
  publish(listener)
  server.on("connection", (socket: Socket) => {
    counts.open++
    publish(listener)
    socket.once("close", () => {
      counts.open--
      publish(listener)
    })
  })
  server.on("request", (_request, response: { once: (event: "close", f: () => void) => void }) => {
    counts.active++
    publish(listener)
    response.once("close", () => {
      counts.active--
      publish(listener)
    })
  })
  return server
}

/** Counts a TCP server's open connections (the gate: a session lives as long as its connection). */
export const trackTcpConnections = (server: Server, listener = "gate") => {
  const open = connections.of(["listener", listener], ["state", "open"])
  let count = 0
  open.unsafeUpdate(0, [])
  server.on("connection", (socket: Socket) => {
    open.unsafeUpdate(++count, [])
    socket.once("close", () => open.unsafeUpdate(--count, []))
  })
}
