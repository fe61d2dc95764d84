// ownSockets' bound on a statement (src/adapters/pg/ownSockets.ts): an answer that arrives
// while the event loop is stalled (a long collection, a busy batch) is taken, not given up on
// because the limit's timer runs before the sockets are read; a statement that does not
// answer fails with a StorageError once the limit has passed. openCount no longer counts a
// socket the server closed (the storage watch then gives its next check the set-up's bound).

import { stat } from "node:fs"
import { once } from "node:events"
import { createServer, type AddressInfo } from "node:net"
import { Duration, Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { ownSockets } from "../../../src/adapters/pg/ownSockets.js"
import { StorageError } from "../../../src/ports/StorageError.js"

/** Blocks the event loop for `ms`, as a long collection or a busy batch does. */
const stall = (ms: number) => {
  const until = performance.now() + ms
  while (performance.now() < until) {
    // busy
  }
}

// An answer delivered by the event loop's poll for I/O (a file's stat, as a socket's data
// would be), asked just before the loop stalls for longer than the limit.
const answerDuringStall = Effect.async<string, StorageError>((resume) => {
  stat(import.meta.filename ?? ".", () => resume(Effect.succeed("answered")))
  stall(200)
})

// Run from the loop's check phase (setImmediate), so the timers phase, where the limit's
// timer fires, comes before the next poll for I/O.
const fromCheckPhase = <A, E>(effect: Effect.Effect<A, E>) =>
  new Promise<Exit.Exit<A, E>>((resolve) => setImmediate(() => void Effect.runPromiseExit(effect).then(resolve)))

describe("ownSockets.within", () => {
  it("takes an answer that arrived while the event loop was stalled past the limit", async () => {
    const sockets = ownSockets()
    const exit = await fromCheckPhase(answerDuringStall.pipe(sockets.within(Duration.millis(50), "lease")))
    expect(exit).toEqual(Exit.succeed("answered"))
  })

  it("fails with a StorageError naming the limit when nothing answers", async () => {
    const sockets = ownSockets()
    const exit = await fromCheckPhase(Effect.never.pipe(sockets.within(Duration.millis(50), "lease")))
    expect(Exit.isFailure(exit)).toBe(true)
    if (Exit.isFailure(exit)) expect(String(exit.cause)).toContain("the database did not answer within 50ms")
  })
})

describe("ownSockets.openCount", () => {
  it("counts a socket made until it closes, also when the server is the one that closes it", async () => {
    const server = createServer((connection) => connection.end())
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      const sockets = ownSockets()
      expect(await Effect.runPromise(sockets.openCount)).toBe(0)
      const socket = sockets.stream()
      const closed = once(socket, "close")
      socket.connect((server.address() as AddressInfo).port, "127.0.0.1")
      expect(await Effect.runPromise(sockets.openCount)).toBe(1)
      await closed
      expect(await Effect.runPromise(sockets.openCount)).toBe(0)
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})
