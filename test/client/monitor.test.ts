// `aics monitor` against a log that forks: a harness serving /checkpoint and the consistency
// proofs of whichever history it is told to show, signed with one log key. The monitor keeps
// the checkpoints that extend what it saw, and reports a split view, with both signed
// checkpoints, when one is shown not to (another root at a size it saw, or tiles that hash to
// the newer root and give another at the older size); a proof that fails alone is the
// service's error, not a split view; an older checkpoint, even a consistent one, is a
// warning with its own exit status (3).

import { createServer, type Server } from "node:http"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { fromHex, fromUtf8, toHex } from "../../src/domain/bytes.js"
import { encodeB64 } from "../../src/domain/encoding.js"
import { cosign, withSignatureLines } from "../../src/domain/note/cosignature.js"
import { harnessLog } from "../support/harnessLog.js"
import { ok, runAics } from "../support/aicsCli.js"

const ORIGIN = "fork.example/log"
const honest = harnessLog(ORIGIN, "honest")
const forked = harnessLog(ORIGIN, "forked")
// A witness the harness can cosign with (the seed of an independent vector).
const WITNESS_NAME = "witness.example.com/w1"
const WITNESS_VKEY = "witness.example.com/w1+dde26c30+BKVinpfhi7m+4kLESvo8VEsk4VeXxyxNdZ716vbMWdw4"
const witnessSeed = fromHex("47ac16fb50260f70e3944ee4be8372a129d1d654230e5e1a59592505afdf16bd")!
/**
 * What the harness serves: the checkpoint of `log` at `size`, its consistency proofs (each hash
 * with a bit flipped when `spoiltProofs`, as a proxy or a cache that spoils them) and the
 * tiles of `tilesOf` (default: `log`'s own).
 */
let shown: { log: typeof honest; size: number; cosigned?: boolean; spoiltProofs?: boolean; tilesOf?: typeof honest } = { log: honest, size: 5 }
let server: Server
let baseUrl: string
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "aics-monitor-"))
  server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://x")
    if (url.pathname === "/checkpoint") {
      const { log, size } = shown
      const lines = shown.cosigned === true ? [cosign(log.text(size), WITNESS_NAME, witnessSeed, Math.floor(Date.now() / 1000), nodeCrypto)] : []
      response.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(withSignatureLines(log.note(size), lines))
      return
    }
    if (url.pathname === "/v2/tlog/consistency") {
      const from = Number(url.searchParams.get("from"))
      const to = Number(url.searchParams.get("to"))
      const spoil = (hash: Uint8Array) => (shown.spoiltProofs === true ? hash.map((byte, i) => (i === 0 ? byte ^ 1 : byte)) : hash)
      const hashes = shown.log.proof(from, to).map((hash) => encodeB64(spoil(hash)))
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ from, to, hashes }))
      return
    }
    const tile = url.pathname.startsWith("/tiles/") ? (shown.tilesOf ?? shown.log).tile(url.pathname.slice("/tiles/".length)) : undefined
    if (tile !== undefined) {
      response.writeHead(200, { "content-type": "application/octet-stream" }).end(tile)
      return
    }
    response.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  baseUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  await rm(dir, { recursive: true, force: true })
})

const monitor = (state: string, ...extra: Array<string>) =>
  runAics(["monitor", "--once", "--server", baseUrl, "--vkey", honest.vkey, "--state", state, ...extra], { cwd: dir })

describe("aics monitor", () => {
  it("keeps the first checkpoint, then each one a consistency proof shows extends it", async () => {
    const state = join(dir, "grows.json")
    shown = { log: honest, size: 5 }
    expect(ok(await monitor(state)).out).toContain("first checkpoint fork.example/log size 5")
    shown = { log: honest, size: 9 }
    expect(ok(await monitor(state)).out).toContain("size 9 extends size 5")
    expect(ok(await monitor(state)).out).toContain("size 9: unchanged")
    expect(JSON.parse(await readFile(state, "utf8"))).toMatchObject({ origin: ORIGIN, size: 9 })
  })

  it("checks a checkpoint kept elsewhere, written into a state file as its note and size, against the log", async () => {
    const state = join(dir, "kept-elsewhere.json")
    await writeFile(state, JSON.stringify({ note: fromUtf8(honest.note(4)), size: 4 }))
    shown = { log: honest, size: 9 }
    expect(ok(await monitor(state)).out).toContain("size 9 extends size 4")
    // Its note is what counts: one the log key did not sign is refused, whatever the size says.
    await writeFile(state, JSON.stringify({ note: fromUtf8(forked.note(4)).replace("fork.example/log", "other.example/log"), size: 4 }))
    expect((await monitor(state)).code).toBe(1)
  })

  it("warns, with its own exit status, when the log answers an older tree than the kept one, and keeps the kept one", async () => {
    const state = join(dir, "older.json")
    shown = { log: honest, size: 9 }
    ok(await monitor(state))
    const kept = await readFile(state, "utf8")
    // Correctly signed and a prefix of the kept tree: not a split view, but not fresh either.
    shown = { log: honest, size: 7 }
    const run = await monitor(state)
    expect(run.code).toBe(3)
    expect(run.out).toMatch(/^WARNING: the log answered an older tree than seen before: checkpoint size 7, below the kept size 9 /)
    expect(run.out).toContain("a rollback, a lagging node or a cache; leaves withheld from you look like this")
    expect(run.err).toBe(`older checkpoint: the log answered size 7, below the size 9 seen before (${state} keeps it): a rollback, a lagging node or a cache\n`)
    const json = await monitor(state, "--json")
    expect(json.code).toBe(3)
    expect(JSON.parse(json.out)).toEqual({ result: "older", size: 7, root_hash: encodeB64(honest.root(7)), root_hash_hex: toHex(honest.root(7)), kept_size: 9 })
    expect(await readFile(state, "utf8")).toBe(kept)
    // The log catching up again is no warning.
    shown = { log: honest, size: 9 }
    expect(ok(await monitor(state)).out).toContain("size 9: unchanged")
  })

  it("answers --json in snake_case, the root in B64 as the note has it and in hex", async () => {
    // As verify's report (verificationJson): root_hash in B64 as the checkpoint note has it, root_hash_hex.
    const state = join(dir, "json.json")
    shown = { log: honest, size: 5 }
    const json = async () => JSON.parse(ok(await monitor(state, "--json")).out) as Record<string, unknown>
    expect(await json()).toEqual({ result: "first", size: 5, root_hash: encodeB64(honest.root(5)), root_hash_hex: toHex(honest.root(5)) })
    shown = { log: honest, size: 9 }
    expect(await json()).toEqual({ result: "grew", size: 9, root_hash: encodeB64(honest.root(9)), root_hash_hex: toHex(honest.root(9)) })
    expect(await json()).toEqual({ result: "same", size: 9, root_hash: encodeB64(honest.root(9)), root_hash_hex: toHex(honest.root(9)) })
    // The line keeps the note's B64.
    shown = { log: honest, size: 5 }
    expect(ok(await monitor(join(dir, "json-line.json"))).out).toContain(`size 5 root ${encodeB64(honest.root(5))}: kept`)
  })

  it("reports a split view with both signed checkpoints when the log signs another root at a size it saw", async () => {
    const state = join(dir, "same-size.json")
    shown = { log: honest, size: 9 }
    ok(await monitor(state))
    shown = { log: forked, size: 9 }
    const run = await monitor(state, "--json")
    expect(run.code).toBe(1)
    expect(run.err).toContain("split view: two checkpoints of size 9 with different roots")
    const report = JSON.parse(run.out)
    expect(report).toMatchObject({
      result: "split_view",
      previous_checkpoint: new TextDecoder().decode(honest.note(9)),
      current_checkpoint: new TextDecoder().decode(forked.note(9))
    })
    // The state keeps the earlier checkpoint: the evidence is not overwritten.
    expect(JSON.parse(await readFile(state, "utf8")).note).toBe(new TextDecoder().decode(honest.note(9)))
  })

  it("reports a split view when a larger checkpoint does not extend the one it saw", async () => {
    const state = join(dir, "larger.json")
    shown = { log: honest, size: 6 }
    ok(await monitor(state))
    shown = { log: forked, size: 12 }
    const run = await monitor(state)
    expect(run.code).toBe(1)
    expect(run.out).toContain("SPLIT VIEW: the checkpoint of size 12 does not extend the one of size 6 seen before (its tiles give another root at size 6)")
    expect(run.out).toContain(new TextDecoder().decode(honest.note(6)))
    expect(run.out).toContain(new TextDecoder().decode(forked.note(12)))
  })

  it("reports a split view when a smaller checkpoint is not a prefix of the kept one, by the kept one's tiles", async () => {
    const state = join(dir, "smaller-forked.json")
    shown = { log: honest, size: 12 }
    ok(await monitor(state))
    // The forked log's checkpoint of size 6; the consistency proof to 12 and the tiles of 12 are the honest log's.
    shown = { log: forked, size: 6, tilesOf: honest }
    const run = await monitor(state)
    expect(run.code).toBe(1)
    expect(run.out).toContain("SPLIT VIEW: the checkpoint of size 6 is not a prefix of the one of size 12 seen before (the tiles of size 12 give another root at size 6)")
  })

  it("says a consistency proof that fails while the tiles show the checkpoints consistent is the service's error, not a split view", async () => {
    const state = join(dir, "spoilt-proof.json")
    shown = { log: honest, size: 10 }
    ok(await monitor(state))
    const kept = await readFile(state, "utf8")
    shown = { log: honest, size: 33, spoiltProofs: true }
    const run = await monitor(state)
    expect(run.code).toBe(1)
    expect(run.out).not.toContain("SPLIT VIEW")
    expect(run.err).toBe("error (protocol): the service's consistency proof from size 10 to size 33 does not verify (the tiles show the checkpoints are consistent)\n")
    expect(await readFile(state, "utf8")).toBe(kept)
    // An older checkpoint the same: the warning needs a proof, the accusation evidence.
    shown = { log: honest, size: 7, spoiltProofs: true }
    const older = await monitor(state, "--json")
    expect(older.code).toBe(1)
    expect(JSON.parse(older.out)).toEqual({
      error: { kind: "protocol", message: "the service's consistency proof from size 7 to size 10 does not verify (the tiles show the checkpoints are consistent)", exit: 1 }
    })
    // Served right again, the checkpoint is kept.
    shown = { log: honest, size: 33 }
    expect(ok(await monitor(state)).out).toContain("size 33 extends size 10")
  })

  it("accuses no one when neither the proof nor the tiles are of the newer checkpoint", async () => {
    const state = join(dir, "no-evidence.json")
    shown = { log: honest, size: 6 }
    ok(await monitor(state))
    // The forked log's checkpoint of 12 is another history, but the proof and the tiles served
    // are the honest log's: they hash to no root the log signed at 12, so they show nothing.
    shown = { log: forked, size: 12, spoiltProofs: true, tilesOf: honest }
    const run = await monitor(state)
    expect(run.code).toBe(1)
    expect(run.out).not.toContain("SPLIT VIEW")
    expect(run.err).toBe("error (protocol): the service's consistency proof from size 6 to size 12 does not verify, and the tiles do not hash to the checkpoint of size 12: nothing shows whether the two are one history\n")
    expect(JSON.parse(await readFile(state, "utf8"))).toMatchObject({ size: 6 })
  })

  it("requires a quorum of witnesses when given, and refuses a checkpoint without", async () => {
    const state = join(dir, "witnessed.json")
    shown = { log: honest, size: 5 }
    const run = await monitor(state, "--witness", WITNESS_VKEY)
    expect(run.code).toBe(1)
    expect(run.err).toContain("is cosigned by 0 of the known witnesses, not the 1 required")
    shown = { log: honest, size: 5, cosigned: true }
    expect(ok(await monitor(state, "--witness", WITNESS_VKEY, "--quorum", "1")).out).toContain("first checkpoint")
  })
})
