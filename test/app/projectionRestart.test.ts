// The directory from the projection store (state.db) through the real server (issue 12):
//   - /v2/directory and /directory answer from state.db what the log says: every claimed
//     name, in claim order, with the keys its name view (the in-memory fold of the log)
//     shows; `q` of three characters or more (the trigram index) and shorter;
//   - SIGKILL while claims are being written, then a restart: every acknowledged claim is
//     in the directory, and the directory equals the name views (a fresh fold of the log);
//   - a deleted state.db is rebuilt from the log at start, saying so, and a damaged one is
//     moved aside and rebuilt, and so is the state.db of another log: the directory answers
//     the same; damage found only while serving stops the service (exit 1, saying so) with
//     the file moved aside, and the next start rebuilds it.

import { copyFile, open, readdir, rm, writeFile } from "node:fs/promises"
import Database from "better-sqlite3"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeAgent, type TestAgent } from "../support/agents.js"
import { claimPayload } from "../support/identityAgents.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../support/server.js"
import { sendEntry } from "../support/signedHttp.js"

const ORIGIN = "localhost/aics"
let dataDir: string
let server: RunningServer | undefined
let port: number

const json = async (path: string): Promise<any> => {
  const response = await fetch(`${server!.baseUrl}${path}`)
  expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200)
  return response.json()
}

const start = async () => {
  server = await startServer({ dataDir, ...(port === 0 ? {} : { port }) })
  port = server.port
  return server
}

const agents: Array<TestAgent> = []
const claim = async (name: string) => {
  const agent = makeAgent(`projection restart ${Date.now()} ${name}`)
  const sent = await sendEntry(server!, ORIGIN, "/v2/entries", agent, "claim", claimPayload(name, agent))
  if (sent.status === 202) agents.push(agent)
  return sent.status
}

/** The directory, checked against each name's view (the log's in-memory fold). */
const directoryAgreesWithTheLog = async (): Promise<Array<string>> => {
  const { names, truncated } = await json("/v2/directory?limit=500")
  expect(truncated).toBe(false)
  const claimIndexes = names.map((n: any) => n.claim_index)
  expect(claimIndexes).toEqual([...claimIndexes].sort((a, b) => a - b))
  for (const entry of names) {
    const view = await json(`/v2/names/${entry.name}`)
    expect(entry).toEqual({
      name: view.name, tier: view.tier, kid: view.kid, kid_index: view.kid_index, recovery: view.recovery, recovery_stands: view.recovery_stands,
      x25519: view.x25519, x25519_index: view.x25519_index, claim_index: view.claim_index
    })
  }
  return names.map((n: any) => n.name)
}

beforeAll(async () => {
  dataDir = await tempDataDir()
  port = 0
  await start()
})

afterAll(async () => {
  await server?.kill()
  await removeDir(dataDir)
})

describe("the directory from state.db", () => {
  const first = ["fox-one", "fox-two", "owl-three", "ox-four", "lynx-five"]

  it("lists and searches the claimed names as the log has them", async () => {
    for (const name of first) expect(await claim(name)).toBe(202)
    expect(await directoryAgreesWithTheLog()).toEqual(first)
    expect((await json("/v2/directory?q=fox")).names.map((n: any) => n.name)).toEqual(["fox-one", "fox-two"])
    expect((await json("/v2/directory?q=FOX-T")).names.map((n: any) => n.name)).toEqual(["fox-two"])
    expect((await json("/v2/directory?q=ox")).names.map((n: any) => n.name)).toEqual(["fox-one", "fox-two", "ox-four"])
    expect((await json("/v2/directory?q=x-f")).names.map((n: any) => n.name)).toEqual(["ox-four", "lynx-five"])
    expect(await json("/v2/directory?q=fox&limit=1")).toEqual({ q: "fox", names: [expect.objectContaining({ name: "fox-one" })], truncated: true })
    expect((await json("/v2/directory?q=%25")).names).toEqual([])
    expect((await json("/directory?format=json&q=owl")).names.map((n: any) => n.name)).toEqual(["owl-three"])
  })

  it("after a SIGKILL during writes, holds every acknowledged claim and agrees with the log", async () => {
    const acknowledged: Array<string> = []
    const writes = Array.from({ length: 60 }, (_, i) => `crash-${i}`).map(async (name, i) => {
      await new Promise((resolve) => setTimeout(resolve, i * 15))
      try {
        if (await claim(name) === 202) acknowledged.push(name)
      } catch {
        // The connection died with the server: never acknowledged.
      }
    })
    // Kill once some are acknowledged and others are in flight.
    const until = Date.now() + 20_000
    while (acknowledged.length < 10 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 5))
    await server!.kill()
    await Promise.all(writes)
    expect(acknowledged.length).toBeGreaterThanOrEqual(10)

    await start()
    const names = await directoryAgreesWithTheLog()
    for (const name of [...first, ...acknowledged]) expect(names).toContain(name)
  })

  it("rebuilds a deleted state.db from the log, and a damaged one", async () => {
    const before = await json("/v2/directory?limit=500")
    await server!.stop()
    for (const suffix of ["", "-wal", "-shm"]) await rm(join(dataDir, `state.db${suffix}`), { force: true })
    await start()
    expect(server!.output()).toContain("a new or rebuilt projection")
    expect(await json("/v2/directory?limit=500")).toEqual(before)
    expect(await directoryAgreesWithTheLog()).toEqual(before.names.map((n: any) => n.name))

    await server!.stop()
    for (const suffix of ["-wal", "-shm"]) await rm(join(dataDir, `state.db${suffix}`), { force: true })
    await writeFile(join(dataDir, "state.db"), "not a database, torn by a careless copy ".repeat(200))
    await start()
    expect(server!.output()).toContain("state.db cannot be used")
    expect(await json("/v2/directory?limit=500")).toEqual(before)
    expect((await json("/v2/directory?q=crash")).names.length).toBe(before.names.filter((n: any) => n.name.includes("crash")).length)
  })

  it("stops when it finds state.db damaged while serving, and its next start rebuilds it", async () => {
    const before = await json("/v2/directory?limit=500")
    await server!.stop()
    // Pages the open does not read: the root page of the rows every write reads (the chain
    // heads), overwritten as a bad disk or a torn copy would.
    const file = join(dataDir, "state.db")
    const db = new Database(file, { readonly: true })
    const { rootpage } = db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'state_rows'").get() as { rootpage: number }
    const pageSize = db.pragma("page_size", { simple: true }) as number
    db.close()
    const handle = await open(file, "r+")
    await handle.write(Buffer.alloc(pageSize, 0xa5), 0, pageSize, (rootpage - 1) * pageSize)
    await handle.close()

    await start()
    expect(server!.output()).not.toContain("state.db cannot be used")
    const exited = new Promise<number | null>((resolve) => server!.child.once("exit", (code) => resolve(code)))
    const status = await claim("after-damage").catch(() => 0)
    expect(await exited).toBe(1)
    expect(server!.output()).toMatch(/aics: stopped on an error: storage: state\.db is damaged \(.*malformed.*\); it was moved to .*state\.db\.damaged-\d+: start the service again and it rebuilds the projection from the log/)
    expect((await readdir(dataDir)).filter((name) => /^state\.db\.damaged-\d+$/.test(name)).length).toBeGreaterThanOrEqual(1)

    await start()
    expect(server!.output()).toContain("a new or rebuilt projection")
    const after = await json("/v2/directory?limit=500")
    // A claim the log acknowledged is in the log, so in the rebuilt projection; one it did not is not.
    expect(after.names.map((n: any) => n.name)).toEqual([...before.names.map((n: any) => n.name), ...(status === 202 ? ["after-damage"] : [])])
    await directoryAgreesWithTheLog()
    expect(await claim("after-rebuild")).toBe(202)
  })

  it("rebuilds the state.db of another log", async () => {
    const before = await json("/v2/directory?limit=500")
    const otherDir = await tempDataDir()
    try {
      const other = await startServer({ dataDir: otherDir })
      const stranger = makeAgent(`projection restart ${Date.now()} stranger`)
      expect((await sendEntry(other, ORIGIN, "/v2/entries", stranger, "claim", claimPayload("stranger", stranger))).status).toBe(202)
      await other.stop()
      await server!.stop()
      for (const suffix of ["", "-wal", "-shm"]) await rm(join(dataDir, `state.db${suffix}`), { force: true })
      await copyFile(join(otherDir, "state.db"), join(dataDir, "state.db"))
    } finally {
      await removeDir(otherDir)
    }
    await start()
    expect(server!.output()).toContain("state.db is not a projection of this log")
    expect(await json("/v2/directory?limit=500")).toEqual(before)
    expect((await json("/v2/directory?q=stranger")).names).toEqual([])
  })
})
