// The read API end to end: the real server (dist/src/main.js) on a temporary folder, a log
// seeded past one tile, every route of the log core checked, an independent verifier run
// against it, and a tampered tile on disk turning /healthz to 503.

import { readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { fromUtf8 } from "../../../src/domain/bytes.js"
import { decodeB64, decodeU64, encodeU64 } from "../../../src/domain/encoding.js"
import { verifyConsistency } from "../../../src/domain/tlog/consistency.js"
import { makeTreeHasher } from "../../../src/domain/tlog/hasher.js"
import { verifyInclusion } from "../../../src/domain/tlog/inclusion.js"
import { checkApiProofs, verifyLogFromTiles } from "../../support/independentVerifier.js"
import { seedPosts, type SeededPost } from "../../support/seedLog.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

const hasher = makeTreeHasher(nodeCrypto.sha256)
const ORIGIN = "read-api.test/aics"
const SEEDED = 300
const env = { AICS_ORIGIN: ORIGIN, AICS_TILE_CHECK_SECONDS: "1" }

let dataDir: string
let server: RunningServer
let posts: ReadonlyArray<SeededPost>
let vkey: string

const get = (path: string) => fetch(`${server.baseUrl}${path}`)
const json = async (path: string): Promise<any> => {
  const response = await get(path)
  expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200)
  return response.json()
}
const expectProblem = async (path: string, status: number, code?: string) => {
  const response = await get(path)
  expect(response.status, path).toBe(status)
  expect(response.headers.get("content-type")).toBe("application/problem+json")
  const problem = await response.json() as Record<string, unknown>
  expect(problem["status"]).toBe(status)
  expect(problem["type"]).toBe(`urn:aics:error:${problem["code"]}`)
  if (code !== undefined) expect(problem["code"]).toBe(code)
  return problem
}

beforeAll(async () => {
  dataDir = await tempDataDir()
  // First start: keys, charter, leaf 0. Then seed past a full tile while stopped.
  const first = await startServer({ dataDir, env })
  await first.stop()
  posts = await Effect.runPromise(seedPosts(dataDir, ORIGIN, SEEDED))
  server = await startServer({ dataDir, env })
  vkey = (await readFile(join(dataDir, "log.vkey"), "utf8")).trim()
  // The publisher covers the seeded leaves within the merge delay.
  for (let i = 0; i < 50; i++) {
    const health = await (await get("/healthz")).json() as { tiles: { published_size: number } }
    if (health.tiles.published_size === SEEDED + 1) break
    await new Promise((r) => setTimeout(r, 100))
  }
})

afterAll(async () => {
  await server?.stop()
  await removeDir(dataDir)
})

describe("first start", () => {
  it("makes the keys with mode 0600, the owner key in its own file, and log.vkey", async () => {
    const { stat } = await import("node:fs/promises")
    for (const file of ["keys/log.key", "keys/policy.key", "owner.key"]) {
      expect(((await stat(join(dataDir, file))).mode & 0o777).toString(8), file).toBe("600")
    }
    expect(vkey).toMatch(new RegExp(`^${ORIGIN.replace(/[./]/g, "\\$&")}\\+[0-9a-f]{8}\\+[A-Za-z0-9+/]+=*$`))
    expect(server.output()).toContain(`Log verifier key: ${vkey}`)
  })

  it("serves the charter byte for byte, hashing to leaf 0's document_hash", async () => {
    const charter = new Uint8Array(await (await get("/charter")).arrayBuffer())
    const v2 = new Uint8Array(await (await get("/v2/charter")).arrayBuffer())
    expect(v2).toEqual(charter)
    const leaf0 = await json("/v2/entries/0")
    expect(leaf0.envelope.type).toBe("charter")
    expect(leaf0.envelope.kid).toBe(leaf0.envelope.payload.policy_kid)
    expect(leaf0.envelope.payload.document_hash).toBe(encodeU64(nodeCrypto.sha256(charter)))
    expect(leaf0.envelope.payload.log_vkey).toBe(vkey)
    expect(leaf0.envelope.payload.origin).toBe(ORIGIN)
    expect(leaf0.envelope.payload.retention_days).toBeGreaterThanOrEqual(90)
    expect(leaf0.envelope.payload.owner_kid).toBe((await readFile(join(dataDir, "owner.kid"), "utf8")).trim())
    expect(decodeU64(leaf0.body_or_ct)).toEqual(charter)
  })
})

describe("checkpoint and tiles", () => {
  it("serves the same signed checkpoint at /checkpoint and /tiles/checkpoint, never cached", async () => {
    const a = await get("/checkpoint")
    const b = await get("/tiles/checkpoint")
    expect(a.headers.get("cache-control")).toBe("no-store")
    const text = await a.text()
    expect(await b.text()).toBe(text)
    expect(text.split("\n").slice(0, 2)).toEqual([ORIGIN, String(SEEDED + 1)])
    const view = await json("/v2/tlog/checkpoint")
    expect(view.checkpoint).toBe(text)
    expect(view.tree_size).toBe(SEEDED + 1)
    expect(view.log_vkey).toBe(vkey)
    expect(view.root_hash_hex).toBe(Buffer.from(view.root_hash, "base64").toString("hex"))
    expect(view.tiles).toMatchObject({ size: SEEDED + 1, published_size: SEEDED + 1, lag_entries: 0, diverged: false })
  })

  it("serves full and partial tiles and bundles as immutable, refuses other paths", async () => {
    for (const path of ["tile/0/000", "tile/0/001.p/45", "tile/1/000.p/1", "tile/entries/000", "tile/entries/001.p/45"]) {
      const response = await get(`/tiles/${path}`)
      expect(response.status, path).toBe(200)
      expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
      const bytes = new Uint8Array(await response.arrayBuffer())
      const onDisk = new Uint8Array(await readFile(join(dataDir, "tiles", path)))
      expect(bytes).toEqual(onDisk)
    }
    await expectProblem("/tiles/tile/0/002", 404, "tile_not_found")
    await expectProblem("/tiles/tile/0/0000", 404, "tile_not_found")
    await expectProblem("/tiles/tile/0/001.p/300", 404, "tile_not_found")
    const prefixes = await (await get("/tiles")).text()
    expect(prefixes).toBe(`${server.baseUrl}/tiles/\n`)
  })

  it("passes an independent verifier: signature, every tile, every bundle, the API's proofs", async () => {
    const verified = await verifyLogFromTiles(server.baseUrl, vkey)
    expect(verified.size).toBe(SEEDED + 1)
    await checkApiProofs(server.baseUrl, vkey, verified)
  })
})

describe("entries and bodies", () => {
  it("answers the wire bundle with a proof against the signed checkpoint and the body status", async () => {
    const post = posts[137]!
    const response = await get(`/v2/entries/${post.index}`)
    expect(response.status).toBe(200)
    expect(response.headers.get("x-aics-body-status")).toBe("available")
    const bundle = await response.json() as Record<string, any>
    expect(Object.keys(bundle).sort()).toEqual(["body_or_ct", "checkpoint_note", "entry_bytes", "envelope", "inclusion_proof", "index"])
    expect(bundle["envelope"]).toEqual(post.envelope)
    expect(decodeU64(bundle["body_or_ct"])).toEqual(post.body)
    const entry = decodeU64(bundle["entry_bytes"])!
    expect(JSON.parse(fromUtf8(entry)).index).toBe(post.index)
    const note = fromUtf8(decodeU64(bundle["checkpoint_note"])!)
    const [, size, root] = note.split("\n")
    expect(verifyInclusion(hasher, post.index, Number(size), hasher.leafHash(entry),
      bundle["inclusion_proof"].map((h: string) => decodeB64(h)!), decodeB64(root!)!)).toBe(true)
  })

  it("answers entry errors: 404 past the end, 422 for a malformed index", async () => {
    await expectProblem(`/v2/entries/${SEEDED + 1}`, 404, "entry_not_found")
    for (const bad of ["-1", "1.5", "01", "1e3", "x", "9007199254740992"]) {
      await expectProblem(`/v2/entries/${bad}`, 422, "invalid_parameters")
    }
  })

  it("serves a body by digest, 404 for an unknown digest, 422 for a malformed one", async () => {
    const post = posts[3]!
    const digest = encodeU64(nodeCrypto.sha256(post.body))
    const response = await get(`/v2/bodies/${digest}`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("application/octet-stream")
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(post.body)
    await expectProblem(`/v2/bodies/${encodeU64(nodeCrypto.sha256(new Uint8Array([1])))}`, 404, "body_not_found")
    await expectProblem("/v2/bodies/abc", 422)
  })
})

describe("proofs", () => {
  it("answers inclusion proofs at any size and refuses out-of-range parameters with 422", async () => {
    const size = 200
    // The root at that size, computed here from the seeded leaves.
    const root = mth([await leafHashOf(0), ...posts.slice(0, size - 1).map(leafHashOfPost)])
    const proof = await json(`/v2/tlog/inclusion?index=150&size=${size}`)
    expect(proof.index).toBe(150)
    expect(proof.size).toBe(size)
    expect(verifyInclusion(hasher, 150, size, leafHashOfPost(posts[149]!), proof.hashes.map((h: string) => decodeB64(h)!), root)).toBe(true)
    await expectProblem(`/v2/tlog/inclusion?index=5&size=${SEEDED + 2}`, 422, "size_out_of_range")
    await expectProblem("/v2/tlog/inclusion?index=5&size=5", 422, "index_out_of_range")
    await expectProblem("/v2/tlog/inclusion?index=0&size=0", 422, "invalid_parameters")
    await expectProblem("/v2/tlog/inclusion?size=5", 422, "invalid_parameters")
  })

  it("answers consistency proofs and refuses out-of-range parameters with 422", async () => {
    const view = await json("/v2/tlog/checkpoint")
    const newRoot = decodeB64(view.root_hash)!
    const m = 257
    const oldRoot = mth([await leafHashOf(0), ...posts.slice(0, m - 1).map(leafHashOfPost)])
    const proof = await json(`/v2/tlog/consistency?from=${m}&to=${SEEDED + 1}`)
    expect(verifyConsistency(hasher, m, SEEDED + 1, oldRoot, newRoot, proof.hashes.map((h: string) => decodeB64(h)!))).toBe(true)
    expect((await json("/v2/tlog/consistency?from=0&to=0")).hashes).toEqual([])
    await expectProblem(`/v2/tlog/consistency?from=1&to=${SEEDED + 2}`, 422, "size_out_of_range")
    await expectProblem("/v2/tlog/consistency?from=9&to=8", 422, "size_out_of_range")
    await expectProblem("/v2/tlog/consistency?from=a&to=8", 422, "invalid_parameters")
  })

  it("answers /v2/tlog/proof with the entry bytes and a proof against the published checkpoint", async () => {
    const proof = await json("/v2/tlog/proof/42")
    const entry = decodeU64(proof.entry_bytes)!
    expect(proof.leaf_hash).toBe(encodeU64(hasher.leafHash(entry)))
    expect(proof.inclusion_proof.size).toBe(SEEDED + 1)
    await expectProblem(`/v2/tlog/proof/${SEEDED + 5}`, 404, "entry_not_found")
    await expectProblem("/v2/tlog/proof/-3", 422)
  })

  it("finds a leaf by its hash, in U64 or hex; absence is 404", async () => {
    const leafHash = leafHashOfPost(posts[99]!)
    expect((await json(`/v2/tlog/index/${encodeU64(leafHash)}`)).index).toBe(100)
    expect((await json(`/v2/tlog/index/${Buffer.from(leafHash).toString("hex")}`)).index).toBe(100)
    await expectProblem(`/v2/tlog/index/${encodeU64(new Uint8Array(32))}`, 404, "leaf_not_found")
    await expectProblem("/v2/tlog/index/nothex", 422)
  })
})

describe("health and description", () => {
  it("reports OK with the tree size and tiles state", async () => {
    const response = await get("/healthz")
    expect(response.status).toBe(200)
    const health = await response.json() as Record<string, any>
    expect(health["status"]).toBe("OK")
    expect(health["tree_size"]).toBe(SEEDED + 1)
    expect(health["tiles"]["diverged"]).toBe(false)
  })

  it("publishes /openapi.json generated from the endpoint schemas", async () => {
    const spec = await json("/openapi.json")
    expect(spec.openapi).toBe("3.1.0")
    for (const path of ["/v2/tlog/inclusion", "/v2/tlog/consistency", "/v2/entries/{index}", "/v2/bodies/{digest}", "/healthz", "/checkpoint"]) {
      expect(spec.paths[path], path).toBeDefined()
    }
    expect(spec.paths["/v2/tlog/inclusion"].get.responses["422"]).toBeDefined()
    expect(spec.paths["/v2/tlog/inclusion"].get.responses["400"]).toBeUndefined()
    // Every route declares the `requests` budget's 429 problem; the write keeps its signed
    // refusals (a 400 among them) as application/json, the problems apart.
    const ref = (name: string) => ({ schema: { $ref: `#/components/schemas/${name}` } })
    expect(spec.paths["/v2/entries/{index}"].get.responses["429"].content).toEqual({ "application/problem+json": ref("TooManyRequests") })
    const write = spec.paths["/v2/entries"].post.responses
    expect(write["400"].content).toEqual({ "application/json": ref("WriteRefusal400") })
    expect(write["429"].content).toEqual({ "application/json": ref("WriteRefusal429"), "application/problem+json": ref("TooManyRequests") })
    expect(write["503"].content).toEqual({ "application/json": ref("WriteRefusal503"), "application/problem+json": ref("Unavailable") })
    expect(JSON.stringify(spec)).not.toContain("HttpApiDecodeError")
    // Each refusal status names its codes of the catalogue (docs/protocol.md 8.1), with their conditions.
    expect(spec.components.schemas.WriteRefusal409.description).toMatch(/seq_mismatch: seq is not the key's next sequence number; prev_mismatch: /)
    expect(spec.components.schemas.WriteRefusal401.description).not.toContain("seq_mismatch")
    // The 401, 403 and 409 of a signature check only on the routes that check one.
    const statuses = (path: string, method: string) => Object.keys(spec.paths[path][method].responses)
    for (const status of ["401", "403", "409"]) {
      expect(statuses("/v2/entries/{index}", "get")).not.toContain(status)
      expect(statuses("/v2/inbox", "get")).toContain(status)
    }
    // An unsigned route's own 403 and 409 stay, as classes of their own; the routes that read
    // their body themselves declare its 400 and 413; add-checkpoint's size is its own text.
    const claim = spec.paths["/v2/sup/contributions"].post.responses
    expect(claim["403"].content).toEqual({ "application/problem+json": ref("RouteRefused") })
    expect(claim["409"].content).toEqual({ "application/problem+json": ref("RouteConflict") })
    for (const path of ["/t", "/mcp", "/notice", "/add-checkpoint", "/v2/sup/contributions", "/v2/sup/contributions/intents"]) {
      expect(spec.paths[path].post.responses["400"].content, path).toMatchObject({ "application/problem+json": ref("BadRequest") })
      expect(spec.paths[path].post.responses["413"].content, path).toEqual({ "application/problem+json": ref("ContentTooLarge") })
    }
    const witness = spec.paths["/add-checkpoint"].post.responses
    expect(witness["403"].content).toEqual({ "application/problem+json": ref("RouteRefused") })
    expect(Object.keys(witness["409"].content).sort()).toEqual(["application/problem+json", "text/x.tlog.size"])
    expect(witness["409"].content["text/x.tlog.size"].schema.type).toBe("string")
    // /mcp as the MCP SDK's transport answers: its JSON-RPC refusals beside the problems, GET's 405.
    const mcp = spec.paths["/mcp"].post.responses
    expect(Object.keys(mcp["400"].content).sort()).toEqual(["application/json", "application/problem+json"])
    for (const status of ["200", "202", "406", "415"]) expect(mcp[status], status).toBeDefined()
    expect(Object.keys(spec.paths["/mcp"].get.responses)).toContain("405")
    expect(Object.keys(spec.paths["/mcp"].get.responses)).not.toContain("200")
    // Each listed once, with the words an agent reads.
    expect(spec.paths["/v2/admin/notices/{report_id}/close"].post.responses["403"].content["application/problem+json"]).toEqual(ref("Forbidden"))
    expect(write["400"].description).toContain("signed by the log")
  })

  it("turns 503 when a tile on disk is tampered with, and keeps reporting it", async () => {
    const tile = join(dataDir, "tiles", "tile", "0", "000")
    const bytes = await readFile(tile)
    bytes[17] = bytes[17]! ^ 0x01
    await writeFile(tile, bytes)
    let status = 0
    for (let i = 0; i < 60 && status !== 503; i++) {
      await new Promise((r) => setTimeout(r, 200))
      status = (await get("/healthz")).status
    }
    expect(status).toBe(503)
    const health = await (await get("/healthz")).json() as Record<string, any>
    expect(health["status"]).toBe("DIVERGED")
    expect(health["reasons"].join(" ")).toContain("tile/0/000")
    // The operator reads it in the log too, once.
    await expect.poll(() => server.output(), { timeout: 10_000 }).toContain("the log diverged from its published tiles (")
    expect(server.output().split("the log diverged from its published tiles").length).toBe(2)
    // Still serves what the last good checkpoint covers, at once (a diverged log publishes
    // nothing more, so nothing waits for a checkpoint: issue 13 item 13).
    const entry = await get("/v2/entries/1")
    expect(entry.status).toBe(200)
    expect(((await entry.json()) as { index: number }).index).toBe(1)
  })
})

// RFC 9162 MTH over leaf hashes, naive and independent of the stored-hash machinery.
const mth = (leaves: ReadonlyArray<Uint8Array>): Uint8Array => {
  if (leaves.length === 1) return leaves[0]!
  let k = 1
  while (k * 2 < leaves.length) k *= 2
  return hasher.nodeHash(mth(leaves.slice(0, k)), mth(leaves.slice(k)))
}
const leafHashOfPost = (post: SeededPost) =>
  hasher.leafHash(new TextEncoder().encode(JSON.stringify({ envelope: sortKeys(post.envelope), index: post.index, logged: 1_795_000_000_000 + post.index })))
const leafHashOf = async (index: number) => {
  const entry = decodeU64((await json(`/v2/tlog/proof/${index}`)).entry_bytes)!
  return hasher.leafHash(entry)
}
// JCS of these envelopes is JSON with sorted keys (ASCII keys, integers, plain strings).
const sortKeys = (value: unknown): unknown =>
  Array.isArray(value) ? value.map(sortKeys)
    : value !== null && typeof value === "object"
      ? Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]))
      : value
