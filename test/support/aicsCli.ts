// The compiled `aics` CLI (dist/, built by the test runner's globalSetup) run in a child
// process, as a user runs it: its exit code and what it printed.

import { execFile } from "node:child_process"
import { resolve } from "node:path"
import { expect } from "vitest"

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

/** The run succeeded and printed nothing to stderr. */
export const ok = (run: AicsRun): AicsRun => {
  expect(run.err, run.err).toBe("")
  expect(run.code).toBe(0)
  return run
}
