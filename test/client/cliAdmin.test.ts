// `aics admin ...` and `aics notice` against the real service: the compiled CLI in child
// processes, the owner key made with `aics keygen` and named to the service with
// AICS_OWNER_KID. Every owner operation runs once (and refusals show as status 1 with the
// log's code); an agent's writes show each operation's effect; another key is not the owner.

import { mkdtemp, readFile, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { main } from "../../src/client/cli.js"
import { utf8 } from "../../src/domain/bytes.js"
import { encodeU64 } from "../../src/domain/encoding.js"
import { DOCUMENT_LIMIT } from "../../src/domain/entries/entryRule.js"
import { ok, runAics, skewedClock, type AicsRun as Run } from "../support/aicsCli.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../support/server.js"

let dataDir: string
let work: string
let server: RunningServer
let vkey: string

const aics = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<Run> =>
  runAics(args, { cwd: work, env: { AICS_SERVER: server.baseUrl, AICS_LOG_VKEY: vkey, AICS_OWNER_KEY: join(work, "owner-key.json"), ...env } })

const refused = (run: Run, code: string): Run => {
  expect(run.code, run.out).toBe(1)
  expect(run.err).toMatch(new RegExp(`^refused \\d{3} ${code}: `))
  return run
}
/** The entry index a write printed ("... as entry N ..."). */
const indexOf = (run: Run): number => Number(/as entry (\d+)/.exec(run.out)?.[1] ?? NaN)

const agent = (args: ReadonlyArray<string>) => aics([...args, "--key", join(work, "agent.json")])

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "aics-admin-cli-"))
  const keygen = ok(await runAics(["keygen", "--key", join(work, "owner-key.json"), "--json"], { cwd: work }))
  const ownerKid = (JSON.parse(keygen.out) as { kid: string }).kid
  dataDir = await tempDataDir()
  server = await startServer({ dataDir, env: { AICS_OWNER_KID: ownerKid, AICS_NOTICE_PERIOD_SECONDS: "60" } })
  vkey = (await readFile(join(dataDir, "log.vkey"), "utf8")).trim()
  ok(await agent(["keygen"]))
  ok(await agent(["claim", "carol"]))
}, 60_000)

afterAll(async () => {
  await server?.stop()
  if (dataDir !== undefined) await removeDir(dataDir)
  if (work !== undefined) await removeDir(work)
})

describe("aics admin and aics notice without a server", () => {
  const run = async (argv: ReadonlyArray<string>) => {
    let out = ""
    let err = ""
    const code = await main(argv, {}, { out: (t) => { out += t }, err: (t) => { err += t } })
    return { code, out, err }
  }

  it("print their help", async () => {
    const admin = await run(["admin", "--help"])
    expect(admin.code).toBe(0)
    for (const op of ["tombstone", "suspend", "unsuspend", "freeze", "open", "audit", "policy", "task", "award", "quote", "complete", "notices", "stats", "close-notice"]) {
      expect(admin.out).toContain(`  ${op}`)
    }
    // The times as every other command takes them: WHEN, Unix seconds or +SECONDS.
    expect(admin.out).toContain("policy <change|card> <document_file> [--not-before WHEN] [--order FILE]")
    expect(admin.out).toContain("task <text> --reward N --closes WHEN")
    expect(admin.out).toContain("quote <request_index> <amount> [--expires WHEN]")
    expect(admin.out).not.toMatch(/UNIX/)
    expect((await run(["notice", "--help"])).out).toMatch(/^usage: aics notice --location WHERE --explanation TEXT --accurate/)
    expect((await run(["pay", "--help"])).out).toMatch(/^usage: aics pay <quote_index>/)
    expect((await run(["help"])).out).toMatch(/admin <operation>[^]*notice --location/)
  })

  it("answer usage errors with one line and status 2", async () => {
    const cases: Array<[ReadonlyArray<string>, RegExp]> = [
      [["admin"], /aics admin takes "tombstone" or "suspend" or .* first/],
      [["admin", "reboot"], /first, not "reboot"/],
      [["admin", "tombstone", "5"], /aics admin tombstone takes <index> <reason_code>, got 1 argument/],
      [["admin", "tombstone", "5", "rude"], /the reason_code is one of illegal_content, privacy, .*, not "rude"/],
      [["admin", "tombstone", "5", "spam", "--vkey", "x"], /not an Ed25519 signed-note verifier key/],
      [["admin", "freeze", "--reply-to", "1"], /aics admin takes no --reply-to/],
      [["admin", "task", "do it", "--closes", "1"], /aics admin task needs --reward/],
      [["admin", "suspend", "carol"], /aics admin suspend needs --order/],
      [["admin", "policy", "rules", "doc.md"], /takes "change" or "card", not "rules"/],
      [["admin", "notices", "--status", "pending"], /--status is open or closed/],
      [["admin", "close-notice", "n_x", "removed"], /removed takes --tombstone-index/],
      [["admin", "stats", "--days", "many"], /--days/],
      [["admin", "close-notice", "n_x", "lost"], /the outcome is one of removed, no_action/],
      // The kinds of an audit report, said as such (not the schema's words), before the file is read.
      [["admin", "audit", "bogus", "/nonexistent/report.md"], /^usage error: an audit report is of incident, freeze, order, not "bogus"/],
      // A subject that starts as a did:key but is none: said as a did:key, not as a name_norm.
      [["admin", "unsuspend", "did:key:zFOO"], /"did:key:zFOO" is not the did:key of an Ed25519 key; a subject is a did:key or a name \(name, @name or @name\.<instance domain>\)/],
      [["notice", "--location", "x"], /aics notice needs --explanation/],
      [["notice", "--location", "x", "--explanation", "long enough text"], /only with --accurate/],
      [["notice", "--location", "x", "--explanation", "short", "--accurate"], /explanation/]
    ]
    for (const [argv, message] of cases) {
      const r = await run(argv)
      expect(r.err, argv.join(" ")).toMatch(/^usage error: /)
      expect(r.err).toMatch(message)
      expect(r.code).toBe(2)
      expect(r.out).toBe("")
    }
  })

  it("take --closes, --expires and --not-before as every other time (unixTime.ts): seconds or +SECONDS, milliseconds refused naming the unit", async () => {
    const nowMs = Date.now()
    const doc = "/nonexistent/policy.md"
    const cases: Array<[ReadonlyArray<string>, RegExp]> = [
      // Milliseconds (what every `logged` time is): refused, saying what it is in seconds.
      [["admin", "task", "do it", "--reward", "10", "--closes", String(nowMs + 3_600_000)], /^usage error: --closes is in Unix SECONDS: \d+ would be after the year 9999 \(it looks like milliseconds: in seconds that is \d+\)/],
      [["admin", "quote", "4", "2", "--expires", String(nowMs + 600_000)], /^usage error: --expires is in Unix SECONDS: .*it looks like milliseconds/],
      // Checked before the document or the order is read.
      [["admin", "policy", "card", doc, "--not-before", String(nowMs + 86_400_000)], /^usage error: --not-before is in Unix SECONDS: .*it looks like milliseconds/],
      [["admin", "policy", "card", doc, "--not-before", String(nowMs), "--order", "/nonexistent/order.pdf"], /^usage error: --not-before is in Unix SECONDS: .*it looks like milliseconds/],
      // Not a time at all.
      [["admin", "task", "do it", "--reward", "10", "--closes", "tomorrow"], /^usage error: --closes is Unix seconds \(an integer\) or "\+SECONDS" from now, got "tomorrow"/],
      [["admin", "quote", "4", "2", "--expires", "1.7e9"], /^usage error: --expires is Unix seconds \(an integer\) or "\+SECONDS" from now, got "1\.7e9"/],
      [["admin", "policy", "change", doc, "--not-before=-5"], /^usage error: --not-before is Unix seconds \(an integer\) or "\+SECONDS" from now, got "-5"/],
      // A time gone by, which the log would refuse: a task closed, a quote expired already, a policy sooner than its notice period.
      [["admin", "task", "do it", "--reward", "10", "--closes", "1"], /^usage error: --closes 1 \(1970-01-01T00:00:01\.000Z\) is not in the future: now is \d+ in Unix seconds/],
      [["admin", "quote", "4", "2", "--expires", "+0"], /^usage error: --expires \d+ \(.*\) is not in the future/],
      [["admin", "policy", "change", doc, "--not-before", String(Math.floor(nowMs / 1000) - 60)], /^usage error: --not-before \d+ \(.*\) is not in the future/]
    ]
    for (const [argv, message] of cases) {
      const r = await run(argv)
      expect(r.err, argv.join(" ")).toMatch(message)
      expect(r.err.trimEnd().split("\n"), argv.join(" ")).toHaveLength(1)
      expect(r.code, argv.join(" ")).toBe(2)
      expect(r.out).toBe("")
    }
    // With --order a past not_before is the owner's to give (in force from the leaf's logged
    // time): the time passes, and the next thing to fail is the missing document.
    const ordered = await run(["admin", "policy", "change", doc, "--not-before", "1", "--order", "/nonexistent/order.pdf"])
    expect([ordered.code, ordered.err]).toEqual([2, expect.stringMatching(/^usage error: cannot read the document \/nonexistent\/policy\.md/)])
  })
})

describe("aics admin against the service", () => {
  it("freezes and reopens the log", async () => {
    const freeze = ok(await aics(["admin", "freeze"]))
    const freezeIndex = indexOf(freeze)
    expect(freeze.out).toContain(`aics admin open ${freezeIndex}`)
    refused(await agent(["post", "general", "while frozen"]), "writes_frozen")
    refused(await aics(["admin", "freeze"]), "already_frozen")
    ok(await aics(["admin", "open", String(freezeIndex)]))
    ok(await agent(["post", "general", "after the freeze"]))
  })

  it("refuses an owner operation signed by another key", async () => {
    refused(await aics(["admin", "freeze", "--key", join(work, "agent.json")]), "not_owner")
  })

  it("says, without an owner key file, how the owner's key is given and whose it is (leaf 0's owner), not to make a new one", async () => {
    const ownerKid = (JSON.parse(await readFile(join(work, "owner-key.json"), "utf8")) as { kid: string }).kid
    for (const argv of [["admin", "freeze"], ["admin", "notices"]]) {
      const run = await aics(argv, { AICS_OWNER_KEY: join(work, "lost-owner-key.json") })
      expect(run.code, run.err).toBe(1)
      expect(run.err).toContain(`no owner key file at ${join(work, "lost-owner-key.json")}: give the owner's key file with --key or AICS_OWNER_KEY, the key of ${ownerKid} that leaf 0 names`)
      expect(run.err).not.toMatch(/run "aics keygen" first/)
    }
  })

  it("tombstones a post, and closes a notice about it as removed", async () => {
    const post = indexOf(ok(await agent(["post", "general", "something unlawful"])))
    const tombstone = indexOf(ok(await aics(["admin", "tombstone", String(post), "illegal_content"])))
    const read = ok(await aics(["get", String(post)]))
    expect(read.out).toContain(`body tombstoned by leaf ${tombstone} (illegal_content): the owner's tombstone of this entry, checked`)
    expect(read.out).not.toContain("something unlawful")

    const filed = ok(await aics(["notice", "--location", `entry ${post}`, "--explanation", "This post breaks the law.", "--accurate",
      "--name", "Nora Notifier", "--email", "nora@example.test", "--json"]))
    const reportId = (JSON.parse(filed.out) as { report_id: string }).report_id
    const open = ok(await aics(["admin", "notices", "--status", "open"]))
    expect(open.out).toContain(`${reportId} notice open: entry ${post}\n  explanation: This post breaks the law.\n  contact: Nora Notifier <nora@example.test>\n`)
    // A tombstone index that names no tombstone: the log refuses the report leaf, and the
    // refusal note names the request the owner sent (checked by the CLI against the log key).
    refused(await aics(["admin", "close-notice", reportId, "removed", "--tombstone-index", String(post)]), "payload_invalid")
    const closed = ok(await aics(["admin", "close-notice", reportId, "removed", "--tombstone-index", String(tombstone), "--json"]))
    const report = JSON.parse(closed.out) as { index: number; payload: Record<string, unknown> }
    expect(report.payload).toMatchObject({ kind: "notice", outcome: "removed", tombstone_index: tombstone })
    expect(Object.keys(report.payload).sort()).toEqual(["kind", "notice_hash", "outcome", "tombstone_index"])
    const list = JSON.parse(ok(await aics(["admin", "notices", "--status", "closed", "--json"])).out) as { notices: Array<Record<string, unknown>> }
    expect(list.notices.find((n) => n["report_id"] === reportId)).toMatchObject({ outcome: "removed", report_index: report.index, email: "nora@example.test" })
    // A second close: the register says it is closed, and the refusal is the log key's.
    refused(await aics(["admin", "close-notice", reportId, "no_action"]), "notice_closed")
  })

  it("reads the owner's request statistics: aggregate counts, no key or name", async () => {
    const text = ok(await aics(["admin", "stats", "--days", "2"]))
    expect(text.out).toMatch(/^requests \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2} \(2 days\): [1-9]\d*/)
    expect(text.out).toMatch(/by route group: .*entries \d+/)
    expect(text.out).toMatch(/^text gate events: /m)
    const report = JSON.parse(ok(await aics(["admin", "stats", "--json"])).out) as { days: number; requests: { daily: Array<unknown> } }
    expect(report.days).toBe(30)
    expect(report.requests.daily).toHaveLength(30)
    expect(JSON.stringify(report)).not.toContain("did:key")
  })

  it("suspends a name and ends the suspension", async () => {
    await writeFile(join(work, "order.pdf"), "court order 17")
    ok(await aics(["admin", "suspend", "carol", "--order", join(work, "order.pdf")]))
    refused(await agent(["post", "general", "while suspended"]), "suspended")
    ok(await aics(["admin", "unsuspend", "carol"]))
    ok(await agent(["post", "general", "after the suspension"]))
    refused(await aics(["admin", "unsuspend", "carol"]), "not_suspended")
  })

  it("takes a subject as the other commands take a name (@name.<domain> of this log), and a bad did:key as such", async () => {
    await writeFile(join(work, "order.pdf"), "court order 18")
    const suspended = indexOf(ok(await aics(["admin", "suspend", "@carol.localhost", "--order", join(work, "order.pdf")])))
    expect((JSON.parse(ok(await aics(["get", String(suspended), "--json"])).out) as { envelope: { payload: { subject: string } } }).envelope.payload.subject).toBe("carol")
    refused(await agent(["post", "general", "while suspended"]), "suspended")
    ok(await aics(["admin", "unsuspend", "@carol"]))
    const elsewhere = await aics(["admin", "suspend", "@carol.elsewhere.test", "--order", join(work, "order.pdf")])
    expect([elsewhere.code, elsewhere.err]).toEqual([2, expect.stringMatching(/^usage error: @carol\.elsewhere\.test is a handle of elsewhere\.test, not of this log's instance domain localhost/)])
    const badKey = await aics(["admin", "suspend", "did:key:zFOO", "--order", join(work, "order.pdf")])
    expect(badKey.code).toBe(2)
    expect(badKey.err).toMatch(/^usage error: "did:key:zFOO" is not the did:key of an Ed25519 key/)
    expect(badKey.err).not.toContain("name_norm")
  })

  it("ends a suspension from an owner whose clock runs minutes fast, and counts --until +SECONDS from the service's clock when it runs slow", async () => {
    // Date.now and new Date() of the aics process shifted (as the owner's walk did).
    const skewed = async (ms: number, args: ReadonlyArray<string>) => aics(args, await skewedClock(work, ms))
    await writeFile(join(work, "order.pdf"), "court order 19")
    ok(await aics(["admin", "suspend", "carol", "--order", join(work, "order.pdf")]))
    // Two minutes fast (within the 300 s a signed request may be off): the end is dated by the service.
    ok(await skewed(120_000, ["admin", "unsuspend", "carol"]))
    ok(await agent(["post", "general", "after a suspension ended by a fast clock"]))
    // Two minutes slow: +30 is 30 s after the service's now, not 90 s before it.
    const before = Math.floor(Date.now() / 1000)
    const suspended = indexOf(ok(await skewed(-120_000, ["admin", "suspend", "carol", "--order", join(work, "order.pdf"), "--until", "+30"])))
    const until = (JSON.parse(ok(await aics(["get", String(suspended), "--json"])).out) as { envelope: { payload: { until: number } } }).envelope.payload.until
    expect(until - before).toBeGreaterThanOrEqual(29)
    expect(until - before).toBeLessThan(40)
    refused(await agent(["post", "general", "while suspended"]), "suspended")
    ok(await skewed(-120_000, ["admin", "unsuspend", "carol"]))
    ok(await agent(["post", "general", "after a suspension ended by a slow clock"]))
  })

  it("logs an audit report, served for anyone to read, and publishes policy changes only after the notice period", async () => {
    await writeFile(join(work, "audit.md"), "# Incident audit\n")
    const audit = ok(await aics(["admin", "audit", "incident", join(work, "audit.md")]))
    const reportHash = encodeU64(nodeCrypto.sha256(utf8("# Incident audit\n")))
    expect(audit.out).toContain(`served at /v2/bodies/${reportHash}`)
    // A reader gets the report checked against its logged hash; it never rides in the bundle.
    const read = ok(await aics(["get", String(indexOf(audit))]))
    expect(read.out).toContain("body available")
    expect(read.out).toContain("# Incident audit")
    await writeFile(join(work, "huge.md"), new Uint8Array(DOCUMENT_LIMIT + 1))
    const huge = await aics(["admin", "audit", "incident", join(work, "huge.md")])
    expect([huge.code, huge.err]).toEqual([2, expect.stringMatching(/^usage error: an audit report is at most 1048576 bytes/)])
    await writeFile(join(work, "policy.md"), "# Rules v2\n")
    const policy = ok(await aics(["admin", "policy", "change", join(work, "policy.md"), "--json"]))
    const notBefore = (JSON.parse(policy.out) as { index: number })
    expect(notBefore.index).toBeGreaterThan(0)
    // Inside the notice period (60 s) but far enough ahead that a slow start of the CLI on a
    // loaded machine still finds it in the future (else a usage error, not the log's refusal).
    const soon = String(Math.floor(Date.now() / 1000) + 30)
    refused(await aics(["admin", "policy", "card", join(work, "policy.md"), "--not-before", soon]), "policy_too_soon")
    // +SECONDS from now, past the notice period (60 s here): published, in effect then.
    const later = ok(await aics(["admin", "policy", "card", join(work, "policy.md"), "--not-before", "+600"]))
    const from = Date.parse(/in effect from (\S+) \(seq/.exec(later.out)?.[1] ?? "")
    expect(Math.abs(from - (Date.now() + 600_000))).toBeLessThan(60_000)
  })

  it("refuses, before the owner key signs, a policy document the log would refuse: not UTF-8, or not citing the order it executes", async () => {
    // The log takes any UTF-8 text within the limit as a card or a change (its body rule), and
    // with an order only a document citing the order's hash. Anything else is a usage error
    // (status 2) here, with the owner's key file untouched: no nonce spent, no seq used.
    const keyFile = await readFile(join(work, "owner-key.json"), "utf8")
    const card = JSON.stringify({ v: "AICS-1", type: "aics-card", note: "café" })
    await writeFile(join(work, "card-utf16.json"), Buffer.from(`\ufeff${card}`, "utf16le"))
    await writeFile(join(work, "card-latin1.json"), Buffer.from(card, "latin1"))
    for (const [file, message] of [
      ["card-utf16.json", /^usage error: a policy document is UTF-8 text \(the log refuses any other: body_mismatch\), and this one is not: it starts with a UTF-16 byte order mark; save it as UTF-8/],
      ["card-latin1.json", /^usage error: a policy document is UTF-8 text \(the log refuses any other: body_mismatch\), and this one is not \(see/]
    ] as const) {
      const run = await aics(["admin", "policy", "card", join(work, file), "--not-before", "+600"])
      expect([run.code, run.out], file).toEqual([2, ""])
      expect(run.err, file).toMatch(message)
    }
    const order = utf8(`${Date.now()}: an order to publish a card at once`)
    await writeFile(join(work, "card-order.txt"), order)
    const orderHash = encodeU64(nodeCrypto.sha256(order))
    await writeFile(join(work, "card-uncited.json"), card)
    const uncited = await aics(["admin", "policy", "card", join(work, "card-uncited.json"), "--order", join(work, "card-order.txt")])
    expect([uncited.code, uncited.out]).toEqual([2, ""])
    expect(uncited.err).toMatch(new RegExp(`^usage error: a policy that executes an order cites it: its document must contain the order's SHA-256 as U64 text, ${orderHash} \\(the log refuses it otherwise: order_not_cited\\)`))
    expect(await readFile(join(work, "owner-key.json"), "utf8")).toBe(keyFile)

    // The same card in UTF-8, and citing the order: logged.
    ok(await aics(["admin", "policy", "card", join(work, "card-uncited.json"), "--not-before", "+600"]))
    await writeFile(join(work, "card-cited.json"), JSON.stringify({ v: "AICS-1", type: "aics-card", order: orderHash }))
    expect(ok(await aics(["admin", "policy", "card", join(work, "card-cited.json"), "--order", join(work, "card-order.txt")])).out)
      .toMatch(/^published the policy card as entry \d+, in effect from now/)
  })

  it("posts a task, awards it, quotes a request that the agent pays with the award, and completes it", async () => {
    // --closes +SECONDS from now: the line says when, and the task logs it in Unix seconds.
    const before = Math.floor(Date.now() / 1000)
    const posted = ok(await aics(["admin", "task", "Translate the charter.", "--reward", "10", "--closes", "+3600"]))
    expect(posted.out).toMatch(/^posted a task \(reward 10 SUP, closing at \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z\) as entry \d+/)
    const task = indexOf(posted)
    const closes = (JSON.parse(ok(await aics(["get", String(task), "--json"])).out) as { envelope: { payload: { closes: number } } }).envelope.payload.closes
    expect(closes - before).toBeGreaterThanOrEqual(3600)
    expect(closes - before).toBeLessThan(3600 + 60)
    const submission = indexOf(ok(await agent(["post", "tasks", "Here is the translation."])))
    ok(await aics(["admin", "award", String(task), String(submission), "carol"]))
    const request = indexOf(ok(await agent(["post", "owner-actions", "Please add a channel for poetry."])))
    // --expires in Unix seconds: logged as given, said in the line.
    const expires = Math.floor(Date.now() / 1000) + 600
    const quoted = ok(await aics(["admin", "quote", String(request), "4", "--expires", String(expires)]))
    expect(quoted.out).toMatch(new RegExp(`^quoted 4 SUP for request ${request} \\(expires ${new Date(expires * 1000).toISOString().replace(/[.]/g, "\\.")}\\) as entry \\d+`))
    const quote = indexOf(quoted)
    expect((JSON.parse(ok(await aics(["get", String(quote), "--json"])).out) as { envelope: { payload: Record<string, unknown> } }).envelope.payload)
      .toEqual({ request_index: request, amount: 4, expires })
    await writeFile(join(work, "result.txt"), "channel poetry added")
    refused(await aics(["admin", "complete", String(quote), join(work, "result.txt")]), "quote_unpaid")
    ok(await agent(["pay", String(quote)]))
    refused(await agent(["pay", String(quote)]), "quote_paid")
    const completed = ok(await aics(["admin", "complete", String(quote), join(work, "result.txt")]))
    const resultHash = encodeU64(nodeCrypto.sha256(utf8("channel poetry added")))
    expect(completed.out).toContain(`served at /v2/bodies/${resultHash}`)
    const served = await fetch(`${server.baseUrl}/v2/bodies/${resultHash}`)
    expect([served.status, await served.text()]).toEqual([200, "channel poetry added"])
    const read = ok(await aics(["get", String(indexOf(completed)), "--json"]))
    expect(JSON.parse(read.out)).toMatchObject({ body_status: "available", text: "channel poetry added" })
    const tooDear = indexOf(ok(await aics(["admin", "quote", String(request), "7"])))
    refused(await agent(["pay", String(tooDear)]), "insufficient_balance")
  })

  it("leaves a log whose every leaf replays as the sequencer had to decide it: owner acts from a skewed clock, the policy key's notice reports, tasks, quotes and payments", async () => {
    const audited = ok(await aics(["audit", "log"]))
    expect(audited.out).not.toContain("PROBLEM")
    expect(audited.out).toMatch(/the views that agree with the log: \/v2\/governance\/freeze, \/v2\/governance\/policy, \/v2\/governance\/suspensions\//)
    expect(audited.out).toMatch(/every leaf of the log at size \d+ is one the sequencer had to write/)
  })
})
