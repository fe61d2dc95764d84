// A restart of a log whose data folder lacks owner.kid (a restore that left it out, a node
// given only keys/) takes the owner from leaf 0: it makes no owner key, writes owner.kid
// again and says so. A start that cannot work (an AICS_OWNER_KID or an owner.kid of another
// owner, a value that is no did:key) is one line naming the variable or the file and the
// value as given, and leaves the data folder as it found it (README "Set up"). So does a start
// the charter check refuses (leaf 0 of another origin): the stores open only after it
// (src/storageLayers.ts), and only the start that creates a log makes keys, so a folder
// restored without state.db gets none from a start that cannot serve it.

import { cp, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { didKeyFromPublicKey } from "../../../src/domain/identity/didKey.js"
import { startNode } from "../../support/nodes.js"
import { testDatabase } from "../../support/pg.js"
import { freePort, removeDir, runMainToExit as startFails, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

const db = testDatabase()
const scope = Effect.runSync(Scope.make())
const cleanup: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const step of cleanup.reverse()) await step()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

/** The data folder's files and the bytes of its key files: what a refused start must not change. */
const folderState = async (dataDir: string) => {
  const names = (await readdir(dataDir, { recursive: true })).sort()
  const keys: Record<string, string> = {}
  for (const name of (await readdir(join(dataDir, "keys"))).sort()) keys[name] = await readFile(join(dataDir, "keys", name), "utf8")
  return { names, keys }
}

const missing = (path: string) => stat(path).then(() => false, () => true)

/** The last line a refused start printed, which must be its only `aics: cannot start:` line. */
const refusalLine = (result: { code: number | null; output: string }) => {
  expect(result.code, result.output).toBe(1)
  const lines = result.output.trim().split("\n")
  expect(lines.filter((line) => line.startsWith("aics: cannot start:")), result.output).toHaveLength(1)
  expect(result.output).not.toMatch(/\n\s+at /)
  return lines.at(-1)!
}

describe("a restart of a log without owner.kid", () => {
  it("takes the owner from leaf 0, and refuses another owner in one line naming the variable or the file", async () => {
    const dataDir = await tempDataDir()
    cleanup.push(() => removeDir(dataDir))
    const away = await mkdtemp(join(tmpdir(), "aics-owner-away-"))
    cleanup.push(() => removeDir(away))
    const ownerKidPath = join(dataDir, "owner.kid")
    const ownerKeyPath = join(dataDir, "owner.key")

    let server: RunningServer = await startServer({ dataDir })
    cleanup.push(() => server.stop())
    const owner = (await readFile(ownerKidPath, "utf8")).trim()
    await server.stop()

    // The owner key moved off the machine, as the first start asks; owner.kid lost.
    await rename(ownerKeyPath, join(away, "owner.key"))
    await rm(ownerKidPath)
    const before = await folderState(dataDir)
    const port = String(await freePort())

    // Another owner given: refused, naming AICS_OWNER_KID and both owners; nothing made.
    const other = didKeyFromPublicKey(nodeCrypto.ed25519.publicKey(new Uint8Array(32).fill(21)))
    const otherOwner = refusalLine(await startFails({ AICS_DATA_DIR: dataDir, AICS_PORT: port, AICS_OWNER_KID: other }))
    expect(otherOwner).toBe(`aics: cannot start: AICS_OWNER_KID is ${other}, but leaf 0 of the log in ${dataDir} names the owner ${owner}, fixed for the life of the log: set AICS_OWNER_KID to ${owner}, or leave it unset`)
    expect(await folderState(dataDir)).toEqual(before)

    // A value that is no did:key: the value as given, not the Option that holds it.
    const bogus = refusalLine(await startFails({ AICS_DATA_DIR: dataDir, AICS_PORT: port, AICS_OWNER_KID: "did:key:zBOGUS" }))
    expect(bogus).toBe(`aics: cannot start: bad setting: AICS_OWNER_KID must be the did:key of an Ed25519 key (did:key:z6Mk...), got "did:key:zBOGUS"`)
    expect(await folderState(dataDir)).toEqual(before)

    // Without AICS_OWNER_KID: leaf 0's owner, owner.kid written again, no owner key made.
    server = await startServer({ dataDir, port: Number(port) })
    await server.stop()
    expect(server.child.exitCode).toBe(0)
    expect((await readFile(ownerKidPath, "utf8")).trim()).toBe(owner)
    expect(await missing(ownerKeyPath)).toBe(true)
    expect(server.output()).toContain(`${ownerKidPath} was missing: wrote it from leaf 0, which names the owner ${owner}.`)
    expect(server.output()).not.toContain("Created the owner key")

    // An owner.kid of another owner (what an earlier version's start wrote): the file is
    // named, with the right AICS_OWNER_KID given too, and nothing changes.
    await writeFile(ownerKidPath, other + "\n")
    const withStray = await folderState(dataDir)
    const stray = refusalLine(await startFails({ AICS_DATA_DIR: dataDir, AICS_PORT: port, AICS_OWNER_KID: owner }))
    expect(stray).toBe(`aics: cannot start: ${ownerKidPath} names "${other}", but leaf 0 of the log in ${dataDir} names the owner ${owner}, fixed for the life of the log: move that file out of ${dataDir} (the start writes owner.kid again from leaf 0)`)
    expect(await folderState(dataDir)).toEqual(withStray)
    expect((await readFile(ownerKidPath, "utf8")).trim()).toBe(other)

    // With leaf 0's owner given and no owner.kid: it starts.
    await rm(ownerKidPath)
    server = await startServer({ dataDir, port: Number(port), env: { AICS_OWNER_KID: owner } })
    await server.stop()
    expect((await readFile(ownerKidPath, "utf8")).trim()).toBe(owner)
    expect(await missing(ownerKeyPath)).toBe(true)
  })
})

describe("a start the charter check refuses", () => {
  it("creates nothing in the data folder: no state.db, no store's folder", async () => {
    const dataDir = await tempDataDir()
    cleanup.push(() => removeDir(dataDir))
    const port = await freePort()
    const server = await startServer({ dataDir, port })
    cleanup.push(() => server.stop())
    await server.stop()
    // A backup restored without state.db (docs/operations.md leaves it out), of a version
    // before the stores added since.
    for (const name of ["state.db", "witness.vkey", "witness", "cosignatures.json", "gate-secrets", "contributions", "stats"]) {
      await rm(join(dataDir, name), { recursive: true, force: true })
    }
    const before = await folderState(dataDir)

    const elsewhere = refusalLine(await startFails({ AICS_DATA_DIR: dataDir, AICS_PORT: String(port), AICS_ORIGIN: "elsewhere.test/aics" }))
    expect(elsewhere).toMatch(/^aics: cannot start: leaf 0 of the log in .* names origin "localhost\/aics", but this start uses "elsewhere\.test\/aics"/)
    expect(await folderState(dataDir)).toEqual(before)
    expect(await missing(join(dataDir, "witness"))).toBe(true)
    expect(await missing(join(dataDir, "state.db"))).toBe(true)

    // The start with the log's own settings makes them, and serves.
    const again = await startServer({ dataDir, port })
    await again.stop()
    expect(again.child.exitCode, again.output()).toBe(0)
    expect(await missing(join(dataDir, "witness"))).toBe(false)
    expect(await missing(join(dataDir, "state.db"))).toBe(false)
  })
})

describe.skipIf(!db.multiSession)("a new node on PostgreSQL given only keys/", () => {
  it("serves the log with the owner leaf 0 names, writing its owner.kid, and makes no owner key", async () => {
    const url = await Effect.runPromise(Scope.extend(db.freshSchema, scope))
    const first = await startNode({ databaseUrl: url, dataDir: await tempDataDir() })
    cleanup.push(() => removeDir(first.dataDir))
    cleanup.push(() => first.stop())
    const owner = (await readFile(join(first.dataDir, "owner.kid"), "utf8")).trim()

    const dataDir = await tempDataDir()
    cleanup.push(() => removeDir(dataDir))
    await cp(join(first.dataDir, "keys"), join(dataDir, "keys"), { recursive: true })
    const second = await startNode({ databaseUrl: url, dataDir })
    cleanup.push(() => second.stop())
    await second.stop()
    expect(second.child.exitCode, second.output()).toBe(0)
    expect((await readFile(join(dataDir, "owner.kid"), "utf8")).trim()).toBe(owner)
    expect(await missing(join(dataDir, "owner.key"))).toBe(true)
    expect(second.output()).toContain(`${join(dataDir, "owner.kid")} was missing: wrote it from leaf 0, which names the owner ${owner}.`)
    expect(second.output()).not.toContain("Created the owner key")
  }, 120_000)
})
