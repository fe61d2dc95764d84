// log.vkey is written once (issue 13 item 13): a restart whose key is the one the file
// holds leaves the file as it is (same inode, same bytes), so a start on a full disk has
// no write to fail on before it serves reads; a file that differs is replaced.

import { readFile, stat, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

let server: RunningServer | undefined

afterAll(async () => {
  await server?.stop()
  if (server !== undefined) await removeDir(server.dataDir)
})

describe("log.vkey across restarts", () => {
  it("is not rewritten when it holds the same key, and is restored when it does not", async () => {
    server = await startServer({ dataDir: await tempDataDir() })
    const path = join(server.dataDir, "log.vkey")
    const first = await stat(path)
    const bytes = await readFile(path, "utf8")
    await server.stop()

    server = await startServer({ dataDir: server.dataDir, port: server.port })
    const second = await stat(path)
    expect(second.ino).toBe(first.ino)
    expect(second.mtimeMs).toBe(first.mtimeMs)
    expect(await readFile(path, "utf8")).toBe(bytes)
    await server.stop()

    await writeFile(path, "not the key\n")
    server = await startServer({ dataDir: server.dataDir, port: server.port })
    expect(await readFile(path, "utf8")).toBe(bytes)
  })
})
