// A TCP proxy a test can take down and bring back, as an operator's network or a proxy in
// front of PostgreSQL fails: `cut` closes the listener and every connection through it (the
// clients see their connections end, then connections refused), `restore` listens again on
// the same port. `freeze` drops the network silently instead, as a firewall or a half-open
// path does: nothing is forwarded either way and nobody is told, connections stay open,
// new ones are accepted and hear nothing, a side's close is not passed on; `thaw` delivers
// what was held, in order, as retransmissions would once the path works again. Loopback only.
// `roundTripMs` makes the database distant: everything is passed on half that late each way,
// in order, and `setupRoundTrips` more round trips pass before a connection's first bytes
// reach the database, as TCP's handshake, TLS and SCRAM take before a first statement.
// `moveTo` changes the distance while it runs (a failover to another region, a network path
// that changed): what is passed on from then on is that late, still in order, and the
// connections made from then on have that set-up.

import { createConnection, createServer, type Server, type Socket } from "node:net"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"

export interface TcpProxy {
  readonly port: number
  readonly cut: () => Promise<void>
  readonly restore: () => Promise<void>
  /** Forwards nothing more, and tells nobody, until `thaw`. */
  readonly freeze: () => void
  /** Makes the database this far from now on (undefined: near). */
  readonly moveTo: (distance: Distance | undefined) => void
  readonly thaw: () => void
  /** Closes it for good. */
  readonly close: () => Promise<void>
}

export interface Distance {
  readonly roundTripMs: number
  readonly setupRoundTrips?: number
}

/** Runs steps at their due times, in the order given (a due time never earlier than the last). */
const lateSteps = () => {
  const queue: Array<{ readonly due: number; readonly step: () => void }> = []
  let lastDue = 0
  let timer: NodeJS.Timeout | undefined
  const drain = () => {
    timer = undefined
    while (queue.length > 0 && queue[0]!.due <= Date.now()) queue.shift()!.step()
    if (queue.length > 0) timer = setTimeout(drain, queue[0]!.due - Date.now())
  }
  return {
    at: (due: number, step: () => void) => {
      lastDue = Math.max(due, lastDue)
      queue.push({ due: lastDue, step })
      timer ??= setTimeout(drain, lastDue - Date.now())
    },
    /** Whether no step waits: one passed on at once then keeps the order. */
    idle: () => queue.length === 0
  }
}

export const startTcpProxy = async (upstream: { readonly host: string; readonly port: number }, initialDistance?: Distance): Promise<TcpProxy> => {
  let distance = initialDistance
  const sockets = new Set<Socket>()
  let frozen = false
  /** What a freeze held back: chunks to write and sockets to close, in the order they came. */
  let held: Array<() => void> = []
  const whenFlowing = (step: () => void) => (frozen ? void held.push(step) : step())
  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.once("close", () => sockets.delete(socket))
  }
  const forward = (from: Socket, to: Socket, setupMs: number) => {
    const later = lateSteps()
    const start = Date.now() + setupMs
    const passed = (step: () => void) => {
      const oneWayMs = (distance?.roundTripMs ?? 0) / 2
      // Through the late steps whenever some were delayed: a step never overtakes one before it.
      return oneWayMs === 0 && Date.now() >= start && later.idle() ? whenFlowing(step) : later.at(Math.max(Date.now(), start) + oneWayMs, () => whenFlowing(step))
    }
    from.on("data", (chunk) => passed(() => void to.write(chunk)))
    from.on("error", () => passed(() => to.destroy()))
    from.on("close", () => passed(() => to.destroy()))
  }
  const listen = (port: number) =>
    new Promise<Server>((resolve, reject) => {
      const server = createServer((client) => {
        const remote = createConnection(upstream)
        track(client)
        track(remote)
        forward(client, remote, (distance?.setupRoundTrips ?? 0) * (distance?.roundTripMs ?? 0))
        forward(remote, client, 0)
      })
      server.once("error", reject)
      server.listen(port, "127.0.0.1", () => resolve(server))
    })
  let server: Server | undefined = await listen(0)
  const port = (server.address() as AddressInfo).port
  const cut = async () => {
    const closing = server
    server = undefined
    if (closing === undefined) return
    const closed = new Promise<void>((resolve) => closing.close(() => resolve()))
    for (const socket of sockets) socket.destroy()
    await closed
  }
  const thaw = () => {
    frozen = false
    const steps = held
    held = []
    for (const step of steps) step()
  }
  return {
    port,
    cut,
    restore: async () => {
      server ??= await listen(port)
    },
    freeze: () => {
      frozen = true
    },
    moveTo: (next) => {
      distance = next
    },
    thaw,
    close: async () => {
      thaw()
      await cut()
    }
  }
}

/**
 * A proxy in front of the database at `url`, closed with the scope, and the database's URL
 * through it.
 */
export const databaseBehindProxy = (url: string, distance?: Distance) =>
  Effect.map(
    Effect.acquireRelease(
      Effect.promise(() => {
        const { hostname, port } = new URL(url)
        return startTcpProxy({ host: hostname, port: Number(port || 5432) }, distance)
      }),
      (proxy) => Effect.promise(() => proxy.close())
    ),
    (proxy) => {
      const through = new URL(url)
      through.hostname = "127.0.0.1"
      through.port = String(proxy.port)
      return { proxy, url: through.toString() }
    }
  )
