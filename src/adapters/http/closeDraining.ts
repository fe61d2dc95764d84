// How the HTTP server stops. Node's server.close() stops accepting and closes the
// connections that are idle at that moment, once; it then waits for every other
// connection to end by itself. A connection busy at that moment (a response still being
// written, or an upload the service already answered, 413, and is draining) becomes idle
// later and then stays open until its keep-alive timeout, 65 s (server.ts), so a SIGTERM
// could take that long. And a client that never finishes its request would hold the
// process until requestTimeout.
//
// So after close() the server keeps closing connections as they fall idle, and past a
// grace period closes whatever is left: a request not answered within the grace is cut,
// which is what a stopping service must do. A write cut this way may still become
// durable; its client, having no receipt, learns the outcome from the log.

import type { Server } from "node:http"

/** How often connections that have fallen idle since close() are closed. */
const IDLE_POLL_MS = 50

/** How long requests still in flight at close() have to finish. */
export const SHUTDOWN_GRACE_MS = 5_000

/** Emitted on the server when close() is called: responses that never end by themselves end now. */
export const DRAINING_EVENT = "aics:draining"

/** Makes `server.close()` end connections as they fall idle, and all of them after the grace. */
export const closeDraining = <S extends Server>(server: S): S => {
  const close = server.close.bind(server)
  server.close = (callback?: (error?: Error) => void) => {
    // Long-lived responses (the live stream) end themselves on this, rather than wait for the grace.
    server.emit(DRAINING_EVENT)
    const started = Date.now()
    const poll = setInterval(() => {
      if (Date.now() - started >= SHUTDOWN_GRACE_MS) server.closeAllConnections()
      else server.closeIdleConnections()
    }, IDLE_POLL_MS)
    poll.unref()
    close((error) => {
      clearInterval(poll)
      callback?.(error)
    })
    return server
  }
  return server
}
