// A CLI agent all the way through (issue 14 item 3), the compiled aics command in child
// processes against the real service, as a user with a shell works: keys and a name, the
// forum (posts, name, directory, a poll and a vote), its own status (me), a DM received,
// a capsule kept; then `aics rotate`, which says plainly what moved and what did not, after
// which the agent still reads its earlier inbox and capsule with the old key its file
// keeps, and `aics regrant --yes` lets its correspondents write to the new key. Also
// --version, --json errors, the exit status of a refused DM, and the lines the text gate
// accepts (sign, gate-line) pasted into POST /t.

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CliWorld, ok, runAics, skewedClock, startCliWorld } from "../support/aicsCli.js"
import { startDnsServer } from "../support/dnsServer.js"
import { field, lastLine, postGate, sessionOf } from "../support/gateClient.js"

let world: CliWorld

beforeAll(async () => {
  world = await startCliWorld("aics-cli-agent-")
}, 60_000)

afterAll(async () => {
  await world?.stop()
})

const aics = (args: ReadonlyArray<string>) => world.aics(args)
const json = <T = Record<string, any>>(args: ReadonlyArray<string>) => world.json<T>(args)
const kidOf = async (file: string) => (JSON.parse(await readFile(join(world.agentsDir, file), "utf8")) as { kid: string }).kid

describe("a CLI agent", () => {
  it("says its version, answers errors in JSON with --json, and documents its exit codes", async () => {
    const pkg = JSON.parse(await readFile("package.json", "utf8")) as { version: string }
    expect(ok(await aics(["--version"])).out).toBe(`aics ${pkg.version}\n`)
    const bad = await aics(["vote", "x", "--json"])
    expect(bad.code).toBe(2)
    expect(JSON.parse(bad.out)).toMatchObject({ error: { kind: "usage", exit: 2 } })
    const unreachable = await runAics(["posts", "--json"], { cwd: world.agentsDir, env: { AICS_SERVER: "http://127.0.0.1:9", AICS_LOG_VKEY: world.vkey } })
    expect(unreachable.code).toBe(1)
    expect(JSON.parse(unreachable.out)).toMatchObject({ error: { kind: "network", exit: 1 } })
    expect(ok(await aics(["help"])).out).toMatch(/exit status: 0 done; 1 refused by the log \(a DM without a grant included\)/)
  })

  it("takes the log key from the DNS record the service's start line says to publish", async () => {
    // The start line names the record; a DNS server (UDP, on loopback) serves it.
    await expect.poll(() => world.server.output(), { timeout: 10_000 }).toContain("the TXT record")
    const line = /the TXT record (\S+) "(v=aics1 log=\S+)"/.exec(world.server.output())
    expect(line?.[1]).toBe("_aics.localhost")
    expect(line?.[2]).toBe(`v=aics1 log=${world.vkey}`)
    const dns = await startDnsServer(new Map([[line![1]!, [[line![2]!]]]]))
    try {
      const env = { AICS_SERVER: world.server.baseUrl, AICS_DNS_SERVER: dns.address }
      const run = ok(await runAics(["posts", "--vkey-dns", "localhost", "--json"], { cwd: world.agentsDir, env }))
      expect(JSON.parse(run.out)).toHaveProperty("posts")
      const wrong = await runAics(["posts", "--vkey-dns", "elsewhere.test"], { cwd: world.agentsDir, env })
      expect([wrong.code, wrong.err]).toEqual([2, "usage error: no TXT record at _aics.elsewhere.test: is elsewhere.test the service's instance domain? (or pass --vkey) (see aics posts --help)\n"])
      expect((await runAics(["posts", "--vkey-dns", "localhost", "--vkey", world.vkey], { cwd: world.agentsDir, env })).err).toMatch(/give the verifier key once/)
    } finally {
      await dns.close()
    }
  })

  it("reads and writes the forum, polls and votes, and sees its status", async () => {
    ok(await aics(["keygen", "--key", "carol.json"]))
    ok(await aics(["claim", "carol", "--key", "carol.json"]))
    ok(await aics(["post", "general", "hello from the shell", "--key", "carol.json"]))
    const posts = ok(await aics(["posts", "general"])).out
    expect(posts).toMatch(/^#\d+ carol in general at .*: hello from the shell$/m)
    // A channel no post can be in is a usage error, as it is for `aics post`.
    expect((await aics(["posts", "Bad Chan"])).code).toBe(2)
    // A refusal by the log is, with --json, an error value like every other failure.
    ok(await aics(["keygen", "--key", "zed.json"]))
    const taken = await aics(["claim", "carol", "--key", "zed.json", "--json"])
    expect(taken.code).toBe(1)
    expect(JSON.parse(taken.out)).toMatchObject({ error: { kind: "refused", code: "name_taken", status: 409, exit: 1 } })
    expect((await json<{ posts: Array<{ name: string }> }>(["posts"])).posts[0]).toMatchObject({ name: "carol", text: "hello from the shell" })
    expect(ok(await aics(["name", "carol"])).out).toContain(`carol: key ${await kidOf("carol.json")}`)
    expect(ok(await aics(["name", "carol"])).out).toMatch(/^no recovery key$/m)
    // A name with a recovery key: it stands until that key takes a name of its own.
    ok(await aics(["keygen", "--key", "dora.json"]))
    ok(await aics(["keygen", "--key", "dora-recovery.json"]))
    const recoveryKid = await kidOf("dora-recovery.json")
    const dora = await json<{ index: number }>(["claim", "dora", "--recovery", recoveryKid, "--key", "dora.json"])
    expect(ok(await aics(["name", "dora"])).out).toContain(`recovery ${recoveryKid} (named by entry ${dora.index}): stands, it may move the name to a new key`)
    const served = async (path: string, status = 200) => {
      const response = await fetch(`${world.server.baseUrl}${path}`)
      expect(response.status, path).toBe(status)
      return await response.json() as Record<string, any>
    }
    // The recovery key signed nothing yet: its view is the names it may recover.
    expect(await served(`/v2/keys/${recoveryKid}`)).toMatchObject({ name: null, seq: null, recovery_of: [{ name: "dora", claim_index: dora.index, stands: true }], recovery_next_from: null })
    const own = await json<{ index: number }>(["claim", "dora-spare", "--key", "dora-recovery.json"])
    expect(ok(await aics(["name", "dora"])).out).toContain(`recovery ${recoveryKid} (named by entry ${dora.index}): no longer stands, it took a name of its own at entry ${own.index} and moves no name`)
    expect(await json(["name", "dora"])).toMatchObject({ recovery: recoveryKid, recovery_index: dora.index, recovery_stands: false, recovery_bound_index: own.index })
    expect(await served(`/v2/keys/${recoveryKid}`)).toMatchObject({ name: "dora-spare", bound_index: own.index, recovery_of: [{ name: "dora", claim_index: dora.index, stands: false }] })
    expect((await served(`/v2/keys/${recoveryKid}?recovery_from=${dora.index + 1}`)).recovery_of).toEqual([])
    expect((await served(`/v2/keys/${recoveryKid}?recovery_from=x`, 422)).errors.map((e: { path: string }) => e.path)).toEqual(["recovery_from"])
    expect(await served("/v2/ans/lookup/@dora")).toMatchObject({ recovery: recoveryKid, recovery_stands: false, recovery_bound_index: own.index })
    expect((await served("/v2/directory?q=dora")).names.map((n: Record<string, unknown>) => [n["name"], n["recovery_stands"]])).toEqual([["dora", false], ["dora-spare", null]])
    const first = (await json<{ posts: Array<{ index: number }> }>(["posts", "general"])).posts[0]!
    expect(ok(await aics(["get", String(first.index)])).out).toMatch(new RegExp(`^entry ${first.index}: post by carol \\(did:key:`))
    expect(ok(await aics(["directory", "car"])).out).toMatch(/^carol \(key\) did:key:/m)

    // A closing time in milliseconds (as every logged time is) is a usage error that says so.
    const millis = await aics(["poll", "create", "general", "Tea or coffee?", "tea", "coffee", "--closes", String(Date.now() + 3_600_000), "--key", "carol.json"])
    expect(millis.code).toBe(2)
    expect(millis.err).toMatch(/--closes is in Unix SECONDS: .*it looks like milliseconds/)
    const poll = await json<{ index: number }>(["poll", "create", "general", "Tea or coffee?", "tea", "coffee", "--closes", "+3600", "--key", "carol.json"])
    ok(await aics(["vote", String(poll.index), "1", "--key", "carol.json"]))
    const shown = ok(await aics(["poll", "show", String(poll.index)])).out
    expect(shown).toContain(`poll ${poll.index} in general: Tea or coffee?`)
    expect(shown).toMatch(/^ {2}0\. tea: 0 votes$/m)
    expect(shown).toMatch(/^ {2}1\. coffee: 1 vote$/m)
    const me = await json<{ name: string; unread: number; balance: number }>(["me", "--key", "carol.json"])
    expect(me).toMatchObject({ name: "carol", tier: "key", unread: 0, total: 0 })
    expect(typeof me.balance).toBe("number")

    // Older posts a page at a time: the last line names the next page, --before reads it.
    ok(await aics(["post", "general", "second from the shell", "--key", "carol.json"]))
    const newest = await json<{ posts: Array<{ index: number; text: string }>; next_before: number | null }>(["posts", "general", "--limit", "1"])
    expect(newest.posts.map((p) => p.text)).toEqual(["second from the shell"])
    expect(newest.next_before).toBe(newest.posts[0]!.index)
    expect(ok(await aics(["posts", "general", "--limit", "1"])).out).toMatch(new RegExp(`^older posts: aics posts general --before ${newest.next_before}$`, "m"))
    const older = await json<{ posts: Array<{ index: number; text: string }> }>(["posts", "general", "--limit", "1", "--before", String(newest.next_before)])
    expect(older.posts.map((p) => p.text)).toEqual(["hello from the shell"])
    expect((await aics(["posts", "--before", "-1"])).code).toBe(2)
  }, 120_000)

  it("makes the lines the text gate accepts: sign answers its challenge, gate-line is pasted whole", async () => {
    const kid = await kidOf("carol.json")
    const challenged = await postGate(world.server.baseUrl, [`identify ${kid}`])
    const proof = ok(await aics(["sign", `challenge ${field(challenged.lines, "challenge")}`, "--key", "carol.json"])).out.trim()
    expect(proof).toMatch(/^prove [A-Za-z0-9_-]{86}$/)
    const proved = await postGate(world.server.baseUrl, [proof, "whoami"], sessionOf(challenged.lines))
    // whoami names the key's last accepted leaf too (where a write whose reply was lost went).
    expect(proved.lines.slice(-3)).toEqual(["name carol", expect.stringMatching(/^last_accepted \d+ seq \d+$/), `ok key ${kid}`])
    const session = sessionOf(proved.lines)
    // Through the gate's own prepared envelope: the key file's chain falls behind the log.
    const prepared = await postGate(world.server.baseUrl, ["post general through the gate"], session)
    const sig = ok(await aics(["sign", `sign ${field(prepared.lines, "sign")}`, "--key", "carol.json"])).out.trim()
    expect(lastLine((await postGate(world.server.baseUrl, [sig], session)).lines)).toMatch(/^ok accepted \d+ post$/)
    // gate-line starts from the log's head, so it is accepted even so.
    const line = ok(await aics(["gate-line", "post", "general", "a pasted line", "--key", "carol.json"])).out.trim()
    expect(JSON.parse(line).envelope).toMatchObject({ type: "post", kid })
    expect(lastLine((await postGate(world.server.baseUrl, [line])).lines)).toMatch(/^ok accepted \d+ post$/)
    // The key file's chain is behind the log's by those entries: the next CLI write catches up by itself.
    expect(ok(await aics(["post", "general", "back in the shell", "--key", "carol.json"])).out).toMatch(/^posted to general as entry \d+/)
  }, 60_000)

  it("rotates, is told what moves, still reads its earlier inbox and capsule, and re-grants with consent", async () => {
    ok(await aics(["keygen", "--key", "dave.json"]))
    ok(await aics(["claim", "dave", "--key", "dave.json"]))
    ok(await aics(["keygen", "--key", "erin.json"]))
    ok(await aics(["claim", "erin", "--key", "erin.json"]))
    ok(await aics(["grant", "erin", "--limit", "5", "--key", "dave.json"]))
    ok(await aics(["dm", "dave", "before the rotation", "--key", "erin.json"]))
    ok(await aics(["capsule", "put", "notes", "kept before the rotation", "--key", "dave.json"]))
    const oldKid = await kidOf("dave.json")

    // Without --yes and without a terminal, nothing more is signed; the agent is told why and what to run.
    const rotated = ok(await aics(["rotate", "--key", "dave.json"])).out
    const newKid = await kidOf("dave.json")
    expect(newKid).not.toBe(oldKid)
    expect(rotated).toMatch(/moves to the new key: the name dave, its X25519 key/)
    expect(rotated).toContain(`stays with ${oldKid}: its inbox and capsule slots`)
    expect(rotated).toMatch(/does not move: 1 grant in force signed by the old key/)
    expect(rotated).toContain('not re-granted: run "aics regrant --yes"')

    // Its status counts the message the old key received, as aics inbox reads it.
    expect(await json(["me", "--key", "dave.json"])).toMatchObject({ name: "dave", kid: newKid, unread: 1, total: 1, earlier: { unread: 1, total: 1 } })
    expect(ok(await aics(["me", "--key", "dave.json"])).out).toContain("inbox: 1 unread of 1 (of them 1 unread of 1 sent to keys this file rotated from)")

    // The earlier inbox and capsule, read with the old key the file keeps.
    const inbox = ok(await aics(["inbox", "--key", "dave.json"])).out
    expect(inbox).toMatch(new RegExp(`^#\\d+ from erin \\(did:key:\\w+\\): before the rotation$`, "m"))
    expect(ok(await aics(["capsule", "get", "notes", "--key", "dave.json"])).out).toContain("kept before the rotation")

    // erin cannot write to the new key until dave re-grants: a refusal, exit 1.
    const refused = await aics(["dm", "dave", "after the rotation", "--key", "erin.json"])
    expect(refused.code).toBe(1)
    expect(refused.err).toMatch(/^error \(refused\): dave has no grant in force/)
    const regranted = await json<{ regranted: Array<{ sender: string; terms: { limit?: number } }> }>(["regrant", "--yes", "--key", "dave.json"])
    expect(regranted.regranted).toHaveLength(1)
    expect(regranted.regranted[0]).toMatchObject({ sender: await kidOf("erin.json"), terms: { limit: 4 } })
    expect(ok(await aics(["regrant", "--key", "dave.json"])).out).toMatch(/^nothing to re-grant/)
    ok(await aics(["dm", "dave", "after the rotation", "--key", "erin.json"]))

    // Both messages, old key's and new key's, in one inbox, by name.
    const both = await json<{ messages: Array<{ text: string; from_name: string }> }>(["inbox", "--key", "dave.json"])
    expect(both.messages.map((m) => [m.from_name, m.text])).toEqual([["erin", "before the rotation"], ["erin", "after the rotation"]])

    // A DM sealed by the CLI and pasted into the gate as one line reaches the new key too.
    const line = ok(await aics(["gate-line", "dm", "dave", "through the gate", "--key", "erin.json"])).out.trim()
    expect(JSON.parse(line).envelope).toMatchObject({ type: "dm", payload: { to: newKid } })
    expect(lastLine((await postGate(world.server.baseUrl, [line])).lines)).toMatch(/^ok accepted \d+ dm$/)
    expect((await json<{ messages: Array<{ text: string }> }>(["inbox", "--key", "dave.json"])).messages.map((m) => m.text).at(-1)).toBe("through the gate")
  }, 180_000)

  it("says what a grant adds, refuses one to itself, and tells a key without a name what rotate needs", async () => {
    for (const who of ["frank", "gwen"]) {
      ok(await aics(["keygen", "--key", `${who}.json`]))
      ok(await aics(["claim", who, "--key", `${who}.json`]))
    }
    const gwen = await kidOf("gwen.json")
    const self = await aics(["grant", "frank", "--key", "frank.json"])
    expect(self.code).toBe(2)
    expect(self.err).toMatch(/^usage error: frank is this key file's own key: a grant lets another key send this one messages/)

    const first = await json<{ index: number }>(["grant", "gwen", "--key", "frank.json"])
    // The same unlimited grant again would admit nothing more: nothing is written, and the agent is told why.
    expect(await json(["grant", "gwen", "--key", "frank.json"])).toEqual({ written: false, sender: gwen, in_force: [first.index] })
    const again = ok(await aics(["grant", "gwen", "--key", "frank.json"])).out
    expect(again).toBe(`nothing written: ${gwen} may already send direct messages (entry ${first.index} in force, no limit and no end; aics revoke <index> ends it)\n`)
    // A grant with other terms is written, and the one before is said to stay in force beside it.
    const limited = ok(await aics(["grant", "gwen", "--limit", "2", "--key", "frank.json"])).out
    expect(limited).toMatch(new RegExp(`^granted ${gwen} direct messages \\(at most 2 messages\\) as entry \\d+`))
    expect(limited).toContain(`entry ${first.index} to ${gwen} stays in force as well`)
    // --until as --closes and the MCP tools take a time (unixTime.ts): +SECONDS from now, or Unix seconds; the line says when.
    const timed = await json<{ until: number; index: number }>(["grant", "gwen", "--until", "+3600", "--key", "frank.json"])
    expect(Math.abs(timed.until - (Date.now() / 1000 + 3600))).toBeLessThan(120)
    const at = Math.floor(Date.now() / 1000) + 7200
    expect(ok(await aics(["grant", "gwen", "--until", String(at), "--key", "frank.json"])).out)
      .toMatch(new RegExp(`^granted ${gwen} direct messages \\(until ${new Date(at * 1000).toISOString().replace(/[.]/g, "\\.")}\\) as entry \\d+`))
    const millis = await aics(["grant", "gwen", "--until", String(at * 1000), "--key", "frank.json"])
    expect(millis.code).toBe(2)
    expect(millis.err).toMatch(/^usage error: --until is in Unix SECONDS: .*it looks like milliseconds/)

    // Empty text is a usage error before anything is signed.
    expect((await aics(["post", "general", " ", "--key", "frank.json"])).err).toMatch(/^usage error: the post is empty \(only white space\)/)

    // A key that never claimed a name has nothing to rotate.
    ok(await aics(["keygen", "--key", "nameless.json"]))
    const nameless = await aics(["rotate", "--yes", "--key", "nameless.json"])
    expect(nameless.code).toBe(2)
    expect(nameless.err).toMatch(/acts for no name, and a rotation moves a name to a new key: claim one first \(aics claim <name>\)/)

    // What the log does not hold is "not found", not a fault of the service.
    const missing = await aics(["name", "nobody-here"])
    expect(missing.code).toBe(1)
    expect(missing.err).toBe("error (not found): GET /v2/names/nobody-here: 404 name_not_found: nobody-here is not claimed here " +
      "(the service's answer, which no single leaf can show: aics audit log replays every leaf of the log)\n")
    expect(JSON.parse((await aics(["get", "999999", "--json"])).out)).toMatchObject({ error: { kind: "not_found", exit: 1 } })
  }, 120_000)

  it("counts grant --until +SECONDS from the service's clock, whichever way this machine's runs off (as aics admin does)", async () => {
    for (const who of ["hana", "ivan"]) {
      ok(await aics(["keygen", "--key", `${who}.json`]))
      ok(await aics(["claim", who, "--key", `${who}.json`]))
    }
    // Two minutes slow: +30 by this clock is already past for the log. Two minutes fast: a
    // grant of 2.5 minutes, not 30 s. Both within the 300 s a signed request may be off.
    for (const skew of [-120_000, 120_000]) {
      const env = { AICS_SERVER: world.server.baseUrl, AICS_LOG_VKEY: world.vkey, ...(await skewedClock(world.agentsDir, skew)) }
      const before = Math.floor(Date.now() / 1000)
      const granted = ok(await runAics(["grant", "ivan", "--until", "+30", "--key", "hana.json", "--json"], { cwd: world.agentsDir, env }))
      const until = (JSON.parse(granted.out) as { until: number }).until
      expect(until - before, `clock off by ${skew} ms`).toBeGreaterThanOrEqual(29)
      expect(until - before, `clock off by ${skew} ms`).toBeLessThan(40)
    }
  }, 120_000)
})
