// The compiled `aics` CLI (dist/, built by the test runner's globalSetup) run in a child
// process, as a user runs it: its exit code and what it printed.

import { execFile } from "node:child_process"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { expect } from "vitest"
import { selfSignedCert } from "./gateClient.js"
import { freePort, removeDir, type RunningServer, startServer, tempDataDir } from "./server.js"

export const CLI = resolve("dist/src/client/cli.js")

export interface AicsRun {
  readonly code: number
  readonly out: string
  readonly err: string
}

/** Runs `aics <args>` in `cwd` with only PATH and `env` in its environment. */
export const runAics = (args: ReadonlyArray<string>, options: { readonly cwd: string; readonly env?: Record<string, string>; readonly timeoutMs?: number }): Promise<AicsRun> =>
  new Promise((done) => {
    execFile(process.execPath, [CLI, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env["PATH"] ?? "", ...options.env },
      timeout: options.timeoutMs ?? 30_000
    }, (error, out, err) => done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, out, err }))
  })

/**
 * The environment that runs aics with this machine's clock `ms` off (fast when positive):
 * a module, written to `dir`, that shifts Date.now and new Date() of the process, as an
 * owner's or agent's machine whose clock is wrong.
 */
export const skewedClock = async (dir: string, ms: number): Promise<Record<string, string>> => {
  const module = join(dir, "skew.mjs")
  await writeFile(module, [
    "const off = Number(process.env.SKEW_MS || 0); const real = Date.now; Date.now = () => real() + off;",
    "const RD = Date; globalThis.Date = class extends RD { constructor(...a) { if (a.length === 0) super(RD.now()); else super(...a) } static now() { return RD.now() } };"
  ].join("\n"))
  return { NODE_OPTIONS: `--import ${module}`, SKEW_MS: String(ms) }
}

/** The run succeeded and printed nothing to stderr. */
export const ok = (run: AicsRun): AicsRun => {
  expect(run.err, run.err).toBe("")
  expect(run.code).toBe(0)
  return run
}

/**
 * A service in its own data folder and a folder for the agents' key files, with `aics`
 * run there against the service and its out-of-band verifier key. `stop` removes both.
 */
export interface CliWorld {
  readonly dataDir: string
  readonly agentsDir: string
  readonly server: RunningServer
  /** The text gate's TCP ports (plaintext and TLS, a self-signed certificate) when asked for with `gate`. */
  readonly gate: { readonly port: number; readonly tlsPort: number } | undefined
  readonly vkey: string
  readonly aics: (args: ReadonlyArray<string>) => Promise<AicsRun>
  /** Runs with --json, expects success, and parses stdout. */
  readonly json: <T = Record<string, any>>(args: ReadonlyArray<string>) => Promise<T>
  readonly stop: () => Promise<void>
}

/** `gate`: the text gate's ports too; `port`: the service's port (default a free one); `env`: the service's own variables. */
export interface CliWorldOptions {
  readonly gate?: boolean
  readonly port?: number
  readonly env?: Readonly<Record<string, string>>
}

export const startCliWorld = async (prefix: string, options: CliWorldOptions = {}): Promise<CliWorld> => {
  const dataDir = await tempDataDir()
  const agentsDir = await mkdtemp(join(tmpdir(), prefix))
  let gate: CliWorld["gate"]
  let env: Record<string, string> = { ...options.env }
  if (options.gate === true) {
    const { cert, key } = selfSignedCert(dataDir)
    gate = { port: await freePort(), tlsPort: await freePort() }
    env = { ...env, AICS_GATE_PORT: String(gate.port), AICS_GATE_TLS_PORT: String(gate.tlsPort), AICS_GATE_TLS_CERT: cert, AICS_GATE_TLS_KEY: key }
  }
  const server = await startServer({ dataDir, env, ...(options.port === undefined ? {} : { port: options.port }) })
  for (let i = 0; gate !== undefined && i < 100 && (server.output().match(/Text gate listening/g) ?? []).length < 2; i++) await new Promise((r) => setTimeout(r, 50))
  const vkey = (await readFile(join(dataDir, "log.vkey"), "utf8")).trim()
  const aics = (args: ReadonlyArray<string>) =>
    runAics(args, { cwd: agentsDir, env: { AICS_SERVER: server.baseUrl, AICS_LOG_VKEY: vkey }, timeoutMs: 60_000 })
  return {
    dataDir,
    agentsDir,
    server,
    gate,
    vkey,
    aics,
    json: async <T>(args: ReadonlyArray<string>) => JSON.parse(ok(await aics([...args, "--json"])).out) as T,
    stop: async () => {
      await server.stop()
      await removeDir(dataDir)
      await rm(agentsDir, { recursive: true, force: true })
    }
  }
}
