// A TCP proxy a test can take down and bring back, as an operator's network or a proxy in
// front of PostgreSQL fails: `cut` closes the listener and every connection through it (the
// clients see their connections end, then connections refused), `restore` listens again on
// the same port. Loopback only.

import { createConnection, createServer, type Server, type Socket } from "node:net"
import type { AddressInfo } from "node:net"

export interface TcpProxy {
  readonly port: number
  readonly cut: () => Promise<void>
  readonly restore: () => Promise<void>
  /** Closes it for good. */
  readonly close: () => Promise<void>
}

export const startTcpProxy = async (upstream: { readonly host: string; readonly port: number }): Promise<TcpProxy> => {
  const sockets = new Set<Socket>()
  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.once("close", () => sockets.delete(socket))
  }
  const listen = (port: number) =>
    new Promise<Server>((resolve, reject) => {
      const server = createServer((client) => {
        const remote = createConnection(upstream)
        track(client)
        track(remote)
        client.pipe(remote)
        remote.pipe(client)
        client.on("error", () => remote.destroy())
        remote.on("error", () => client.destroy())
        client.on("close", () => remote.destroy())
        remote.on("close", () => client.destroy())
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
  return {
    port,
    cut,
    restore: async () => {
      server ??= await listen(port)
    },
    close: cut
  }
}
