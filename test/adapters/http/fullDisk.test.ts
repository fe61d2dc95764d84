// A start on a full disk (issue 13 item 13; docs/operations.md "A full disk"): the data
// folder on a small tmpfs of its own (the tests run as root), filled to the last byte while
// the service is stopped. The service starts (no start step rewrites a file that already
// holds what it would write), serves /healthz, /checkpoint, entries and bodies, and refuses
// writes with a clear 503 log_unavailable once nothing more fits. Freed, it starts again
// with every entry it ever acknowledged, those accepted at the edge of the full disk too,
// and takes writes again.

import { execFileSync } from "node:child_process"
import { constants } from "node:fs"
import { mkdtemp, open, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { sha256 } from "@noble/hashes/sha2.js"
import { afterAll, describe, expect, it } from "vitest"
import { pollUntil } from "../../support/poll.js"
import { OutsideAgent, u64, utf8, type Log } from "../../support/outsideAgent.js"
import { startServer, type RunningServer } from "../../support/server.js"

const ORIGIN = "localhost/aics"
/** Room for a fresh service's folder (about 1 MiB) and the filler. */
const DISK = "16m"
/** Writes tried on the full disk before one must have been refused. */
const EDGE_WRITES = 200

let server: RunningServer | undefined
let mountPoint: string | undefined

afterAll(async () => {
  await server?.stop()
  if (mountPoint !== undefined) {
    execFileSync("umount", [mountPoint])
    await rm(mountPoint, { recursive: true, force: true })
  }
})

/** Fills the file system of `path` to its last byte: ever smaller appends until none fits. */
const fill = async (path: string) => {
  const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND)
  try {
    for (const size of [1 << 20, 1 << 12, 1]) {
      const chunk = new Uint8Array(size)
      for (;;) {
        try {
          await handle.write(chunk)
        } catch (error) {
          if ((error as { code?: string }).code === "ENOSPC") break
          throw error
        }
      }
    }
  } finally {
    await handle.close().catch(() => undefined)
  }
}

const get = async (running: RunningServer, path: string) => {
  const response = await fetch(`${running.baseUrl}${path}`)
  return { status: response.status, text: await response.text() }
}

const treeSize = async (running: RunningServer) => Number((await get(running, "/checkpoint")).text.split("\n")[1])

describe("a start on a full disk", () => {
  it("serves reads, refuses writes plainly, and loses nothing", async () => {
    mountPoint = await mkdtemp(join(tmpdir(), "aics-full-disk-"))
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${DISK}`, "tmpfs", mountPoint])
    const dataDir = join(mountPoint, "data")

    server = await startServer({ dataDir })
    const log: Log = { baseUrl: server.baseUrl, origin: ORIGIN, vkey: (await readFile(join(dataDir, "log.vkey"), "utf8")).trim() }
    const alice = OutsideAgent.random(log)
    expect((await alice.claim(`full${Date.now() % 100000}`)).status).toBe(202)
    const acknowledged = new Map<number, string>()
    for (const text of ["written before the disk filled", "a second post before it filled"]) {
      const posted = await alice.post(text)
      expect(posted.status).toBe(202)
      acknowledged.set(posted.json.entry.index as number, text)
    }
    // Published before the stop, so the start on the full disk has no tile to write.
    const published = Math.max(...acknowledged.keys()) + 1
    await pollUntil(`a checkpoint of ${published} leaves`, async () => ((await treeSize(server!)) === published ? true : undefined))
    await server.stop()

    await fill(join(mountPoint, "filler"))
    server = await startServer({ dataDir, port: server.port })
    const health = await get(server, "/healthz")
    expect(health.status).toBe(200)
    expect(JSON.parse(health.text)).toMatchObject({ status: "OK", reasons: [] })
    expect(await treeSize(server)).toBe(published)
    for (const [index, text] of acknowledged) {
      expect((await get(server, `/v2/entries/${index}`)).status).toBe(200)
      expect((await get(server, `/v2/bodies/${u64(sha256(utf8(text)))}`)).status).toBe(200)
    }

    // Appends may still fit in the last page of a file; sooner or later one does not.
    let refused: { status: number; json: Record<string, any> } | undefined
    for (let i = 0; i < EDGE_WRITES && refused === undefined; i++) {
      const text = `at the edge of the full disk ${i}`
      const posted = await alice.post(text)
      if (posted.status === 202) acknowledged.set(posted.json.entry.index as number, text)
      else refused = posted
    }
    expect(refused, `a write on the full disk was refused within ${EDGE_WRITES}`).toBeDefined()
    expect(refused!.status).toBe(503)
    expect(refused!.json["entry"]["refused"]).toBe("log_unavailable")
    expect(refused!.json["entry"]["detail"]).toContain("no space left on device")
    expect(refused!.json["entry"]["detail"]).not.toContain(mountPoint)
    // Reads go on after the refusal; /healthz says that the storage fails signed requests or
    // writes: the replay store's (nonces.db, which a signed request meets first and which
    // usually finds no room first) or the sequencer's stores' (the batch refused).
    expect((await get(server, "/checkpoint")).status).toBe(200)
    const byReplayStore = String(refused!.json["entry"]["detail"]).startsWith("the replay store failed")
    await pollUntil("/healthz naming the full disk", async () => {
      const later = JSON.parse((await get(server!, "/healthz")).text) as { status: string; reasons: Array<string> }
      const named = (prefix: string) => later.reasons.some((r) => r.startsWith(prefix) && r.includes("no space left on device"))
      const storage = named(byReplayStore ? "storage_unavailable: the replay store failed" : "storage_unavailable: ")
      return later.status === "DEGRADED" && storage ? true : undefined
    }, 15_000)
    expect((await get(server, `/v2/entries/${Math.min(...acknowledged.keys())}`)).status).toBe(200)

    // Room again: every acknowledged entry is there, with its body, and writes are taken.
    await server.stop()
    await rm(join(mountPoint, "filler"))
    server = await startServer({ dataDir, port: server.port })
    for (const [index, text] of acknowledged) {
      const entry = await get(server, `/v2/entries/${index}`)
      expect(entry.status, `entry ${index}`).toBe(200)
      expect((await get(server, `/v2/bodies/${u64(sha256(utf8(text)))}`)).status, `body of ${index}`).toBe(200)
    }
    const after = await alice.post("after the disk had room again")
    expect(after.status).toBe(202)
    expect(after.json.entry.index).toBe(Math.max(...acknowledged.keys()) + 1)
  })
})
