// `aics governance [subject]` and `aics admin open` without an index against the real
// service: the compiled CLI in child processes, the owner key made with `aics keygen` and
// named to the service with AICS_OWNER_KID. The views are read through a freeze and an open
// (the open finding the freeze in force by itself), a name's suspension and its end, and a
// policy change announced then in force (the charter's notice period is 2 s here); each
// leaf the views name as in force is checked by the CLI, and says so.

import { mkdtemp, readFile, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ok, runAics, type AicsRun as Run } from "../support/aicsCli.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../support/server.js"

let dataDir: string
let work: string
let server: RunningServer
let vkey: string

const aics = (args: ReadonlyArray<string>): Promise<Run> =>
  runAics(args, { cwd: work, env: { AICS_SERVER: server.baseUrl, AICS_LOG_VKEY: vkey, AICS_OWNER_KEY: join(work, "owner-key.json") } })
const agent = (args: ReadonlyArray<string>) => aics([...args, "--key", join(work, "agent.json")])
/** The entry index a write printed ("... as entry N ..."). */
const indexOf = (run: Run): number => Number(/as entry (\d+)/.exec(run.out)?.[1] ?? NaN)
const governance = async (args: ReadonlyArray<string> = []) => JSON.parse(ok(await aics(["governance", ...args, "--json"])).out) as Record<string, any>

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "aics-governance-cli-"))
  const keygen = ok(await runAics(["keygen", "--key", join(work, "owner-key.json"), "--json"], { cwd: work }))
  const ownerKid = (JSON.parse(keygen.out) as { kid: string }).kid
  dataDir = await tempDataDir()
  server = await startServer({ dataDir, env: { AICS_OWNER_KID: ownerKid, AICS_NOTICE_PERIOD_SECONDS: "2" } })
  vkey = (await readFile(join(dataDir, "log.vkey"), "utf8")).trim()
  ok(await agent(["keygen"]))
  ok(await agent(["claim", "dora"]))
}, 60_000)

afterAll(async () => {
  await server?.stop()
  if (dataDir !== undefined) await removeDir(dataDir)
  if (work !== undefined) await removeDir(work)
})

describe("aics governance", () => {
  it("says the log is open and no policy is in force or announced; admin open without an index is refused before anything is sent", async () => {
    const run = ok(await aics(["governance"]))
    expect(run.out.split("\n").slice(0, 4)).toEqual([
      "agent writes: open (never frozen)",
      "policy change in force: none",
      "card policy in force: none",
      "no policy announced for later"
    ])
    expect(run.out).toContain("checked: the views' log-signed checkpoints; they name no leaf in force")
    const json = await governance()
    expect(json["freeze"]).toMatchObject({ state: "open", frozen_index: null, indices: [], size: 0, checked_leaves: [] })
    expect(json["policy"]).toMatchObject({ change: null, card: null, pending: [] })
    expect(json["suspension"]).toBeUndefined()

    const open = await aics(["admin", "open"])
    expect([open.code, open.out]).toEqual([1, ""])
    expect(open.err).toMatch(/^error \(refused\): no freeze is in force/)
  })

  it("shows the freeze in force, which aics admin open ends without being told its index", async () => {
    const frozen = indexOf(ok(await aics(["admin", "freeze"])))
    const during = ok(await aics(["governance"]))
    expect(during.out).toContain(`agent writes: FROZEN by entry ${frozen}`)
    expect(during.out).toContain(`checked: leaf ${frozen} signed by the owner key of leaf 0`)
    expect((await governance())["freeze"]).toMatchObject({ state: "frozen", frozen_index: frozen, indices: [frozen], checked_leaves: [frozen] })

    const opened = ok(await aics(["admin", "open"]))
    expect(opened.out).toMatch(new RegExp(`^reopened the log, ending the freeze of entry ${frozen}, as entry \\d+`))
    expect(ok(await aics(["governance"])).out).toContain(`agent writes: open (the last freeze ended by entry ${indexOf(opened)})`)
    ok(await agent(["post", "general", "after the freeze"]))
    // An explicit index still goes as given.
    const again = indexOf(ok(await aics(["admin", "freeze"])))
    ok(await aics(["admin", "open", String(again)]))
  })

  it("says whether a name is suspended, by which entry, and when it ended", async () => {
    expect(ok(await aics(["governance", "dora"])).out).toContain("dora: not suspended (never was)")
    await writeFile(join(work, "order.pdf"), "court order 21")
    const suspended = indexOf(ok(await aics(["admin", "suspend", "dora", "--order", join(work, "order.pdf")])))
    const during = ok(await aics(["governance", "@dora"]))
    expect(during.out).toMatch(new RegExp(`^dora: SUSPENDED by entry ${suspended} \\(order [A-Za-z0-9_-]{43}\\) until ended`, "m"))
    expect(during.out).toContain(`checked: leaf ${suspended} signed by the owner key`)
    expect((await governance(["dora"]))["suspension"]).toMatchObject({ subject: "dora", suspended: true, index: suspended, checked_leaves: [suspended] })

    const ended = indexOf(ok(await aics(["admin", "unsuspend", "dora"])))
    expect(ok(await aics(["governance", "dora"])).out).toContain(`dora: not suspended (the suspension of entry ${suspended} was ended by entry ${ended})`)
    expect((await governance(["dora"]))["suspension"]).toMatchObject({ suspended: false, ended_index: ended, checked_leaves: [suspended, ended] })

    const bad = await aics(["governance", "not a name"])
    expect([bad.code, bad.err]).toEqual([2, expect.stringMatching(/^usage error: GET \/v2\/governance\/suspensions\/not%20a%20name: 422 subject_invalid/)])
    const usage = await aics(["governance", "a", "b"])
    expect([usage.code, usage.err]).toEqual([2, expect.stringMatching(/^usage error: aics governance takes \[subject\], got 2 arguments/)])
  })

  it("shows a policy change announced, then in force", { timeout: 120_000 }, async () => {
    await writeFile(join(work, "change.md"), "# Posts are kept forever\n")
    // Far enough ahead for the two reads below on a loaded machine (each aics run a few seconds at worst).
    const announced = ok(await aics(["admin", "policy", "change", join(work, "change.md"), "--not-before", "+20"]))
    const policy = indexOf(announced)
    const pending = ok(await aics(["governance"]))
    expect(pending.out).toContain("policy change in force: none")
    expect(pending.out).toMatch(new RegExp(`^announced policy change: entry ${policy} \\(document [A-Za-z0-9_-]{43}, 25 bytes\\), in effect from \\d{4}-.*; read it with: aics get ${policy}$`, "m"))
    const json = await governance()
    expect(json["policy"].pending.map((p: any) => p.index)).toEqual([policy])
    expect(json["policy"].checked_leaves).toEqual([policy])

    await new Promise((resolve) => setTimeout(resolve, json["policy"].pending[0].effective_at - Date.now() + 200))
    const inForce = ok(await aics(["governance"]))
    expect(inForce.out).toMatch(new RegExp(`^policy change in force: entry ${policy} .*in effect since`, "m"))
    expect(inForce.out).toContain("no policy announced for later")
  })
})
