// The operator, end to end, as an operator works (issue 14, item 1): `npm start` (the built
// main in a child process, on a fresh data folder), a start that fails is one plain line
// naming the variable and leaves nothing behind, the first start's lines say where the
// verifier key and the owner key are, and `aics admin` tombstones an agent's post with the
// very key file that first start wrote, and the post's bytes then leave the service's disk
// (retention deletes them, the body store's compaction drops them from the file). SIGTERM
// is named in the last lines.

import { execFile, spawn } from "node:child_process"
import { mkdtemp, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises"
import { createServer, type Server } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { ok, runAics } from "./support/aicsCli.js"
import { freePort, removeDir, runMainToExit as startFails, startServer, tempDataDir, type RunningServer } from "./support/server.js"

const cleanup: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const step of cleanup.reverse()) await step()
})

const folderMissing = (path: string) => stat(path).then(() => false, () => true)

/** One line, naming the cause and the variable. */
const oneLine = (output: string, variable: string) => {
  const lines = output.trim().split("\n")
  expect(lines, output).toHaveLength(1)
  expect(lines[0]).toMatch(/^aics: cannot start: /)
  expect(lines[0]).toContain(variable)
}

describe("an operator", () => {
  it("gets one plain line and no data folder when the start cannot work", async () => {
    const parent = await mkdtemp(join(tmpdir(), "aics-operator-"))
    cleanup.push(() => removeDir(parent))
    const dataDir = join(parent, "data")

    // A busy port.
    const busy: Server = createServer()
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve))
    const busyPort = (busy.address() as { port: number }).port
    const onBusy = await startFails({ AICS_DATA_DIR: dataDir, AICS_PORT: String(busyPort) })
    await new Promise<void>((resolve) => busy.close(() => resolve()))
    expect(onBusy.code).not.toBe(0)
    oneLine(onBusy.output, "AICS_PORT")
    expect(onBusy.output).toContain("in use")
    expect(await folderMissing(dataDir)).toBe(true)

    // A bad variable.
    const badVariable = await startFails({ AICS_DATA_DIR: dataDir, AICS_PORT: "eighty" })
    expect(badVariable.code).not.toBe(0)
    oneLine(badVariable.output, "AICS_PORT")
    // One port for two of the service's listeners, and a metrics host this machine is not.
    const shared = String(await freePort())
    oneLine((await startFails({ AICS_DATA_DIR: dataDir, AICS_PORT: shared, AICS_GATE_PORT: shared })).output, "AICS_GATE_PORT")
    oneLine((await startFails({ AICS_DATA_DIR: dataDir, AICS_PORT: String(await freePort()), AICS_METRICS_PORT: String(await freePort()), AICS_METRICS_HOST: "no-such-host.invalid" })).output, "AICS_METRICS_HOST")
    expect(await folderMissing(dataDir)).toBe(true)
    // A database address that is not one, a database that does not answer (its own reason, the
    // password never printed), and budgets divided among nodes the data folder cannot have.
    const notUrl = await startFails({ AICS_DATA_DIR: dataDir, AICS_PORT: String(await freePort()), AICS_DATABASE_URL: "mysql://me:secret@127.0.0.1/test" })
    oneLine(notUrl.output, "AICS_DATABASE_URL")
    expect(notUrl.output).not.toContain("secret")
    const noDatabase = await startFails({ AICS_DATA_DIR: dataDir, AICS_PORT: String(await freePort()), AICS_DATABASE_URL: `postgres://me:secret@127.0.0.1:${await freePort()}/test` })
    expect(noDatabase.code).not.toBe(0)
    expect(noDatabase.output.trim().split("\n").at(-1)).toMatch(/^aics: cannot start: storage: cannot reach the database at 127\.0\.0\.1:\d+\/test: connect ECONNREFUSED .*AICS_DATABASE_URL$/)
    expect(noDatabase.output).not.toContain("secret")
    oneLine((await startFails({ AICS_DATA_DIR: dataDir, AICS_PORT: String(await freePort()), AICS_LIMIT_NODES: "2" })).output, "AICS_LIMIT_NODES")
    // Bad operations settings, which also choose the logger that would report them.
    for (const [variable, value] of [["AICS_LOG_LEVEL", "loud"], ["AICS_HTTP_PENDING_BYTES_PER_ADDRESS", "16384"]] as const) {
      const badSetting = await startFails({ AICS_DATA_DIR: dataDir, AICS_PORT: String(await freePort()), [variable]: value })
      expect(badSetting.code).not.toBe(0)
      oneLine(badSetting.output, variable)
    }

    // An unreadable gate certificate, and a certificate that is not one.
    const port = String(await freePort())
    const noCert = await startFails({ AICS_DATA_DIR: dataDir, AICS_PORT: port, AICS_GATE_TLS_PORT: String(await freePort()), AICS_GATE_TLS_CERT: join(parent, "missing.pem"), AICS_GATE_TLS_KEY: join(parent, "missing.key") })
    expect(noCert.code).not.toBe(0)
    oneLine(noCert.output, "AICS_GATE_TLS_CERT")
    await writeFile(join(parent, "junk.pem"), "not a certificate\n")
    const junkCert = await startFails({ AICS_DATA_DIR: dataDir, AICS_PORT: port, AICS_GATE_TLS_PORT: String(await freePort()), AICS_GATE_TLS_CERT: join(parent, "junk.pem"), AICS_GATE_TLS_KEY: join(parent, "junk.pem") })
    expect(junkCert.code).not.toBe(0)
    oneLine(junkCert.output, "AICS_GATE_TLS_CERT")

    // A data folder that is a file, one under a file, and a link to nowhere.
    await writeFile(join(parent, "file"), "")
    const notFolder = await startFails({ AICS_DATA_DIR: join(parent, "file"), AICS_PORT: port })
    oneLine(notFolder.output, "AICS_DATA_DIR")
    oneLine((await startFails({ AICS_DATA_DIR: join(parent, "file", "data"), AICS_PORT: port })).output, "AICS_DATA_DIR")
    await symlink(join(parent, "gone"), join(parent, "dangling"))
    const dangling = await startFails({ AICS_DATA_DIR: join(parent, "dangling"), AICS_PORT: port })
    oneLine(dangling.output, "AICS_DATA_DIR")
    expect(dangling.output).toContain("is a symbolic link to a path that does not exist")
    // An owner kid that is not one, refused before any key is made.
    oneLine((await startFails({ AICS_DATA_DIR: dataDir, AICS_PORT: port, AICS_OWNER_KID: "did:key:zBogus" })).output, "AICS_OWNER_KID")
    expect(await folderMissing(dataDir)).toBe(true)
    // A dozen starts of the whole program, each ~2 s of loading alone: room for a loaded machine.
  }, 180_000)

  it("gets a free port for AICS_PORT=0, an empty variable takes its default, a TLS certificate without its port is named, JSON logs are JSON", async () => {
    const dataDir = await tempDataDir()
    cleanup.push(() => removeDir(dataDir))
    const child = spawn(process.execPath, ["dist/src/main.js"], {
      env: { PATH: process.env["PATH"] ?? "", AICS_HOST: "127.0.0.1", AICS_DATA_DIR: dataDir, AICS_PORT: "0", AICS_LIMIT_REQUESTS_PER_MINUTE: "", AICS_GATE_TLS_CERT: "gate.pem", AICS_LOG_FORMAT: "json" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
    cleanup.push(async () => {
      child.kill("SIGTERM")
      await exited
    })
    let output = ""
    let stdout = ""
    child.stdout.on("data", (chunk: Buffer) => { output += chunk.toString(); stdout += chunk.toString() })
    child.stderr.on("data", (chunk: Buffer) => { output += chunk.toString() })
    await expect.poll(() => output, { timeout: 30_000 }).toContain("Look at ")
    // With AICS_LOG_FORMAT=json every line is one JSON object, the verifier keys' too.
    const lines = stdout.trim().split("\n")
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow()
    expect(lines.map((line) => JSON.parse(line)).find((entry) => entry.annotations?.event === "log_vkey")?.annotations.vkey).toMatch(/^localhost\/aics\+/)
    const listening = Number(/Listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1])
    expect(listening).toBeGreaterThan(0)
    // What the start lines, the documents and the signed requests' @authority name is that port.
    expect(output).toContain(`Look at http://127.0.0.1:${listening}/`)
    expect(output).not.toContain("127.0.0.1:0")
    // A certificate for a TLS gate whose port was left out is not taken silently.
    expect(output).toContain("AICS_GATE_TLS_CERT or AICS_GATE_TLS_KEY is set but AICS_GATE_TLS_PORT is not")
    const answer = await fetch(`http://127.0.0.1:${listening}/checkpoint`)
    expect(answer.status).toBe(200)
    expect(answer.headers.get("ratelimit-policy")).toBe("\"requests\";q=1200;w=60")
  })

  it("sees the start's report whatever AICS_LOG_LEVEL says: where it listens, the keys to publish and to move, the stop", async () => {
    const dataDir = await tempDataDir()
    cleanup.push(() => removeDir(dataDir))
    const [gatePort, metricsPort] = [await freePort(), await freePort()]
    // startServer waits for "Listening on": at warning, the old start never said it.
    const server = await startServer({
      dataDir,
      env: { AICS_LOG_LEVEL: "warning", AICS_LOG_FORMAT: "json", AICS_GATE_PORT: String(gatePort), AICS_METRICS_PORT: String(metricsPort) }
    })
    cleanup.push(() => server.kill())
    await expect.poll(() => server.output(), { timeout: 10_000 }).toContain("Look at ")
    await server.stop()
    // JSON logs stay JSON: every line of stdout is one object.
    const lines = server.stdout().trim().split("\n").map((line) => {
      expect(() => JSON.parse(line), line).not.toThrow()
      return JSON.parse(line) as { message: string; logLevel: string; annotations: Record<string, unknown> }
    })
    const event = (name: string) => lines.find((line) => line.annotations["event"] === name)?.annotations
    const messages = lines.map((line) => line.message)
    // Where it listens: the HTTP server, the text gate, the metrics.
    expect(messages).toContain(`Listening on ${server.baseUrl}`)
    expect(lines.find((line) => line.message === "Text gate listening")?.annotations["address"]).toBe(`127.0.0.1:${gatePort}`)
    expect(lines.find((line) => line.message === "metrics listening")?.annotations["url"]).toBe(`http://127.0.0.1:${metricsPort}/metrics`)
    expect(lines.find((line) => line.message === "aics starting")?.annotations["listen"]).toBe(`127.0.0.1:${server.port}`)
    // The verifier key to publish, the witness key, the owner key file to move off the machine.
    const vkey = (await readFile(join(dataDir, "log.vkey"), "utf8")).trim()
    expect(event("verifier_key")).toMatchObject({ path: join(dataDir, "log.vkey"), vkey, dns_txt: `v=aics1 log=${vkey}` })
    expect(event("witness_key")).toMatchObject({ path: join(dataDir, "witness.vkey") })
    expect(event("owner")).toMatchObject({ path: join(dataDir, "owner.key") })
    expect(event("gate")).toMatchObject({ plaintext_port: gatePort })
    // The stop names its signal; the level still quiets the diagnostics.
    expect(lines.find((line) => line.message === "aics stopping")?.annotations["reason"]).toBe("signal SIGTERM")
    expect(messages).toContain("aics stopped")
    expect(messages.some((message) => message.startsWith("projection:")), messages.join("\n")).toBe(false)
    expect(messages).not.toContain("wrote leaf 0, the charter")

    // none too: the report is the start's answer, as a failed start's one line is.
    const quiet = await startServer({ dataDir, env: { AICS_LOG_LEVEL: "none" } })
    cleanup.push(() => quiet.kill())
    await expect.poll(() => quiet.output(), { timeout: 10_000 }).toContain("Look at ")
    expect(quiet.output()).toContain(`Publish the log's verifier key out of band: ${join(dataDir, "log.vkey")}`)
    expect(quiet.output()).toContain(`AICS_OWNER_KEY=${join(dataDir, "owner.key")} aics admin`)
    expect(quiet.output()).not.toContain("projection:")
    await quiet.stop()
  })

  it("starts, publishes the verifier key, tombstones a post with the owner key the first start wrote, and stops on SIGTERM", async () => {
    const work = await mkdtemp(join(tmpdir(), "aics-operator-work-"))
    const dataDir = await tempDataDir()
    cleanup.push(() => removeDir(work), () => removeDir(dataDir))
    const server: RunningServer = await startServer({ dataDir })
    cleanup.push(() => server.kill())

    // What the start-up lines tell the operator to do.
    await expect.poll(() => server.output(), { timeout: 10_000 }).toContain("Look at ")
    const ownerKeyPath = join(dataDir, "owner.key")
    const vkeyPath = join(dataDir, "log.vkey")
    const output = server.output()
    expect(output).toContain(`Publish the log's verifier key out of band: ${vkeyPath}`)
    expect(output).toContain(`AICS_OWNER_KEY=${ownerKeyPath} aics admin`)
    expect(output).toContain("Text gate: off")
    expect(output).not.toMatch(/\n\s+at /)

    // An agent posts; the operator tombstones it with data/owner.key as it is.
    const vkey = (await readFile(vkeyPath, "utf8")).trim()
    const env = { AICS_SERVER: server.baseUrl, AICS_LOG_VKEY: vkey }
    const agent = (args: ReadonlyArray<string>) => runAics([...args, "--key", join(work, "agent.json")], { cwd: work, env })
    ok(await agent(["keygen"]))
    ok(await agent(["claim", "dora"]))
    const posted = ok(await agent(["post", "general", "an unlawful thing"]))
    const postIndex = Number(/as entry (\d+)/.exec(posted.out)?.[1])
    expect(postIndex).toBeGreaterThan(0)

    const tombstone = await runAics(["admin", "tombstone", String(postIndex), "illegal_content"], { cwd: work, env: { ...env, AICS_OWNER_KEY: ownerKeyPath } })
    ok(tombstone)
    expect(tombstone.out).toMatch(/tombstoned the body of entry \d+ \(illegal_content\) as entry \d+/)
    const read = ok(await runAics(["get", String(postIndex)], { cwd: work, env }))
    expect(read.out).toContain("body tombstoned")
    expect(read.out).not.toContain("an unlawful thing")
    // Retention deletes the hidden bytes right after the tombstone's batch, not a minute later.
    await expect.poll(() => server.output(), { timeout: 10_000 }).toMatch(/retention removed the bytes of 1 bodies no entry needs/)

    // The chain position moved in the same file: a second owner operation works too.
    const ownerFile = JSON.parse(await readFile(ownerKeyPath, "utf8")) as { seq: number; origin: string }
    expect(ownerFile.seq).toBe(1)
    ok(await runAics(["admin", "freeze"], { cwd: work, env: { ...env, AICS_OWNER_KEY: ownerKeyPath } }))

    await server.stop()
    expect(server.child.exitCode).toBe(0)
    expect(server.output()).toMatch(/aics stopping[^\n]*\n?[^\n]*SIGTERM/)
    expect(server.output()).toMatch(/aics stopped/)

    // The deletion is a removal record; compacting the stopped service's body store takes the
    // bytes off the disk.
    const bodyFile = join(dataDir, "bodies", "bodies")
    expect((await readFile(bodyFile)).includes("an unlawful thing")).toBe(true)
    const compacted = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [join(import.meta.dirname, "../dist/src/compactBodies.js")], { env: { PATH: process.env["PATH"] ?? "", AICS_DATA_DIR: dataDir } }, (error, stdout) =>
        error === null ? resolve(stdout) : reject(error)))
    expect(compacted).toMatch(/kept \d+ bodies, dropped 2 records/)
    expect((await readFile(bodyFile)).includes("an unlawful thing")).toBe(false)

    // A later start with another origin is refused in one line, and adds nothing.
    const before = (await readdir(dataDir)).sort()
    const otherOrigin = await startFails({ AICS_DATA_DIR: dataDir, AICS_PORT: String(await freePort()), AICS_ORIGIN: "elsewhere.example/aics" })
    expect(otherOrigin.code).not.toBe(0)
    expect(otherOrigin.output.trim().split("\n").at(-1)).toMatch(/^aics: cannot start: leaf 0 .* AICS_ORIGIN/)
    expect(otherOrigin.output).not.toMatch(/\n\s+at /)
    expect((await readdir(dataDir)).sort()).toEqual(before)
  })
})
