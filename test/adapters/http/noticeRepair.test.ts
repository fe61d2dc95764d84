// A notice closed while the process dies between its two durable steps (the report leaf,
// then the register's record): the log has closed the notice and the register still holds
// it open. The disk state of that crash is made exactly (the register file as it was
// before the close, the log with the report leaf), and the restarted server settles the
// register from the leaf; a second close is refused and writes nothing.

import { copyFile } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ownerSeedOf, signedJson } from "../../support/signedHttp.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

let dataDir: string
let server: RunningServer

beforeAll(async () => {
  dataDir = await tempDataDir()
  server = await startServer({ dataDir })
})

afterAll(async () => {
  await server?.stop()
  await removeDir(dataDir)
})

const committed = async () =>
  (await (await fetch(`${server.baseUrl}/v2/tlog/checkpoint`)).json() as { tiles: { size: number } }).tiles.size

describe("a close interrupted between the report leaf and the register", () => {
  it("is settled from the log at start, and a second close writes nothing", async () => {
    const owner = await ownerSeedOf(dataDir)
    const filed = await fetch(`${server.baseUrl}/notice`, {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ location: "https://example.test/p/1", explanation: "This post repeats my address.", accurate: true })
    })
    expect(filed.status).toBe(201)
    const reportId = (await filed.json() as { report_id: string }).report_id
    const register = join(dataDir, "notices", "notices.json")
    await copyFile(register, `${register}.before-close`)

    const closed = await signedJson(server, "POST", `/v2/admin/notices/${reportId}/close`, owner, { outcome: "no_action" })
    expect(closed.status).toBe(201)
    const reportIndex = closed.json.entry.index as number

    // The crash: the leaf is durable, the register's update is not.
    await server.stop()
    await copyFile(`${register}.before-close`, register)
    server = await startServer({ dataDir })

    const list = await signedJson(server, "GET", "/v2/admin/notices?status=closed", owner)
    expect(list.status).toBe(200)
    const record = (list.json.notices as Array<any>).find((n) => n.report_id === reportId)
    expect(record).toMatchObject({ status: "closed", outcome: "no_action", report_index: reportIndex })
    expect(typeof record.closed).toBe("number")

    const size = await committed()
    const again = await signedJson(server, "POST", `/v2/admin/notices/${reportId}/close`, owner, { outcome: "invalid" })
    expect(again.status).toBe(409)
    expect(again.json.entry.refused).toBe("notice_closed")
    expect(await committed()).toBe(size)
  })
})
