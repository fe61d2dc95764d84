// Checks the independent verifier itself, offline, against the Go-made vectors in
// test/vectors/tlog (see its README.md), served by a tiny static HTTP server.
import { createServer } from "node:http"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sha256 } from "@noble/hashes/sha2.js"
import { ed25519 } from "@noble/curves/ed25519.js"
import {
  checkApiProofs,
  consistencyFailure,
  inclusionFailure,
  parseVkey,
  publishedTiles,
  tileIndexPath,
  verifyCheckpoint,
  verifyLogFromTiles
} from "./independentVerifier.js"

const VECTORS = resolve(import.meta.dirname, "../vectors/tlog")
const VKEY = readFileSync(join(VECTORS, "vkey"), "utf8").trim()
const SIZES = [1, 2, 3, 255, 256, 257, 1000]

const b64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, "base64"))
const checkpointOf = (n: number): Uint8Array => new Uint8Array(readFileSync(join(VECTORS, `n${n}`, "checkpoint")))
const rootOf = (n: number): Uint8Array => b64(new TextDecoder().decode(checkpointOf(n)).split("\n")[2]!)

// Per-test overrides of what the server answers: path -> bytes.
let dir = join(VECTORS, "n1000")
const overrides = new Map<string, Uint8Array>()
let server: Server
let baseUrl = ""

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = req.url ?? "/"
    const file = url === "/tiles/checkpoint" || url === "/checkpoint" ? "checkpoint"
      : url.startsWith("/tiles/tile/") && !url.includes("..") ? url.slice("/tiles/".length)
      : null
    const body = overrides.get(url) ?? (file === null ? null : tryRead(join(dir, file)))
    if (body === null) res.writeHead(404).end()
    else res.writeHead(200, { "content-type": "application/octet-stream" }).end(body)
  })
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(() => new Promise<void>((ok) => server.close(() => ok())))

const tryRead = (path: string): Uint8Array | null => {
  try { return new Uint8Array(readFileSync(path)) } catch { return null }
}

const serve = (n: number): void => {
  dir = join(VECTORS, `n${n}`)
  overrides.clear()
}

const flipByte = (path: string, at: number): void => {
  const bytes = new Uint8Array(readFileSync(join(dir, path)))
  bytes[at] = bytes[at]! ^ 0x01
  overrides.set(`/tiles/${path}`, bytes)
}

/** Re-signs the text of a vector checkpoint with another Ed25519 seed under `name`. */
const signWith = (text: string, seed: Uint8Array, name: string): { note: Uint8Array; vkey: string } => {
  const pub = ed25519.getPublicKey(seed)
  const keyId = sha256(new Uint8Array([...new TextEncoder().encode(`${name}\n`), 0x01, ...pub])).slice(0, 4)
  const sig = ed25519.sign(new TextEncoder().encode(text), seed)
  const line = `\u2014 ${name} ${Buffer.from([...keyId, ...sig]).toString("base64")}\n`
  return {
    note: new TextEncoder().encode(`${text}\n${line}`),
    vkey: `${name}+${Buffer.from(keyId).toString("hex")}+${Buffer.from([0x01, ...pub]).toString("base64")}`
  }
}

describe("independent verifier: notes and keys", () => {
  it("parses the vector vkey and rejects a wrong key hash", () => {
    const key = parseVkey(VKEY)
    expect(key.name).toBe("example.test/aics")
    expect(Buffer.from(key.keyHash).toString("hex")).toBe("982d6186")
    expect(key.publicKey.length).toBe(32)
    expect(() => parseVkey(VKEY.replace("+982d6186+", "+982d6187+"))).toThrow(/does not match/)
  })

  it("verifies every vector checkpoint", () => {
    for (const n of SIZES) {
      const cp = verifyCheckpoint(checkpointOf(n), VKEY)
      expect(cp).toEqual({ origin: "example.test/aics", size: n, root: rootOf(n) })
    }
  })

  it("rejects a checkpoint signed by another key, a bad signature and altered text", () => {
    const text = new TextDecoder().decode(checkpointOf(1000)).split("\n\n")[0]! + "\n"
    const other = signWith(text, sha256(new TextEncoder().encode("another key")), "example.test/aics")
    expect(verifyCheckpoint(other.note, other.vkey).size).toBe(1000)
    expect(() => verifyCheckpoint(other.note, VKEY)).toThrow(/no signature by example\.test\/aics\+982d6186/)
    const good = new TextDecoder().decode(checkpointOf(1000))
    const sigAt = good.lastIndexOf(" ") + 1
    const sig = b64(good.slice(sigAt, -1))
    sig[10] = sig[10]! ^ 0x01
    const badSig = new TextEncoder().encode(good.slice(0, sigAt) + Buffer.from(sig).toString("base64") + "\n")
    expect(() => verifyCheckpoint(badSig, VKEY)).toThrow(/bad signature/)
    expect(() => verifyCheckpoint(new TextEncoder().encode(good.replace("\n1000\n", "\n999\n")), VKEY)).toThrow(/bad signature/)
    expect(() => verifyCheckpoint(new TextEncoder().encode(good.replace("\n\n", "\n")), VKEY)).toThrow(/checkpoint/)
  })
})

describe("independent verifier: tiles", () => {
  it("encodes tile paths as tlog-tiles says and lists exactly the published tiles", () => {
    expect(tileIndexPath(0)).toBe("000")
    expect(tileIndexPath(1234067)).toBe("x001/x234/067")
    for (const n of [...SIZES, 65793]) {
      const listed = readFileSync(join(VECTORS, `n${n}`, "tiles.sha256"), "utf8").trim().split("\n").map((l) => l.split(/\s+/)[1])
      expect(publishedTiles(n).map((t) => t.path).sort()).toEqual(listed.sort())
    }
  })

  it.each(SIZES)("verifies the log of size %i from its tiles", async (n) => {
    serve(n)
    const v = await verifyLogFromTiles(baseUrl, VKEY)
    expect(v.size).toBe(n)
    expect(v.root).toEqual(rootOf(n))
  })

  it("rebuilds the root of every prefix from the n1000 tiles, as the proof vectors give them", async () => {
    serve(1000)
    const { tiles } = await verifyLogFromTiles(baseUrl, VKEY)
    const proofs = JSON.parse(readFileSync(join(VECTORS, "n1000", "proofs.json"), "utf8")) as {
      inclusion: Array<{ size: number; root: string }>
      consistency: Array<{ from: number; to: number; from_root: string; to_root: string }>
    }
    for (const p of proofs.inclusion) expect(tiles.rootAt(p.size)).toEqual(b64(p.root))
    for (const p of proofs.consistency) {
      expect(tiles.rootAt(p.from)).toEqual(b64(p.from_root))
      expect(tiles.rootAt(p.to)).toEqual(b64(p.to_root))
    }
    for (const n of SIZES) expect(tiles.rootAt(n)).toEqual(rootOf(n))
  })

  it.each([
    ["tile/0/001", 100, /tile\/entries\/001: entry 259 does not hash/],
    ["tile/0/003.p/232", 31, /tile\/entries\/003\.p\/232: entry 768 does not hash/],
    ["tile/entries/002", 500, /tile\/entries\/002/],
    ["tile/1/000.p/3", 64, /tile\/1\/000\.p\/3: hash 2 is not the root of tile\/0\/002/]
  ])("throws when one byte of %s is flipped", async (path, at, message) => {
    serve(1000)
    flipByte(path, at)
    await expect(verifyLogFromTiles(baseUrl, VKEY)).rejects.toThrow(message)
  })

  it("throws when a tile is missing or truncated", async () => {
    serve(1000)
    overrides.set("/tiles/tile/0/002", new Uint8Array(8160))
    await expect(verifyLogFromTiles(baseUrl, VKEY)).rejects.toThrow(/tile\/0\/002: 8160 bytes, expected 8192/)
    serve(257)
    dir = join(VECTORS, "n256") // serves n256's tiles for n257's checkpoint: 001.p/1 is missing
    overrides.set("/checkpoint", checkpointOf(257))
    overrides.set("/tiles/checkpoint", checkpointOf(257))
    await expect(verifyLogFromTiles(baseUrl, VKEY)).rejects.toThrow(/HTTP 404/)
  })

  it("throws when a correctly signed checkpoint's root is not the tiles' root", async () => {
    serve(1000)
    const seed = sha256(new TextEncoder().encode("aics reference log")) // the vectors' signing key
    const wrongRoot = Buffer.from(rootOf(257)).toString("base64")
    const forged = signWith(`example.test/aics\n1000\n${wrongRoot}\n`, seed, "example.test/aics")
    expect(forged.vkey).toBe(VKEY)
    overrides.set("/checkpoint", forged.note)
    overrides.set("/tiles/checkpoint", forged.note)
    await expect(verifyLogFromTiles(baseUrl, VKEY)).rejects.toThrow(/root rebuilt from the tiles .* is not the checkpoint root/)
  })

  it("throws on a checkpoint signed by a different key, or when /checkpoint differs", async () => {
    serve(1000)
    const text = new TextDecoder().decode(checkpointOf(1000)).split("\n\n")[0]! + "\n"
    const other = signWith(text, sha256(new TextEncoder().encode("another key")), "example.test/aics")
    overrides.set("/checkpoint", other.note)
    overrides.set("/tiles/checkpoint", other.note)
    await expect(verifyLogFromTiles(baseUrl, VKEY)).rejects.toThrow(/no signature by/)
    serve(1000)
    overrides.set("/checkpoint", checkpointOf(257))
    await expect(verifyLogFromTiles(baseUrl, VKEY)).rejects.toThrow(/differs from/)
  })
})

describe("independent verifier: RFC 9162 proof checks against the vectors", () => {
  const proofs = JSON.parse(readFileSync(join(VECTORS, "n1000", "proofs.json"), "utf8")) as {
    inclusion: Array<{ index: number; size: number; leaf_hash: string; root: string; hashes: Array<string> }>
    consistency: Array<{ from: number; to: number; from_root: string; to_root: string; hashes: Array<string> }>
  }

  it("accepts every inclusion proof and rejects altered ones", () => {
    for (const p of proofs.inclusion) {
      const hashes = p.hashes.map(b64)
      expect(inclusionFailure(p.index, p.size, b64(p.leaf_hash), hashes, b64(p.root))).toBeNull()
      if ((p.index ^ 1) < p.size) expect(inclusionFailure(p.index ^ 1, p.size, b64(p.leaf_hash), hashes, b64(p.root))).not.toBeNull()
      expect(inclusionFailure(p.size, p.size, b64(p.leaf_hash), hashes, b64(p.root))).toMatch(/not below size/)
      expect(inclusionFailure(p.index, p.size, b64(p.leaf_hash), [...hashes, b64(p.root)], b64(p.root))).not.toBeNull()
      if (hashes.length > 0) {
        expect(inclusionFailure(p.index, p.size, b64(p.leaf_hash), hashes.slice(1), b64(p.root))).not.toBeNull()
        const bad = hashes.map((h) => h.slice())
        bad[0]![0] = bad[0]![0]! ^ 1
        expect(inclusionFailure(p.index, p.size, b64(p.leaf_hash), bad, b64(p.root))).not.toBeNull()
      }
    }
  })

  it("accepts every consistency proof and rejects altered ones", () => {
    for (const p of proofs.consistency) {
      const hashes = p.hashes.map(b64)
      expect(consistencyFailure(p.from, p.to, b64(p.from_root), b64(p.to_root), hashes)).toBeNull()
      expect(consistencyFailure(p.from, p.to, b64(p.to_root), b64(p.to_root), hashes) === null).toBe(p.from === p.to)
      if (hashes.length > 0) {
        expect(consistencyFailure(p.from, p.to, b64(p.from_root), b64(p.to_root), hashes.slice(0, -1))).not.toBeNull()
        const bad = hashes.map((h) => h.slice())
        bad[bad.length - 1]![0] = bad[bad.length - 1]![0]! ^ 1
        expect(consistencyFailure(p.from, p.to, b64(p.from_root), b64(p.to_root), bad)).not.toBeNull()
      }
    }
  })
})

// A stand-in for the service's /v2 API over the n1000 vector log, with proofs made by the
// RFC 9162 section 2.1.3.1 PATH and 2.1.4.1 SUBPROOF definitions, to exercise checkApiProofs.
describe("independent verifier: checkApiProofs against a stand-in API", () => {
  const N = 1000
  const enc = new TextEncoder()
  const entries = Array.from({ length: N }, (_, i) => enc.encode(`{"index":${i},"text":"reference entry ${i}"}`))
  const leaves = entries.map((e) => sha256(new Uint8Array([0, ...e])))
  const memo = new Map<string, Uint8Array>()
  const mth = (lo: number, hi: number): Uint8Array => {
    const key = `${lo}:${hi}`
    let h = memo.get(key)
    if (h === undefined) {
      if (hi - lo === 1) h = leaves[lo]!
      else {
        const k = 2 ** Math.ceil(Math.log2(hi - lo) - 1)
        h = sha256(new Uint8Array([1, ...mth(lo, lo + k), ...mth(lo + k, hi)]))
      }
      memo.set(key, h)
    }
    return h
  }
  const split = (n: number): number => 2 ** Math.ceil(Math.log2(n) - 1)
  const path = (m: number, lo: number, hi: number): Array<Uint8Array> => {
    if (hi - lo <= 1) return []
    const k = split(hi - lo)
    return m < k ? [...path(m, lo, lo + k), mth(lo + k, hi)] : [...path(m - k, lo + k, hi), mth(lo, lo + k)]
  }
  const subproof = (m: number, lo: number, hi: number, whole: boolean): Array<Uint8Array> => {
    const n = hi - lo
    if (m === n) return whole ? [] : [mth(lo, hi)]
    const k = split(n)
    return m <= k ? [...subproof(m, lo, lo + k, whole), mth(lo + k, hi)] : [...subproof(m - k, lo + k, hi, false), mth(lo, lo + k)]
  }
  const std = (b: Uint8Array): string => Buffer.from(b).toString("base64")
  const url64 = (b: Uint8Array): string => Buffer.from(b).toString("base64url")
  let corrupt: ((route: string, answer: Record<string, unknown>) => void) | null = null

  const api = createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://x")
    const note = checkpointOf(N)
    let answer: Record<string, unknown> | null = null
    let m: RegExpExecArray | null
    if (u.pathname === "/checkpoint" || u.pathname === "/tiles/checkpoint" || u.pathname.startsWith("/tiles/tile/")) {
      const body = tryRead(join(VECTORS, "n1000", u.pathname === "/checkpoint" ? "checkpoint" : u.pathname.slice("/tiles/".length)))
      if (body === null) res.writeHead(404).end()
      else res.writeHead(200).end(body)
      return
    } else if (u.pathname === "/v2/tlog/inclusion") {
      const index = Number(u.searchParams.get("index")), size = Number(u.searchParams.get("size"))
      answer = { index, size, hashes: path(index, 0, size).map(std) }
    } else if (u.pathname === "/v2/tlog/consistency") {
      const from = Number(u.searchParams.get("from")), to = Number(u.searchParams.get("to"))
      answer = { from, to, hashes: subproof(from, 0, to, true).map(std) }
    } else if ((m = /^\/v2\/tlog\/proof\/(\d+)$/.exec(u.pathname)) !== null) {
      const i = Number(m[1])
      answer = {
        index: i, entry_bytes: url64(entries[i]!), leaf_hash: url64(leaves[i]!),
        inclusion_proof: { index: i, size: N, hashes: path(i, 0, N).map(std) }, checkpoint_note: url64(note)
      }
    } else if ((m = /^\/v2\/entries\/(\d+)$/.exec(u.pathname)) !== null) {
      const i = Number(m[1])
      answer = { entry_bytes: url64(entries[i]!), index: i, inclusion_proof: path(i, 0, N).map(std), checkpoint_note: url64(note), body_or_ct: null }
    } else if ((m = /^\/v2\/tlog\/index\/([\w-]+)$/.exec(u.pathname)) !== null) {
      const h = m[1]!
      answer = { index: leaves.findIndex((l) => url64(l) === h), leaf_hash: h }
    }
    if (answer === null) {
      res.writeHead(404).end()
      return
    }
    corrupt?.(u.pathname, answer)
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer))
  })
  let apiUrl = ""
  beforeAll(async () => {
    await new Promise<void>((ok) => api.listen(0, "127.0.0.1", ok))
    apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((ok) => api.close(() => ok())))

  it("accepts correct answers", async () => {
    corrupt = null
    const verified = await verifyLogFromTiles(apiUrl, VKEY)
    await checkApiProofs(apiUrl, VKEY, verified)
    await checkApiProofs(apiUrl, VKEY, { size: verified.size, root: verified.root }) // refetches the tiles
  })

  it.each([
    ["/v2/tlog/inclusion", (a: Record<string, unknown>) => { (a.hashes as Array<string>).reverse() }, /inclusion proof fails/],
    ["/v2/tlog/consistency", (a: Record<string, unknown>) => { a.hashes = (a.hashes as Array<string>).slice(1) }, /consistency/],
    ["/v2/tlog/proof/0", (a: Record<string, unknown>) => { a.leaf_hash = url64(leaves[1]!) }, /leaf_hash is not the tile's leaf hash/],
    ["/v2/entries/999", (a: Record<string, unknown>) => { a.envelope = { x: 1 } }, /envelope differs/],
    ["/v2/entries/0", (a: Record<string, unknown>) => { a.checkpoint_note = url64(checkpointOf(257)) }, /inclusion proof fails against its checkpoint/],
    ["/v2/tlog/index/", (a: Record<string, unknown>) => { a.index = 3 }, /v2\/tlog\/index\/.*: index 3, expected/]
  ])("throws on a wrong answer from %s", async (route, change, message) => {
    corrupt = (pathname, answer) => { if (pathname.startsWith(route)) change(answer) }
    const verified = await verifyLogFromTiles(apiUrl, VKEY)
    await expect(checkApiProofs(apiUrl, VKEY, verified)).rejects.toThrow(message)
    corrupt = null
  })
})
