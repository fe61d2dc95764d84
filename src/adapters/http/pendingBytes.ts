// A bound on the bytes held for requests not yet answered, across all connections and per
// client address (issue 13 item 11; docs/operations.md "Memory held for unfinished
// requests"). Node bounds one request's head (maxHeaderSize, 1.1 MiB here for GET /t's
// long line) and the routes bound their bodies, but not how many such requests are held
// at once: 1,000 connections each sending a 1 MiB head raised the server's RSS by 1 GiB.
//
// What counts: for each connection, the bytes it has sent since its last answer went out
// (socket.bytesRead, kept by the socket's handle even while the HTTP parser reads it
// directly), that is the head and body of the request it is sending or waiting on. Every
// SWEEP_MS the counts are summed per address and in all; while an address is over its
// share, or all are over the total, the connections holding the most are destroyed (their
// buffers go with them), largest first. A connection between requests holds nothing. The
// sweep reads one integer per open connection, nothing per byte.

import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"
import { connectionsShed } from "../../app/Metrics.js"

export interface PendingBytesLimits {
  /** Bytes of unanswered requests held across all connections at most. */
  readonly total: number
  /** Bytes of unanswered requests held for one client address at most. */
  readonly perAddress: number
}

export const DEFAULT_PENDING_BYTES: PendingBytesLimits = { total: 256 * 1024 * 1024, perAddress: 16 * 1024 * 1024 }

/** How often the held bytes are summed. At loopback speed a flood sends ~50 MB in this time. */
const SWEEP_MS = 50

interface Held {
  /** bytesRead when the connection's last answer went out. */
  mark: number
}

const shed = connectionsShed.of(["reason", "pending_bytes"])

export const boundPendingBytes = (server: Server, limits: PendingBytesLimits): Server => {
  const held = new Map<Socket, Held>()
  server.on("connection", (socket: Socket) => {
    held.set(socket, { mark: 0 })
    socket.once("close", () => held.delete(socket))
  })
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    response.once("finish", () => {
      const entry = held.get(request.socket)
      if (entry !== undefined) entry.mark = request.socket.bytesRead
    })
  })

  const sweep = () => {
    if (held.size === 0) return
    let total = 0
    const byAddress = new Map<string, { bytes: number; sockets: Array<readonly [Socket, number]> }>()
    for (const [socket, entry] of held) {
      const pending = socket.bytesRead - entry.mark
      if (pending <= 0) continue
      total += pending
      const address = socket.remoteAddress ?? ""
      const group = byAddress.get(address) ?? { bytes: 0, sockets: [] }
      group.bytes += pending
      group.sockets.push([socket, pending])
      byAddress.set(address, group)
    }
    const destroy = (socket: Socket) => {
      held.delete(socket)
      socket.destroy()
      shed.unsafeUpdate(1, [])
    }
    for (const group of byAddress.values()) {
      if (group.bytes <= limits.perAddress) continue
      group.sockets.sort((a, b) => b[1] - a[1])
      for (const [socket, pending] of group.sockets) {
        if (group.bytes <= limits.perAddress) break
        destroy(socket)
        group.bytes -= pending
        total -= pending
      }
    }
    if (total <= limits.total) return
    const all = [...held].map(([socket, entry]) => [socket, socket.bytesRead - entry.mark] as const).sort((a, b) => b[1] - a[1])
    for (const [socket, pending] of all) {
      if (total <= limits.total || pending <= 0) break
      destroy(socket)
      total -= pending
    }
  }
  const timer = setInterval(sweep, SWEEP_MS)
  timer.unref()
  server.once("close", () => clearInterval(timer))
  return server
}
