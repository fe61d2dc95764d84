// A TCP proxy a test can take down and bring back, as an operator's network or a proxy in
// front of PostgreSQL fails: `cut` closes the listener and every connection through it (the
// clients see their connections end, then connections refused), `restore` listens again on
// the same port. `freeze` drops the network silently instead, as a firewall or a half-open
// path does: nothing is forwarded either way and nobody is told, connections stay open,
// new ones are accepted and hear nothing, a side's close is not passed on; `thaw` delivers
// what was held, in order, as retransmissions would once the path works again. Loopback only.

import { createConnection, createServer, type Server, type Socket } from "node:net"
import type { AddressInfo } from "node:net"

export interface TcpProxy {
  readonly port: number
  readonly cut: () => Promise<void>
  readonly restore: () => Promise<void>
  /** Forwards nothing more, and tells nobody, until `thaw`. */
  readonly freeze: () => void
  readonly thaw: () => void
  /** Closes it for good. */
  readonly close: () => Promise<void>
}

export const startTcpProxy = async (upstream: { readonly host: string; readonly port: number }): Promise<TcpProxy> => {
  const sockets = new Set<Socket>()
  let frozen = false
  /** What a freeze held back: chunks to write and sockets to close, in the order they came. */
  let held: Array<() => void> = []
  const whenFlowing = (step: () => void) => (frozen ? void held.push(step) : step())
  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.once("close", () => sockets.delete(socket))
  }
  const forward = (from: Socket, to: Socket) => {
    from.on("data", (chunk) => whenFlowing(() => void to.write(chunk)))
    from.on("error", () => whenFlowing(() => to.destroy()))
    from.on("close", () => whenFlowing(() => to.destroy()))
  }
  const listen = (port: number) =>
    new Promise<Server>((resolve, reject) => {
      const server = createServer((client) => {
        const remote = createConnection(upstream)
        track(client)
        track(remote)
        forward(client, remote)
        forward(remote, client)
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
    thaw,
    close: async () => {
      thaw()
      await cut()
    }
  }
}
