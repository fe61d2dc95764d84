// A cap on the connections one client address holds at once on a listener (issue 13 item 3;
// docs/protocol.md "Fair admission"), well below the listener's global cap, so no single
// address can fill it and lock everyone else out. Counted on the raw connection, before
// TLS or HTTP, so handshakes and idle keep-alive connections count. The address is
// grouped as the budgets group it (IPv6 by /64, domain/admission/clientAddress.ts).
// Trusted proxies (AICS_TRUSTED_PROXIES) are exempt: they carry many clients' connections.

import type { Server } from "node:net"
import type { Socket } from "node:net"
import { addressGroup, type Cidr, isTrusted } from "../../domain/admission/clientAddress.js"

export interface ConnectionCap {
  /** Connections held now by the address group of `address`. */
  readonly held: (address: string) => number
}

export const capConnectionsPerAddress = (server: Server, cap: number, trusted: ReadonlyArray<Cidr> = []): ConnectionCap => {
  const perAddress = new Map<string, number>()
  server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? ""
    if (isTrusted(address, trusted)) return
    const group = addressGroup(address)
    const count = (perAddress.get(group) ?? 0) + 1
    if (count > cap) return void socket.destroy()
    perAddress.set(group, count)
    socket.once("close", () => {
      const left = (perAddress.get(group) ?? 1) - 1
      if (left === 0) perAddress.delete(group)
      else perAddress.set(group, left)
    })
  })
  return { held: (address) => perAddress.get(addressGroup(address)) ?? 0 }
}
