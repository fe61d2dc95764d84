// The charter check of a later start (src/app/Charter.ts): leaf 0 fixed the instance domain
// as well as the origin, so a start with another AICS_DOMAIN is refused in one line naming
// AICS_DOMAIN and leaf 0's value, with AICS_ORIGIN set to leaf 0's origin or left to its
// default (<domain>/aics) alike; and on PostgreSQL the refusal names the database the log is
// in (never its password), not the data folder, which holds only keys there.

import { Effect, Exit, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { startNode } from "../support/nodes.js"
import { testDatabase } from "../support/pg.js"
import { freePort, removeDir, runMainToExit, startServer, tempDataDir } from "../support/server.js"
import { folderState, refusalLine } from "../support/refusedStart.js"

const db = testDatabase()
const scope = Effect.runSync(Scope.make())
const cleanup: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const step of cleanup.reverse()) await step()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

describe("a later start with another AICS_DOMAIN", () => {
  it("is refused naming AICS_DOMAIN and leaf 0's instance_domain, whether AICS_ORIGIN is set to leaf 0's origin or not", async () => {
    const dataDir = await tempDataDir()
    cleanup.push(() => removeDir(dataDir))
    const port = await freePort()
    const server = await startServer({ dataDir, port, env: { AICS_DOMAIN: "walk.test" } })
    cleanup.push(() => server.stop())
    await server.stop()
    const before = await folderState(dataDir)
    const expected = `aics: cannot start: leaf 0 of the log in ${dataDir} names instance_domain "walk.test", but this start uses "other.example": check AICS_DOMAIN (or AICS_DATA_DIR / AICS_DATABASE_URL: the folder or database of another log)`

    const starts: ReadonlyArray<Record<string, string>> = [{ AICS_DOMAIN: "other.example", AICS_ORIGIN: "walk.test/aics" }, { AICS_DOMAIN: "other.example" }]
    for (const env of starts) {
      const line = refusalLine(await runMainToExit({ AICS_DATA_DIR: dataDir, AICS_PORT: String(port), ...env }))
      expect(line, JSON.stringify(env)).toBe(expected)
      expect(await folderState(dataDir)).toEqual(before)
    }

    // The origin alone changed, the domain leaf 0's: AICS_ORIGIN is named.
    const origin = refusalLine(await runMainToExit({ AICS_DATA_DIR: dataDir, AICS_PORT: String(port), AICS_DOMAIN: "walk.test", AICS_ORIGIN: "walk.test/other" }))
    expect(origin).toBe(`aics: cannot start: leaf 0 of the log in ${dataDir} names origin "walk.test/aics", but this start uses "walk.test/other": check AICS_ORIGIN (or AICS_DATA_DIR / AICS_DATABASE_URL: the folder or database of another log)`)
    expect(await folderState(dataDir)).toEqual(before)
  }, 120_000)
})

describe.skipIf(!db.multiSession)("a later start on PostgreSQL that the charter check refuses", () => {
  it("names the database the log is in, without its password, not the data folder", async () => {
    const schemaUrl = new URL(await Effect.runPromise(Scope.extend(db.freshSchema, scope)))
    // A password the server (trust authentication) does not need: it must never be printed.
    schemaUrl.password = "walk-secret"
    const url = schemaUrl.toString()
    const node = await startNode({ databaseUrl: url, dataDir: await tempDataDir() })
    cleanup.push(() => removeDir(node.dataDir))
    cleanup.push(() => node.stop())
    await node.stop()

    const result = await runMainToExit({ AICS_DATA_DIR: node.dataDir, AICS_PORT: String(await freePort()), AICS_DATABASE_URL: url, AICS_ORIGIN: "elsewhere.test/aics" })
    const line = refusalLine(result)
    expect(line).toBe(`aics: cannot start: leaf 0 of the log in the database at ${schemaUrl.host}${schemaUrl.pathname} (AICS_DATABASE_URL) names origin "localhost/aics", but this start uses "elsewhere.test/aics": check AICS_ORIGIN (or AICS_DATA_DIR / AICS_DATABASE_URL: the folder or database of another log)`)
    expect(result.output).not.toContain("walk-secret")
  }, 120_000)
})
