// SIGTERM (docs/operations.md "Stopping"): the process exits right after its `aics stopped`
// line, nothing (a timer, a worker thread, a pool) holding it open after it says so. Timed
// from the parent, which sees the exit at once: a shell polling a pid it left in the
// background sees a zombie for as long as init takes to reap it, which is not the service.

import { afterAll, describe, expect, it } from "vitest"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

let server: RunningServer | undefined

afterAll(async () => {
  await server?.stop()
  if (server !== undefined) await removeDir(server.dataDir)
})

describe("a service told to stop", () => {
  it("exits right after it says `aics stopped`", async () => {
    server = await startServer({ dataDir: await tempDataDir() })
    // Requests first, so that the listener has connections to close.
    for (let i = 0; i < 3; i++) expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200)
    let stoppedAt: number | undefined
    const onOutput = () => {
      if (stoppedAt === undefined && server!.output().includes("aics stopped")) stoppedAt = performance.now()
    }
    server.child.stdout!.on("data", onOutput)
    server.child.stderr!.on("data", onOutput)
    const signalledAt = performance.now()
    await server.stop()
    const exitedAt = performance.now()
    expect(server.child.exitCode).toBe(0)
    expect(stoppedAt, server.output()).toBeDefined()
    // Measured at 30 to 60 ms on a loaded machine; the bound leaves room for a slow one.
    expect(exitedAt - stoppedAt!).toBeLessThan(1000)
    // No request held it: nothing waited for the drain's 5 s grace.
    expect(exitedAt - signalledAt).toBeLessThan(4000)
  })
})
