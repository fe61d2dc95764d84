// Lets a lean route (leanEntryRoute.ts) take a request before the Effect server sees it.
// @effect/platform-node adds its own "request" listener when the server starts serving, and
// a listener cannot stop the ones after it, so the server's emit is wrapped instead: a
// "request" event goes to the lean handler first, and to the listeners only if it declines.
// The handler is set when the layer that builds it runs, after the server exists; until
// then, or if it never is, every request goes to the listeners.

import type { IncomingMessage, Server, ServerResponse } from "node:http"

/** A Node request handler: true when it took the request, false when HttpApi is to answer it. */
export type LeanHandler = (req: IncomingMessage, res: ServerResponse) => boolean

/** Where the lean handler is put once built. */
export interface LeanSlot {
  handler: LeanHandler | undefined
}

export const leanFirst = <S extends Server>(server: S, slot: LeanSlot): S => {
  const emit = server.emit
  server.emit = function(this: S, event: string | symbol, ...args: Array<unknown>): boolean {
    if (event === "request" && slot.handler?.(args[0] as IncomingMessage, args[1] as ServerResponse) === true) return true
    return emit.apply(this, [event, ...args] as Parameters<typeof emit>)
  } as typeof server.emit
  return server
}
