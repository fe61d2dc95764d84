// Lets a lean route (leanEntryRoute.ts) take a request before the Effect server sees it.
// @effect/platform-node adds its own "request" listener when the server starts serving, and
// a listener cannot stop the ones after it, so the server's emit is wrapped instead: a
// "request" event goes to the lean handler first, and to the platform's listener only if it
// declines. The handler is set when the layer that builds it runs, after the server exists;
// until then, or if it never is, every request goes to the listeners. And it takes requests
// only while the platform's listener is on the server: when the service stops, the platform
// removes it before closing the server, and requests still arriving on open keep-alive
// connections in the grace that follows (closeDraining.ts) are answered by no route, the
// lean ones included (a write begun then could be durable with its answer cut).
//
// The listeners already on the server when it is wrapped watch requests rather than answer
// them (server.ts: the connection counters of connectionStates.ts, and pendingBytes.ts,
// which marks a connection's bytes as answered when its response finishes). They see every
// request, the lean routes' included, before the handler runs: when they saw only the
// platform's, a keep-alive connection that sent nothing but lean requests (a writer posting
// entries) counted every byte it ever sent as unanswered, and was closed as a flood once its
// address had sent 16 MiB.

import type { IncomingMessage, Server, ServerResponse } from "node:http"

/** A Node request handler: true when it took the request, false when HttpApi is to answer it. */
export type LeanHandler = (req: IncomingMessage, res: ServerResponse) => boolean

/** Where the lean handler is put once built. */
export interface LeanSlot {
  handler: LeanHandler | undefined
}

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void

export const leanFirst = <S extends Server>(server: S, slot: LeanSlot): S => {
  // The watchers are taken off the server and called here, first, for every request.
  const watchers = server.listeners("request") as Array<RequestListener>
  for (const watcher of watchers) server.off("request", watcher)
  const emit = server.emit
  server.emit = function(this: S, event: string | symbol, ...args: Array<unknown>): boolean {
    if (event === "request") {
      const req = args[0] as IncomingMessage
      const res = args[1] as ServerResponse
      for (const watcher of watchers) watcher.call(this, req, res)
      // Only while the platform's listener is on: after it is gone nothing answers.
      if (server.listenerCount("request") > 0 && slot.handler?.(req, res) === true) return true
    }
    return emit.apply(this, [event, ...args] as Parameters<typeof emit>) || (event === "request" && watchers.length > 0)
  } as typeof server.emit
  return server
}
