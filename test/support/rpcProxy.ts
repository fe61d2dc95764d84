// A JSON-RPC proxy in front of the local chain (test/support/chain.ts) that can misbehave on
// demand, for the chain oracle's failure paths: answer honestly, claim another chain id,
// report a block whose hash is not the receipt's (a reorganisation under way), or never
// answer (a timeout). Listens on a free loopback port; `close` stops it.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export type ProxyMode = "honest" | "wrong_chain" | "stale_block" | "hang"

export interface RpcProxy {
  readonly url: string
  mode: ProxyMode
  /** JSON-RPC requests received so far. */
  readonly requests: () => number
  readonly close: () => Promise<void>
}

const bodyOf = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let text = ""
    request.on("data", (c: Buffer) => { text += c.toString() })
    request.on("end", () => resolve(text))
    request.on("error", reject)
  })

export const startRpcProxy = async (upstream: string): Promise<RpcProxy> => {
  const hanging = new Set<ServerResponse>()
  const proxy: { mode: ProxyMode } = { mode: "honest" }
  let requests = 0
  const server = createServer(async (request, response) => {
    const text = await bodyOf(request)
    requests++
    if (proxy.mode === "hang") {
      hanging.add(response)
      return
    }
    const call = JSON.parse(text) as { method: string; id: number }
    const answer = await fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body: text })
    const json = await answer.json() as { result?: any }
    if (proxy.mode === "wrong_chain" && call.method === "eth_chainId") json.result = "0x5"
    if (proxy.mode === "stale_block" && call.method === "eth_getBlockByNumber" && json.result) json.result = { ...json.result, hash: `0x${"de".repeat(32)}` }
    response.writeHead(200, { "content-type": "application/json" })
    response.end(JSON.stringify(json))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    get mode() {
      return proxy.mode
    },
    set mode(m: ProxyMode) {
      proxy.mode = m
    },
    close: async () => {
      for (const r of hanging) r.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
