// The witness key is made by the start that creates the log and by no other (FileKeys.ts): a
// start on a log that has leaf 0 without keys/witness.key is refused in one line naming the
// file, and writes nothing, rather than cosign under a key of its own that no log it
// witnesses trusts and that its card would name. On PostgreSQL that start is a node given only
// log.key and policy.key, which would cosign beside the others from the one shared witness
// state (aics_witness_state). A new witness identity is made on purpose, as the refusal and
// docs/operations.md "Two operators witness each other" say: `aics keygen --key <path>`.

import { cp, readFile, rm } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { runAics } from "../../support/aicsCli.js"
import { startNode } from "../../support/nodes.js"
import { testDatabase } from "../../support/pg.js"
import { freePort, removeDir, runMainToExit, startServer, tempDataDir } from "../../support/server.js"
import { folderState, refusalLine } from "../../support/refusedStart.js"

const db = testDatabase()
const scope = Effect.runSync(Scope.make())
const cleanup: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const step of cleanup.reverse()) await step()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

/** state.db may be written by a start before its refusal: not the files the check is about. */
const notStateDb = (name: string) => name.startsWith("state.db")

const witnessVkeyLine = (output: string) => /Witness verifier key: (\S+)/.exec(output)?.[1]

describe("a start on the filesystem whose keys/witness.key is missing", () => {
  it("is refused, naming the file, and writes nothing; a key made with aics keygen is then the new witness", async () => {
    const dataDir = await tempDataDir()
    cleanup.push(() => removeDir(dataDir))
    const port = await freePort()
    const first = await startServer({ dataDir, port })
    cleanup.push(() => first.stop())
    await first.stop()
    const witnessVkey = (await readFile(join(dataDir, "witness.vkey"), "utf8")).trim()
    expect(witnessVkeyLine(first.output())).toBe(witnessVkey)

    const path = join(dataDir, "keys", "witness.key")
    await rm(path)
    const before = await folderState(dataDir, notStateDb)
    const line = refusalLine(await runMainToExit({ AICS_DATA_DIR: dataDir, AICS_PORT: String(port) }))
    expect(line).toBe(`aics: cannot start: ${path} is missing, but the log in ${dataDir} has its leaf 0: only the start that creates a log makes its witness key, so that every start cosigns under the one key the logs it witnesses trust and its card names: restore keys/witness.key from your backup (AICS_DATA_DIR); to give this witness a new identity instead, make a key there with \`aics keygen --key ${path}\` and give its witness.vkey to the operators of the logs it witnesses (docs/operations.md "Two operators witness each other")`)
    expect(await folderState(dataDir, notStateDb)).toEqual(before)

    // What the line says to do for a new identity.
    const made = await runAics(["keygen", "--key", path], { cwd: dataDir })
    expect(made.code, made.err).toBe(0)
    const again = await startServer({ dataDir, port })
    cleanup.push(() => again.stop())
    await again.stop()
    const renewed = (await readFile(join(dataDir, "witness.vkey"), "utf8")).trim()
    expect(renewed).not.toBe(witnessVkey)
    expect(renewed.startsWith("localhost/witness+")).toBe(true)
    expect(witnessVkeyLine(again.output())).toBe(renewed)
  }, 120_000)
})

describe.skipIf(!db.multiSession)("a node on PostgreSQL given keys/log.key and keys/policy.key only", () => {
  it("is refused, saying to copy keys/witness.key from another node, and writes nothing", async () => {
    const url = await Effect.runPromise(Scope.extend(db.freshSchema, scope))
    const first = await startNode({ databaseUrl: url, dataDir: await tempDataDir() })
    cleanup.push(() => removeDir(first.dataDir))
    cleanup.push(() => first.stop())

    const dataDir = await tempDataDir()
    cleanup.push(() => removeDir(dataDir))
    await cp(join(first.dataDir, "keys"), join(dataDir, "keys"), { recursive: true })
    const path = join(dataDir, "keys", "witness.key")
    await rm(path)
    const before = await folderState(dataDir, notStateDb)
    const where = `${new URL(url).host}${new URL(url).pathname}`
    const line = refusalLine(await runMainToExit({ AICS_DATA_DIR: dataDir, AICS_PORT: String(await freePort()), AICS_DATABASE_URL: url }))
    expect(line).toBe(`aics: cannot start: ${path} is missing, but the log in the database at ${where} (AICS_DATABASE_URL) has its leaf 0: only the start that creates a log makes its witness key, so that every start and every node cosigns under the one key the logs it witnesses trust and its card names: copy keys/witness.key from another node of this log or restore it from your backup (AICS_DATA_DIR); to give this witness a new identity instead, make a key there with \`aics keygen --key ${path}\`, copy it to every node and give its witness.vkey to the operators of the logs it witnesses (docs/operations.md "Two operators witness each other")`)
    expect(await folderState(dataDir, notStateDb)).toEqual(before)

    // With the key copied, it cosigns under the same key as the first node.
    await cp(join(first.dataDir, "keys", "witness.key"), path)
    const second = await startNode({ databaseUrl: url, dataDir })
    cleanup.push(() => second.stop())
    expect(witnessVkeyLine(second.output())).toBe(witnessVkeyLine(first.output()))
  }, 120_000)
})
