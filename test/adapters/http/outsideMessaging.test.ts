// The messaging acceptance test: two agents written outside the project
// (test/support/outsideAgent.ts, no code shared with src/) find each other by name, grant,
// exchange HPKE-sealed DMs and read them from their inboxes; a key rotated away from its
// name loses its powers over the name; and `aics audit name` confirms both name views
// against the tiles.

import { execFile } from "node:child_process"
import { readFile } from "node:fs/promises"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { OutsideAgent, type Log, type WriteResult } from "../../support/outsideAgent.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

const CLI = resolve("dist/src/client/cli.js")

let dataDir: string
let server: RunningServer
let log: Log

beforeAll(async () => {
  dataDir = await tempDataDir()
  server = await startServer({ dataDir })
  log = { baseUrl: server.baseUrl, origin: "localhost/aics", vkey: (await readFile(join(dataDir, "log.vkey"), "utf8")).trim() }
}, 60_000)

afterAll(async () => {
  await server?.stop()
  if (dataDir !== undefined) await removeDir(dataDir)
})

const accepted = (result: WriteResult): WriteResult => {
  expect(result.status, JSON.stringify(result.json)).toBe(202)
  return result
}

const audit = (name: string): Promise<{ code: number; out: string; err: string }> =>
  new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, "audit", "name", name, "--server", server.baseUrl, "--vkey", log.vkey],
      { cwd: dataDir, env: { PATH: process.env["PATH"] ?? "" }, timeout: 60_000 },
      (error, out, err) => done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, out, err })
    )
  })

describe("two outside agents message each other by name", () => {
  it("claim, find by name, grant, exchange DMs, rotate, audit", async () => {
    const alice = OutsideAgent.random(log)
    const bob = OutsideAgent.random(log)
    accepted(await alice.claim("alice"))
    accepted(await bob.claim("bob"))

    // Each finds the other by name.
    const bobView = await alice.view("/v2/names/bob")
    const aliceView = await bob.view("/v2/names/alice")
    expect(bobView).toMatchObject({ name: "bob", kid: bob.kid, x25519: bob.x25519 })
    expect(aliceView).toMatchObject({ name: "alice", kid: alice.kid, x25519: alice.x25519 })

    // No grant yet: a DM has nothing to cite.
    await expect(alice.sendDm("bob", "too early")).rejects.toThrow(/no grant/)

    const aliceGrant = accepted(await alice.grant(bobView.kid))
    const bobGrant = accepted(await bob.grant(aliceView.kid))
    expect((await bob.view(`/v2/inbox/${alice.kid}/grants?sender=${encodeURIComponent(bob.kid)}`)).governing_index).toBe(aliceGrant.json.entry.index)

    const toBob = accepted(await alice.sendDm("bob", "hello bob, from alice"))
    const toAlice = accepted(await bob.sendDm("alice", "hi alice — bob here"))
    expect(toBob.json.entry.type).toBe("dm")

    const bobInbox = await bob.readInbox()
    expect(bobInbox.map((m) => ({ index: m.index, from: m.from, to: m.to, grant_index: m.grant_index, text: m.text }))).toEqual([
      { index: toBob.json.entry.index, from: alice.kid, to: bob.kid, grant_index: bobGrant.json.entry.index, text: "hello bob, from alice" }
    ])
    const aliceInbox = await alice.readInbox()
    expect(aliceInbox.map((m) => ({ index: m.index, from: m.from, to: m.to, text: m.text }))).toEqual([
      { index: toAlice.json.entry.index, from: bob.kid, to: alice.kid, text: "hi alice — bob here" }
    ])
    // The ciphertext is bound to its sender, recipient and log: it does not open for a third key.
    const eve = OutsideAgent.random(log)
    expect((await bob.readInbox({ secret: eve.x25519Secret }))[0]!.text).toBeUndefined()

    // Alice rotates to a new key.
    const alice2 = OutsideAgent.random(log)
    const rotation = accepted(await alice.rotate("alice", alice2))
    const rotated = await bob.view("/v2/names/alice")
    expect(rotated).toMatchObject({ kid: alice2.kid, kid_index: rotation.json.entry.index, x25519: alice.x25519 })

    // The old key no longer acts for the name.
    const oldX25519 = await alice.write("key.x25519", { name: "alice", x25519: alice2.x25519 })
    expect(oldX25519.status).toBe(403)
    expect(oldX25519.json.entry.refused).toBe("not_authorized")
    const oldRotate = await alice.rotate("alice", OutsideAgent.random(log))
    expect(oldRotate.status).toBe(403)
    expect(oldRotate.json.entry.refused).toBe("not_authorized")

    // The new key does: it sets its own X25519 key and grants bob itself (the old key's
    // grants serve no later key), and bob's DM reaches it, sealed to the new key.
    const x = accepted(await alice2.setX25519("alice"))
    expect(await bob.view("/v2/names/alice")).toMatchObject({ kid: alice2.kid, x25519: alice2.x25519, x25519_index: x.json.entry.index })
    await expect(bob.sendDm("alice", "before the new grant")).rejects.toThrow(/no grant/)
    accepted(await alice2.grant(bob.kid))
    const toAlice2 = accepted(await bob.sendDm("alice", "welcome back, new alice"))
    expect((await alice2.readInbox()).map((m) => ({ index: m.index, from: m.from, text: m.text }))).toEqual([
      { index: toAlice2.json.entry.index, from: bob.kid, text: "welcome back, new alice" }
    ])
    // Bob's grant named alice's old key: the new key needs its own.
    accepted(await bob.grant(alice2.kid))
    const last = accepted(await alice2.sendDm("bob", "my new key"))
    expect((await bob.readInbox({ unreadOnly: true })).map((m) => ({ from: m.from, text: m.text }))).toEqual([
      { from: alice2.kid, text: "my new key" }
    ])

    // The audit command confirms both name views against the tiles.
    await alice2.checkpointCovering(last.json.entry.index + 1, 15_000)
    for (const name of ["alice", "bob"]) {
      const run = await audit(name)
      expect(run.code, `${run.out}\n${run.err}`).toBe(0)
    }
  }, 120_000)
})
