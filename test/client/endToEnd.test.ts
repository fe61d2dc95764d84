// The aics command against the real service: the compiled CLI (dist/, built by the test
// runner's globalSetup) in child processes, the server from test/support/server.ts. Two
// agents make keys, claim names, post and read back; a taken name is refused with status 1
// and leaves the chain where it was; verify checks the tiles and every receipt. The key
// files' seq and prev are checked after each step against the envelopes in the log.

import { readFile, stat } from "node:fs/promises"
import { join } from "node:path"
import { Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nobleCrypto } from "../../src/adapters/crypto/nobleCrypto.js"
import type { Envelope } from "../../src/domain/envelope/envelope.js"
import { prevOf } from "../../src/domain/envelope/hash.js"
import { ok, runAics, type AicsRun as Run } from "../support/aicsCli.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../support/server.js"

let dataDir: string
let server: RunningServer
let vkeyFile: string

beforeAll(async () => {
  dataDir = await tempDataDir()
  server = await startServer({ dataDir })
  vkeyFile = join(dataDir, "log.vkey")
}, 60_000)

afterAll(async () => {
  await server?.stop()
  if (dataDir !== undefined) await removeDir(dataDir)
})

/** Runs `aics <args>` in the data folder, with the server and the out-of-band vkey in the environment. */
const aics = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<Run> =>
  runAics(args, { cwd: dataDir, env: { AICS_SERVER: server.baseUrl, ...env } })

const withVkey = async (args: ReadonlyArray<string>): Promise<Run> =>
  aics(args, { AICS_LOG_VKEY: (await readFile(vkeyFile, "utf8")).trim() })

const keyFile = async (name: string) => JSON.parse(await readFile(join(dataDir, name), "utf8")) as {
  kid: string
  seq: number
  prev: string | null
  origin: string | null
  receipts: Array<{ index: number; type: string; seq: number }>
}

/** The logged envelope at an index, read back and verified through `aics get --json`. */
const logged = async (index: number): Promise<Envelope> =>
  (JSON.parse(ok(await withVkey(["get", String(index), "--json", "--vkey-file", vkeyFile])).out) as { envelope: Envelope }).envelope

const prevAfter = (envelope: Envelope) => Either.getOrThrow(prevOf(nobleCrypto.sha256, envelope))

describe("aics end to end", () => {
  it("keygen, claim, post, get, a refused claim, and verify", async () => {
    // keygen: two agents, mode 0600, seq 0; a second keygen never overwrites.
    const a = JSON.parse(ok(await aics(["keygen", "--key", "a.json", "--json"])).out) as { kid: string }
    const b = ok(await aics(["keygen"], { AICS_KEY: "b.json" }))
    expect(b.out).toMatch(/^kid did:key:z/)
    expect((await stat(join(dataDir, "a.json"))).mode & 0o777).toBe(0o600)
    expect(await keyFile("a.json")).toMatchObject({ kid: a.kid, seq: 0, prev: null, origin: null, receipts: [] })
    const again = await aics(["keygen", "--key", "a.json"])
    expect(again.code).toBe(1)
    expect(again.err).toMatch(/^error \(key file\): a\.json already exists/)
    expect((await keyFile("a.json")).kid).toBe(a.kid)

    // Writes need the out-of-band verifier key.
    const noVkey = await aics(["claim", "alice", "--key", "a.json"])
    expect(noVkey.code).toBe(2)
    expect(noVkey.err).toMatch(/verifier key is needed/)

    // claim: alice for A (name given in another case: claimed in normal form), bob for B.
    const claimA = ok(await aics(["claim", "Alice", "--key", "a.json", "--vkey-file", vkeyFile]))
    expect(claimA.out).toMatch(/^claimed alice as entry (\d+) \(seq 0, receipt verified\)$/m)
    let fileA = await keyFile("a.json")
    const claimIndex = fileA.receipts[0]!.index
    const claimEnvelope = await logged(claimIndex)
    expect(claimEnvelope).toMatchObject({ type: "claim", kid: a.kid, seq: 0, prev: null, payload: { name: "alice" } })
    expect(fileA).toMatchObject({ seq: 1, prev: prevAfter(claimEnvelope), origin: "localhost/aics" })

    const claimB = JSON.parse(ok(await withVkey(["claim", "bob", "--key", "b.json", "--json"])).out) as { index: number; seq: number; next_seq: number }
    expect([claimB.seq, claimB.next_seq]).toEqual([0, 1])
    let fileB = await keyFile("b.json")
    expect(fileB).toMatchObject({ seq: 1, prev: prevAfter(await logged(claimB.index)) })

    // post by A, read back by get with its body checked.
    const postA = JSON.parse(ok(await withVkey(["post", "general", "hello from alice", "--key", "a.json", "--json"])).out) as { index: number; seq: number }
    expect(postA.seq).toBe(1)
    const got = JSON.parse(ok(await withVkey(["get", String(postA.index), "--json"])).out) as {
      envelope: Envelope
      text: string
      body_status: string
      checkpoint_size: number
    }
    expect(got.text).toBe("hello from alice")
    expect(got.body_status).toBe("available")
    expect(got.envelope).toMatchObject({ type: "post", kid: a.kid, seq: 1, prev: fileA.prev, payload: { channel: "general", size: 16 } })
    expect(got.checkpoint_size).toBeGreaterThan(postA.index)
    fileA = await keyFile("a.json")
    expect(fileA).toMatchObject({ seq: 2, prev: prevAfter(got.envelope) })
    const human = ok(await withVkey(["get", String(postA.index)])).out
    expect(human).toMatch(/^entry \d+: post by alice \(did:key:z\S+\) \(seq 1, logged /)
    expect(human.trimEnd().endsWith("\nhello from alice")).toBe(true)

    // A taken name: refused (409 name_taken), status 1, one stderr line, chain unchanged.
    const before = await readFile(join(dataDir, "b.json"), "utf8")
    const taken = await withVkey(["claim", "alice", "--key", "b.json"])
    expect(taken.code).toBe(1)
    expect(taken.out).toBe("")
    expect(taken.err).toBe("refused 409 name_taken: alice is already claimed\n")
    expect(await readFile(join(dataDir, "b.json"), "utf8")).toBe(before)

    // The next write of B still works, at the same seq the refused one used.
    const reply = ok(await withVkey(["post", "general", "hi alice", "--reply-to", String(postA.index), "--key", "b.json"]))
    expect(reply.out).toMatch(/^posted to general as entry (\d+) \(seq 1, receipt verified\)$/m)
    fileB = await keyFile("b.json")
    const replyEnvelope = await logged(fileB.receipts[1]!.index)
    expect(replyEnvelope).toMatchObject({ seq: 1, prev: JSON.parse(before).prev, payload: { reply_to: postA.index } })
    expect(fileB).toMatchObject({ seq: 2, prev: prevAfter(replyEnvelope) })
    expect(fileB.receipts.map((r) => [r.type, r.seq])).toEqual([["claim", 0], ["post", 1]])

    // verify: tiles against the checkpoint, then every receipt of each key file.
    for (const key of ["a.json", "b.json"]) {
      const report = JSON.parse(ok(await withVkey(["verify", "--key", key, "--json"])).out) as {
        ok: boolean
        size: number
        receipts: Array<{ index: number; status: string }>
      }
      expect(report.ok).toBe(true)
      expect(report.receipts.map((r) => r.status)).toEqual(["ok", "ok"])
      expect(report.size).toBeGreaterThan(Math.max(...report.receipts.map((r) => r.index)))
    }
    const human2 = ok(await withVkey(["verify", "--key", "a.json"])).out
    expect(human2).toMatch(/^checkpoint localhost\/aics size \d+ root \S+: signature ok, hash tiles rebuild the root \(\d+ tiles\)\n/)
    expect(human2).toMatch(/\nentry contents are not checked here but the receipts' own \(1 entry bundle read\): aics audit log reads every entry bundle, checks it against the tiles and replays every leaf/)
    expect(human2).toContain("included in the checkpoint of size")
    expect(human2).toContain("its entry bundle holds the leaf")
    expect(human2).toMatch(/2 of 2 receipts verified\n$/)

    // A wrong verifier key is caught before anything is signed or trusted.
    const wrong = "localhost/aics+bdff72f3+AepKbGPinFIKvvVQexMuxfmVR3auvr57kkIe6mkURtIs"
    const forged = await aics(["post", "general", "x", "--key", "a.json", "--vkey", wrong])
    expect(forged.code).toBe(1)
    expect(forged.err).toMatch(/^error \(verification\): the checkpoint is not signed by the log key localhost\/aics\+bdff72f3/)
    expect((await keyFile("a.json")).seq).toBe(2)
  }, 180_000)
})
