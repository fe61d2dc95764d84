// The client's tile reader against a log that published only its latest size (the Go
// reference vectors of 1,000 entries, served as they are): a root at a size the log never
// published, as a view's checkpoint may name, is rebuilt from the wider tiles, cut, and is
// the root the reference computed for that size.

import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { boundedCache, tileReader } from "../../src/client/tiles.js"
import { serviceAt } from "../../src/client/http.js"
import { encodeB64 } from "../../src/domain/encoding.js"

const VECTORS = new URL("../vectors/tlog/", import.meta.url).pathname
const rootOf = (n: number) => readFileSync(join(VECTORS, `n${n}`, "checkpoint"), "utf8").split("\n")[2]

let server: Server
let base = ""
const requested: Array<string> = []

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? ""
    requested.push(path)
    const file = path === "/checkpoint" ? "checkpoint" : path.startsWith("/tiles/") ? path.slice("/tiles/".length) : undefined
    try {
      if (file === undefined || file.includes("..")) throw new Error("no such file")
      res.end(readFileSync(join(VECTORS, "n1000", file)))
    } catch {
      res.statusCode = 404
      res.end()
    }
  })
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
})

afterAll(() => new Promise<void>((ok) => server.close(() => ok())))

describe("tileReader", () => {
  it("rebuilds the roots of sizes the log did not publish from the tiles of the size it did", async () => {
    const tiles = tileReader(serviceAt(base))
    for (const size of [1000, 256, 257, 2, 255]) {
      expect(encodeB64(await tiles.root(size)), `size ${size}`).toBe(rootOf(size))
    }
    // 257 needed tile/0/001.p/1, which is not published: the full tile/0/001 served it.
    expect(requested).toContain("/tiles/tile/0/001.p/1")
    expect(requested).toContain("/tiles/tile/0/001")
  })

  it("still fails when no published tile holds the hashes", async () => {
    await expect(tileReader(serviceAt(base)).root(1001)).rejects.toThrow(/404/)
  })
})

describe("boundedCache", () => {
  it("keeps at most its capacity, keeps what is in use across a turn, and makes again what it let go", () => {
    const cache = boundedCache<number>(4)
    let made = 0
    const get = (key: string) => cache.get(key, () => ++made)
    expect([get("a"), get("b"), get("a")]).toEqual([1, 2, 1])
    // c, d: the young generation (a, b) turned old; a in use is copied back into the young one.
    get("c")
    get("d")
    expect(get("a")).toBe(1)
    for (const key of ["e", "f", "g", "h"]) get(key)
    expect(cache.size()).toBeLessThanOrEqual(4)
    // b was not asked since two turns: made again.
    expect(get("b")).toBe(made)
  })

  it("serves a tile reader's repeated reads from what it keeps", async () => {
    const tiles = tileReader(serviceAt(base))
    await tiles.root(1000)
    const once = tiles.fetched()
    await tiles.root(1000)
    expect(once).toBeGreaterThan(0)
    expect(tiles.fetched()).toBe(once)
  })
})
