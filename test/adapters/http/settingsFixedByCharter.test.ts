// The settings leaf 0 fixes (src/app/charterSettings.ts; README's table): a log started with
// the default AICS_MMD_SECONDS (1) and restarted with AICS_MMD_SECONDS=600 keeps the merge
// delay its charter promised. /healthz and the checkpoint's `tiles` say mmd_seconds 1 (they
// said 600, and tiles_lagging waited 1,200 s against a promised 1 s), and the start says in
// one warning line which variable leaf 0 overrides, with leaf 0's value. The same for
// AICS_NOTICE_PERIOD_SECONDS, which leaf 0 always fixed, silently until now.

import { afterAll, describe, expect, it } from "vitest"
import { pollUntil } from "../../support/poll.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

let server: RunningServer | undefined
let dataDir: string | undefined

afterAll(async () => {
  await server?.stop()
  if (dataDir !== undefined) await removeDir(dataDir)
})

const json = async (path: string): Promise<any> => (await fetch(`${server!.baseUrl}${path}`)).json()

describe("settings leaf 0 fixes", () => {
  it("a later start keeps leaf 0's merge delay and notice period, and says so in one line each", async () => {
    dataDir = await tempDataDir()
    server = await startServer({ dataDir })
    await pollUntil("leaf 0", async () => ((await json("/healthz")).tree_size >= 1 ? true : undefined))
    expect((await json("/healthz")).tiles.mmd_seconds).toBe(1)
    expect(server.stdout()).not.toContain("leaf 0 fixes it")
    await server.stop()

    server = await startServer({ dataDir, port: server.port, env: { AICS_MMD_SECONDS: "600", AICS_NOTICE_PERIOD_SECONDS: "60" } })
    const health = await json("/healthz")
    expect([health.status, health.tiles.mmd_seconds]).toEqual(["OK", 1])
    expect((await json("/v2/tlog/checkpoint")).tiles.mmd_seconds).toBe(1)
    const warnings = server.stdout().split("\n").filter((line) => line.includes("leaf 0 fixes it"))
    expect(warnings).toEqual([
      expect.stringMatching(/WARN .*AICS_MMD_SECONDS=600 is not leaf 0's mmd_seconds 1: leaf 0 fixes it, so this start keeps 1$/),
      expect.stringMatching(/WARN .*AICS_NOTICE_PERIOD_SECONDS=60 is not leaf 0's notice_period_seconds 2592000: leaf 0 fixes it, so this start keeps 2592000$/)
    ])
  })
})
