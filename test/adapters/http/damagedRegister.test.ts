// A damaged notice register at start (issue 13 item 10): the service starts, sets the
// damaged file aside (kept as evidence), reports it by name in its log and on /healthz
// (DEGRADED, a reason naming notices/notices.json, no absolute path), and takes new
// notices into a fresh register.

import { readdir, readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

let server: RunningServer | undefined

afterAll(async () => {
  await server?.stop()
  if (server !== undefined) await removeDir(server.dataDir)
})

describe("a notice register damaged on disk", () => {
  it("is set aside and reported by name; the service starts and takes notices", async () => {
    server = await startServer({ dataDir: await tempDataDir() })
    await server.stop()
    const folder = join(server.dataDir, "notices")
    await writeFile(join(folder, "notices.json"), "[{\"report_id\": \"torn")

    server = await startServer({ dataDir: server.dataDir, port: server.port })
    expect(server.output()).toContain("damage found at start")
    const health = await (await fetch(`${server.baseUrl}/healthz`)).json() as { status: string; reasons: Array<string> }
    expect(health.status).toBe("DEGRADED")
    const reason = health.reasons.find((r) => r.startsWith("damaged:"))
    expect(reason).toContain("notices/notices.json")
    expect(reason).not.toContain(server.dataDir)
    const aside = (await readdir(folder)).filter((name) => name.startsWith("notices.json.damaged-"))
    expect(aside).toHaveLength(1)
    expect(await readFile(join(folder, aside[0]!), "utf8")).toBe("[{\"report_id\": \"torn")

    const filed = await fetch(`${server.baseUrl}/notice`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        location: "https://example.test/post/1", explanation: "A notice after the damage.", name: "Jane", email: "jane@example.test", accurate: true
      })
    })
    expect(filed.status).toBe(201)
    expect(JSON.parse(await readFile(join(folder, "notices.json"), "utf8"))).toHaveLength(1)
  })
})
