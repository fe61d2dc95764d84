// What the SIGKILL tests of the filesystem stores share: running a child process that
// prints a line per step and killing it a random while after its first acknowledgement,
// and turning that kill into a simulated power loss by tearing what was not yet fsynced.
// The stores' own models (what must survive) stay in their tests.

import { spawn, type ChildProcess } from "node:child_process"
import { open, stat, truncate } from "node:fs/promises"
import { join, resolve } from "node:path"

const ROOT = resolve(import.meta.dirname, "../..")

/** The child now running, so that a test that times out still kills it before cleaning up. */
let running: ChildProcess | undefined

/**
 * Runs `node <args>` from the project root, hands each whole stdout line to `onLine`
 * (true when the line acknowledges a durable step), and kills the child with SIGKILL
 * `delayMs` after the first acknowledgement. Rejects when the child never acknowledges or
 * exits by itself: both mean the test saw nothing worth checking.
 */
export const runUntilKilled = (args: ReadonlyArray<string>, delayMs: number, onLine: (line: string) => boolean) =>
  new Promise<void>((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] })
    running = child
    let buffered = ""
    let stderr = ""
    let killTimer: NodeJS.Timeout | undefined
    const guard = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`the child never acknowledged a step: ${stderr}`))
    }, 20_000)
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => {
      buffered += chunk
      const lines = buffered.split("\n")
      buffered = lines.pop()! // only whole lines count: a torn line was never acknowledged
      for (const line of lines) {
        if (onLine(line) && killTimer === undefined) killTimer = setTimeout(() => child.kill("SIGKILL"), delayMs)
      }
    })
    child.stderr.on("data", (chunk) => (stderr += String(chunk)))
    child.on("close", (code, signal) => {
      clearTimeout(guard)
      running = undefined
      if (signal !== "SIGKILL") reject(new Error(`the child exited by itself (${code}): ${stderr}`))
      else resolvePromise()
    })
  })

/** Kills the child still running, if any (for afterAll). */
export const killRunningChild = async () => {
  const child = running
  if (child === undefined) return
  const closed = new Promise((done) => child.once("close", done))
  child.kill("SIGKILL")
  await closed
}

/** A file of a store and its length at the last acknowledged fsync. */
export interface DurableFile {
  readonly name: string
  readonly durable: number
}

/**
 * Tears each file's unsynced tail as a power loss may: a killed process's writes survive
 * in the page cache, but after a power loss only what was fsynced is certain, so a random
 * part of the bytes after the durable point is kept, sometimes with a page of it zeroed.
 * The caller decides first whether a power loss could produce this state (at most one
 * write group in flight: with more, an unacknowledged group may have been synced, and
 * tearing it would invent a loss no disk can cause). Returns whether it tore anything.
 */
export const tearUnsyncedTails = async (dir: string, files: ReadonlyArray<DurableFile>): Promise<boolean> => {
  let tore = false
  for (const file of files) {
    const path = join(dir, file.name)
    const length = (await stat(path)).size
    if (length <= file.durable) continue
    const cut = file.durable + Math.floor(Math.random() * (length - file.durable + 1))
    await truncate(path, cut)
    const firstPage = Math.ceil(file.durable / 4096)
    const pages = Math.floor(cut / 4096) - firstPage
    if (pages > 0 && Math.random() < 0.5) {
      const handle = await open(path, "r+")
      await handle.write(new Uint8Array(4096), 0, 4096, 4096 * (firstPage + Math.floor(Math.random() * pages)))
      await handle.close()
    }
    tore ||= cut < length
  }
  return tore
}
