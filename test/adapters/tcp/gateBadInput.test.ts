// The TCP gate and deeply nested input (issue 13 item 10): a line of 50,000 nested
// brackets, alone or as the argument of each verb, is answered with a plain `err <code>`
// line, never `err internal`, and the connection stays open and answers the next line.

import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { GateConnection } from "../../support/gateClient.js"
import { freePort, removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

let server: RunningServer
let gatePort: number

beforeAll(async () => {
  gatePort = await freePort()
  server = await startServer({ dataDir: await tempDataDir(), env: { AICS_GATE_PORT: String(gatePort) } })
  for (let i = 0; i < 100 && !server.output().includes("Text gate listening"); i++) await new Promise((r) => setTimeout(r, 50))
}, 60_000)

afterAll(async () => {
  await server?.stop()
  if (server !== undefined) await removeDir(server.dataDir)
})

const deep = "[".repeat(50_000) + "]".repeat(50_000)

describe("a deeply nested gate line", () => {
  it("is answered err <code> on every verb, and the connection goes on", async () => {
    const gate = await GateConnection.open(gatePort, false)
    try {
      for (const line of [deep, `post general ${deep}`, `identify ${deep}`, `prove ${deep}`, `sig ${deep}`, `entry ${deep}`,
        `name ${deep}`, `key ${deep}`, `directory ${deep}`, `posts ${deep}`, `upgrade ${deep} x`]) {
        const reply = await gate.send(line)
        const last = reply[reply.length - 1]!
        expect(last, line.slice(0, 20)).toMatch(/^err [a-z_]+ /)
        expect(last).not.toMatch(/^err internal/)
        expect(gate.closed).toBe(false)
      }
      const help = await gate.send("help")
      expect(help[help.length - 1]).toMatch(/^ok/)
    } finally {
      gate.close()
    }
  })
})
