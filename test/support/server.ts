// Starts the real service (the compiled dist/src/main.js, as `npm start` runs it) in a
// child process on a temporary data folder and a free port, for end-to-end tests.

import { spawn, type ChildProcess } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pollUntil } from "./poll.js"

export interface RunningServer {
  readonly baseUrl: string
  readonly port: number
  readonly dataDir: string
  readonly child: ChildProcess
  /** Everything the process printed so far. */
  readonly output: () => string
  /** What it printed on stdout alone (the logger's lines). */
  readonly stdout: () => string
  /** SIGTERM and wait for the exit. */
  readonly stop: () => Promise<void>
  /** SIGKILL and wait for the exit. */
  readonly kill: () => Promise<void>
}

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

export const tempDataDir = (): Promise<string> => mkdtemp(join(tmpdir(), "aics-test-"))

export const removeDir = (dir: string): Promise<void> => rm(dir, { recursive: true, force: true })

/** Starts the service and resolves once it listens; rejects with its output if it exits first. */
export const startServer = async (options: {
  readonly dataDir: string
  readonly port?: number
  readonly env?: Readonly<Record<string, string>>
  readonly timeoutMs?: number
}): Promise<RunningServer> => {
  const port = options.port ?? await freePort()
  const child = spawn(process.execPath, ["dist/src/main.js"], {
    env: {
      PATH: process.env["PATH"] ?? "",
      AICS_DATA_DIR: options.dataDir,
      AICS_HOST: "127.0.0.1",
      AICS_PORT: String(port),
      // Most tests drive one address hard; the budgets have their own tests
      // (test/adapters/http/admission.test.ts), which turn them on.
      AICS_RATE_LIMITS: "off",
      ...options.env
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  let stdout = ""
  child.stdout.on("data", (chunk: Buffer) => { output += chunk.toString(); stdout += chunk.toString() })
  child.stderr.on("data", (chunk: Buffer) => { output += chunk.toString() })
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))

  // A start takes 1-3 s; on a loaded 2-core machine (CI, two test files at once) it has
  // taken over 20 s. A server that fails exits, which rejects at once; this only bounds a
  // hang, and stays under vitest's 60 s hook timeout.
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${output}`)), options.timeoutMs ?? 45_000)
    const check = () => {
      if (output.includes(`Listening on http://127.0.0.1:${port}`)) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout.on("data", check)
    child.stderr.on("data", check)
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`the server exited with ${code}:\n${output}`))
    })
  })

  const signal = (name: NodeJS.Signals) => async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name)
    await exited
  }
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    dataDir: options.dataDir,
    child,
    output: () => output,
    stdout: () => stdout,
    stop: signal("SIGTERM"),
    kill: signal("SIGKILL")
  }
}

/** The line a sequencing process logs once it has heard every witness of AICS_WITNESSES (app/CosignatureCollector.ts). */
export const WITNESSES_HEARD_LINE = "every witness of AICS_WITNESSES was asked since this process began sequencing"

/**
 * Until the server, which sequences and has witnesses, takes writes: it refuses them (503
 * log_unavailable, /healthz awaiting_witnesses) until each witness answered its first
 * checkpoint, or failed to within its bound.
 */
export const untilWitnessesHeard = (server: RunningServer, timeoutMs = 30_000) =>
  pollUntil(`${server.baseUrl} hearing its witnesses`, async () => (server.output().includes(WITNESSES_HEARD_LINE) ? true : undefined), timeoutMs)

/** Runs the built main to its exit: its exit code and everything it printed. */
export const runMainToExit = (env: Record<string, string>): Promise<{ code: number | null; output: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, ["dist/src/main.js"], { env: { PATH: process.env["PATH"] ?? "", AICS_HOST: "127.0.0.1", ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => { output += chunk.toString() })
    child.stderr.on("data", (chunk: Buffer) => { output += chunk.toString() })
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000)
    child.once("exit", (code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
  })
