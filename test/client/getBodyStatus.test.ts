// `aics get` and an entry's body status (X-AICS-Body-Status) against the real service, and
// through a proxy in front of it that lies: a tombstone the log does not hold, an expiry the
// charter's retention does not give, a status that contradicts the body sent with it. The
// honest statuses are said as checked (a tombstone by the owner's leaf, read with its proof);
// `unavailable` as the service's word; each lie fails the read. The CLI runs in process
// (cli.ts main); the expiry is checked with the library (checkBodyStatus) at a time 91 days on.

import { mkdtemp, readFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { checkBodyStatus } from "../../src/client/bodyStatus.js"
import { main } from "../../src/client/cli.js"
import { ClientError } from "../../src/client/errors.js"
import { serviceAt } from "../../src/client/http.js"
import { getEntry } from "../../src/client/read.js"
import type { LogClient } from "../../src/client/write.js"
import { DAY_MS } from "../../src/domain/bodyStatus.js"
import { parseVerifierKey } from "../../src/domain/note/verifierKey.js"
import { startLyingProxy } from "../support/lyingProxy.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../support/server.js"

let server: RunningServer
let proxy: Awaited<ReturnType<typeof startLyingProxy>> | undefined
let proxyUrl = ""
let work = ""
let vkey = ""
const leaves = { post: 0, hidden: 0, tombstone: 0, capsule: 0 }

/** What the proxy says instead of the service, for GET /v2/entries/<index>: another status, and the body dropped or not. */
let lie: { index: number; status: string; dropBody: boolean } | undefined

const run = async (argv: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  let out = ""
  let err = ""
  const code = await main(argv, { AICS_LOG_VKEY: vkey, AICS_KEY: join(work, "agent.json"), AICS_OWNER_KEY: join(work, "owner.json"), ...env }, {
    out: (text) => { out += text },
    err: (text) => { err += text }
  })
  return { code, out, err }
}
const entryIndex = (written: { out: string; err: string }) => {
  const index = /as entry (\d+)/.exec(written.out)?.[1]
  expect(index, written.out + written.err).toBeDefined()
  return Number(index)
}
const viaService = (argv: ReadonlyArray<string>) => run([...argv, "--server", server.baseUrl])
const get = (index: number, ...extra: Array<string>) => run(["get", String(index), "--server", proxyUrl, ...extra])

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "aics-body-status-"))
  await run(["keygen", "--key", join(work, "owner.json")])
  const ownerKid = (JSON.parse(await readFile(join(work, "owner.json"), "utf8")) as { kid: string }).kid
  server = await startServer({ dataDir: await tempDataDir(), env: { AICS_OWNER_KID: ownerKid } })
  vkey = (await readFile(join(server.dataDir, "log.vkey"), "utf8")).trim()
  await run(["keygen"])
  expect((await viaService(["claim", "dora"])).code).toBe(0)
  leaves.post = entryIndex(await viaService(["post", "general", "a post whose body stays"]))
  leaves.hidden = entryIndex(await viaService(["post", "general", "a post the owner hides"]))
  leaves.tombstone = entryIndex(await viaService(["admin", "tombstone", String(leaves.hidden), "spam"]))
  leaves.capsule = entryIndex(await viaService(["capsule", "put", "a secret slot of dora", "a note to self"]))

  proxy = await startLyingProxy(() => server.baseUrl, () => {
    const now = lie
    return now === undefined ? undefined : (path, answer) => {
      if (path !== `/v2/entries/${now.index}`) return undefined
      const headers = new Headers(answer.headers)
      headers.set("x-aics-body-status", now.status)
      const body = now.dropBody
        ? new TextEncoder().encode(JSON.stringify({ ...JSON.parse(new TextDecoder().decode(answer.body)), body_or_ct: null }))
        : answer.body
      return { ...answer, headers, body }
    }
  })
  proxyUrl = proxy.url
}, 90_000)

afterAll(async () => {
  await proxy?.close()
  await server?.stop()
  if (server !== undefined) await removeDir(server.dataDir)
  if (work !== "") await removeDir(work)
})

const failsWith = (read: { code: number; out: string; err: string }, kind: string, message: string) => {
  expect(read.code, read.out).toBe(1)
  expect(read.out).toBe("")
  expect(read.err).toBe(`error (${kind}): ${message}\n`)
}

describe("aics get, the body status", () => {
  it("says the honest statuses as checked: available with the text, tombstoned by the owner's leaf", async () => {
    lie = undefined
    const available = await get(leaves.post)
    expect(available.code, available.err).toBe(0)
    expect(available.out).toContain("signature and body hash verified\n")
    expect(available.out).toContain("body available (its hash verified)\n\na post whose body stays\n")
    const hidden = await get(leaves.hidden, "--json")
    expect(hidden.code, hidden.err).toBe(0)
    expect(JSON.parse(hidden.out)).toMatchObject({
      text: null,
      body: null,
      body_status: `tombstoned;tombstone_index=${leaves.tombstone};reason_code=spam`,
      body_status_checked: true
    })
    const line = await get(leaves.hidden)
    expect(line.out).toContain(`signature verified\n`)
    expect(line.out).toContain(`body tombstoned by leaf ${leaves.tombstone} (spam): the owner's tombstone of this entry, checked\n`)
  }, 30_000)

  it("refuses a tombstone the log does not hold: another reason, a leaf that is no tombstone, or one of another entry", async () => {
    lie = { index: leaves.hidden, status: `tombstoned;tombstone_index=${leaves.tombstone};reason_code=malware`, dropBody: false }
    failsWith(await get(leaves.hidden), "verification",
      `entry ${leaves.hidden}: the service says leaf ${leaves.tombstone} tombstoned its body (malware), but leaf ${leaves.tombstone} gives the reason spam`)
    lie = { index: leaves.hidden, status: `tombstoned;tombstone_index=${leaves.capsule};reason_code=spam`, dropBody: false }
    failsWith(await get(leaves.hidden), "verification",
      `entry ${leaves.hidden}: the service says leaf ${leaves.capsule} tombstoned its body (spam), but leaf ${leaves.capsule} is a capsule, not a tombstone`)
    // The post whose body stays, said to be hidden by the tombstone of the other post (its body dropped too).
    lie = { index: leaves.post, status: `tombstoned;tombstone_index=${leaves.tombstone};reason_code=spam`, dropBody: true }
    failsWith(await get(leaves.post), "verification",
      `entry ${leaves.post}: the service says leaf ${leaves.tombstone} tombstoned its body (spam), but leaf ${leaves.tombstone} hides the body of leaf ${leaves.hidden}`)
  }, 30_000)

  it("refuses a hidden status sent with the body, and an available one sent without", async () => {
    // The auditor's forged header: the text came, and the status says it is hidden.
    lie = { index: leaves.post, status: `tombstoned;tombstone_index=${leaves.tombstone};reason_code=spam`, dropBody: false }
    failsWith(await get(leaves.post), "protocol", `entry ${leaves.post}: the service sent its body, and says it is tombstoned`)
    lie = { index: leaves.post, status: "available", dropBody: true }
    failsWith(await get(leaves.post), "protocol", `entry ${leaves.post}: the service says its body is available, and sent none`)
    lie = { index: leaves.post, status: "tombstoned;tombstone_index=x;reason_code=spam", dropBody: true }
    failsWith(await get(leaves.post), "protocol", `entry ${leaves.post}: X-AICS-Body-Status "tombstoned;tombstone_index=x;reason_code=spam" is not a body status`)
  }, 30_000)

  it("refuses an expiry the retention does not give: of a type that never expires, or before its time", async () => {
    lie = { index: leaves.post, status: "expired;policy_index=0", dropBody: true }
    failsWith(await get(leaves.post), "verification", `entry ${leaves.post}: the service says its body expired under leaf 0, but the body of a post never expires`)
    lie = { index: leaves.capsule, status: "expired;policy_index=0", dropBody: true }
    const early = await get(leaves.capsule)
    expect(early.code).toBe(1)
    expect(early.err).toMatch(new RegExp(`^error \\(verification\\): entry ${leaves.capsule}: the service says its body expired under leaf 0, but it expires only at \\S+, 90 days after it was logged\\n$`))
    lie = { index: leaves.capsule, status: "expired;policy_index=1", dropBody: true }
    failsWith(await get(leaves.capsule), "verification", `entry ${leaves.capsule}: the service says its body expired under leaf 1, but the retention is leaf 0's, the charter's`)
  }, 30_000)

  it("says unavailable as the service's word, not checked", async () => {
    lie = { index: leaves.post, status: "unavailable", dropBody: true }
    const read = await get(leaves.post, "--json")
    expect(read.code, read.err).toBe(0)
    expect(JSON.parse(read.out)).toMatchObject({ body: null, text: null, body_status: "unavailable", body_status_checked: false })
    const line = await get(leaves.post)
    expect(line.out).toContain("body unavailable: the service's word (it holds no bytes under the payload's hash), which the log cannot show\n")
  }, 30_000)

  it("takes an expiry once the charter's retention has passed (the library, 91 days on)", async () => {
    lie = { index: leaves.capsule, status: "expired;policy_index=0", dropBody: true }
    const client: LogClient = { service: serviceAt(proxyUrl), vkey: parseVerifierKey(nodeCrypto.sha256, vkey)! }
    const entry = await getEntry(client, leaves.capsule)
    const later = entry.logged + 91 * DAY_MS
    expect(await checkBodyStatus(client, entry, later)).toEqual({ state: "expired", policyIndex: 0, retentionDays: 90, expiredAt: entry.logged + 90 * DAY_MS })
    const error = await checkBodyStatus(client, entry, entry.logged + 80 * DAY_MS).then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(ClientError)
    expect((error as ClientError).kind).toBe("verification")
  }, 30_000)
})
