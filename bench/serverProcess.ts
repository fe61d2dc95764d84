// The compiled service (dist/src/main.js) in a child process for the benchmarks, resolved
// once it listens on 127.0.0.1:port; rejected with its output if it exits first. With
// BENCH_SERVER_LOG=<file>, everything the server prints is appended to that file too (e.g.
// the heap governor's lines with BENCH_SERVER_ENV="... AICS_LOG_LEVEL=debug").

import { spawn, type ChildProcess } from "node:child_process"
import { appendFileSync } from "node:fs"

/**
 * Extra environment for the server from BENCH_SERVER_ENV (space-separated NAME=value), or
 * `defaults` when it is not set, e.g. `BENCH_SERVER_ENV="AICS_RATE_LIMITS=off AICS_HEAP_GROWTH_PERCENT=150"`.
 */
export const benchServerEnv = (defaults: string): Record<string, string> =>
  Object.fromEntries((process.env["BENCH_SERVER_ENV"] ?? defaults).split(" ").filter((a) => a.includes("=")).map((a) => [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)]))

/** Extra node arguments for the server from BENCH_SERVER_NODE_ARGS (space-separated, e.g. --cpu-prof). */
export const benchServerNodeArgs = (): Array<string> => (process.env["BENCH_SERVER_NODE_ARGS"] ?? "").split(" ").filter((a) => a !== "")

/**
 * A port for a benchmark's server below Linux's ephemeral range (32768-60999): a port drawn
 * inside it may still be held by one of the previous run's thousand client sockets, and the
 * server then cannot listen ("port ... is in use").
 */
export const benchServerPort = (): number => 20000 + Math.floor(Math.random() * 12000)

/**
 * The environment `npm start` gives the service besides the caller's (package.json "start"):
 * two glibc malloc arenas unless MALLOC_ARENA_MAX says otherwise (docs/operations.md "The
 * heap under load"), so a benchmark's RSS is the service's as an operator starts it.
 */
export const serviceProcessEnv = (): Record<string, string> => ({
  PATH: process.env["PATH"] ?? "",
  MALLOC_ARENA_MAX: process.env["MALLOC_ARENA_MAX"] ?? "2"
})

export const startServerProcess = async (options: {
  readonly dataDir: string
  readonly port: number
  /** Extra environment (AICS_DATABASE_URL, limits...). */
  readonly env?: Readonly<Record<string, string>>
  /** Extra node arguments (e.g. --cpu-prof). */
  readonly nodeArgs?: ReadonlyArray<string>
}): Promise<ChildProcess> => {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), "dist/src/main.js"], {
    env: { ...serviceProcessEnv(), AICS_DATA_DIR: options.dataDir, AICS_PORT: String(options.port), ...options.env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  const logFile = process.env["BENCH_SERVER_LOG"]
  if (logFile !== undefined) {
    const append = (chunk: Buffer) => appendFileSync(logFile, chunk)
    child.stdout!.on("data", append)
    child.stderr!.on("data", append)
  }
  await new Promise<void>((resolve, reject) => {
    const check = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes(`Listening on http://127.0.0.1:${options.port}`)) resolve()
    }
    child.stdout!.on("data", check)
    child.stderr!.on("data", check)
    child.once("exit", () => reject(new Error(output)))
  })
  return child
}
