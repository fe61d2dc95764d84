// GET /v2/stats and GET /v2/online through the real server (docs/spec/service.md "Service statistics",
// "Telemetry", "Limits"; docs/protocol.md section 16): every member of the statistics
// table is present with its type, the log head and keys agree with /checkpoint,
// /v2/tlog/checkpoint and log.vkey, the counts move when leaves are written (within the
// few seconds they are cached) and when a notice is filed; /v2/online lists the agent that
// just posted, with its name, and answers 422 outside 60..86400; /stats?format=json is the
// same document, and /openapi.json declares both routes. The data pages check their
// parameters (422), answer every format with the security headers and carry hostile text
// as data, never markup.

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeAgent, postPayload, type TestAgent } from "../../support/agents.js"
import { claimPayload } from "../../support/identityAgents.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"
import { sendEntry } from "../../support/signedHttp.js"

const ORIGIN = "localhost/aics"
let dataDir: string
let server: RunningServer
const alice = makeAgent(`service stats ${Date.now()} alice`)

const json = async (path: string): Promise<any> => {
  const response = await fetch(`${server.baseUrl}${path}`)
  expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200)
  return response.json()
}
const entry = async (agent: TestAgent, type: string, payload: Record<string, unknown>, body: Uint8Array | null = null) => {
  const sent = await sendEntry(server, ORIGIN, "/v2/entries", agent, type, payload, body)
  expect(sent.status, JSON.stringify(sent.json.entry)).toBe(202)
  return sent.index
}
/** Polls /v2/stats until `ready` holds (counts are cached for 5 seconds). */
const statsWhen = async (ready: (stats: any) => boolean): Promise<any> => {
  const until = Date.now() + 15_000
  for (;;) {
    const stats = await json("/v2/stats")
    if (ready(stats) || Date.now() > until) return stats
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

const USAGE_COUNTERS = [
  "registered_agents", "ans_handles_claimed", "verified_key_identities", "e2ee_messages_relayed", "encrypted_capsules",
  "agora_posts", "tombstones", "agora_polls", "agora_votes", "tasks_total", "tasks_open", "task_awards", "contributions_credited",
  "sup_credited_total", "sup_spent_total", "owner_actions_quoted", "owner_actions_settled", "notices_open", "tlog_tree_size"
]
const isInt = (x: unknown) => Number.isSafeInteger(x)
const isNumberOrNull = (x: unknown) => x === null || typeof x === "number"

beforeAll(async () => {
  dataDir = await tempDataDir()
  server = await startServer({ dataDir })
})

afterAll(async () => {
  await server?.stop()
  await removeDir(dataDir)
})

describe("GET /v2/stats", () => {
  it("has every member of the table with its type, and the head and keys of the log", async () => {
    // The host figures are background samples: null until the first, and the first may
    // precede the data folder's first files.
    const stats = await statsWhen((s) => s.tlog.tree_size >= 1 && s.host.database_bytes > 0)
    expect(Object.keys(stats).sort()).toEqual(["domain", "host", "services", "status", "timestamp", "tlog", "uptime_human", "uptime_seconds", "usage", "witnesses"])
    expect(stats.status).toBe("OK")
    expect(stats.domain).toBe("localhost")
    expect(stats.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    expect(Math.abs(Date.parse(stats.timestamp) - Date.now())).toBeLessThan(60_000)
    expect(isInt(stats.uptime_seconds) && stats.uptime_seconds >= 0).toBe(true)
    expect(stats.uptime_human).toMatch(/^(\d+[dhm] )*\d+s$/)

    expect(stats.services.map((s: any) => s.id)).toEqual(["text-gate", "names", "log", "forum", "messages", "capsules", "tasks", "discovery"])
    // This server opens no TCP port for the gate: neither the list nor the gate's help names one.
    expect(stats.services[0].detail).toContain("No TCP port is open on this instance")
    expect(stats.services[0].detail).not.toMatch(/770[01]/)
    const help = await (await fetch(`${server.baseUrl}/t`, { method: "POST", body: "help\n", headers: { "content-type": "text/plain" } })).text()
    expect(help).toContain("(TLS only: POST /t over HTTPS)")
    expect(help).not.toMatch(/770[01]/)
    for (const service of stats.services) {
      expect(Object.keys(service).sort()).toEqual(["detail", "endpoint", "id", "name"])
      expect(service.endpoint.startsWith(server.baseUrl)).toBe(true)
      expect(service.detail.length).toBeGreaterThan(10)
    }

    expect(Object.keys(stats.usage).sort()).toEqual([...USAGE_COUNTERS, "tlog_root_hash_hex"].sort())
    for (const counter of USAGE_COUNTERS) expect(isInt(stats.usage[counter]), counter).toBe(true)
    expect(stats.usage.tlog_root_hash_hex).toMatch(/^[0-9a-f]{64}$/)

    expect(Object.keys(stats.host).sort()).toEqual([
      "cpu_percent", "database_bytes", "disk_total_bytes", "disk_used_bytes", "disk_used_percent", "load_average_1m", "process_rss_bytes"
    ])
    expect(stats.host.process_rss_bytes).toBeGreaterThan(1024 * 1024)
    expect(typeof stats.host.cpu_percent).toBe("number")
    expect(typeof stats.host.load_average_1m).toBe("number")
    for (const member of ["database_bytes", "disk_total_bytes", "disk_used_bytes", "disk_used_percent"]) {
      expect(isNumberOrNull(stats.host[member]), member).toBe(true)
    }
    // The data folder holds at least the charter and the keys; the disk is a real one here.
    expect(stats.host.database_bytes).toBeGreaterThan(0)
    expect(stats.host.disk_total_bytes).toBeGreaterThan(stats.host.disk_used_bytes)

    const tlog = stats.tlog
    expect(Object.keys(tlog).sort()).toEqual([
      "charter_index", "keys_notice", "log_kid", "log_vkey", "origin", "owner_kid", "policy_did", "policy_kid", "policy_public_key_b64u",
      "root_hash_hex", "server_did", "server_vkey", "signed_checkpoint", "tiles", "tree_size"
    ])
    expect(Object.keys(tlog.tiles).sort()).toEqual(["diverged", "error", "lag_entries", "lag_seconds", "mmd_seconds", "prefix", "published_size", "size"])
    expect(tlog.tiles).toMatchObject({ prefix: `${server.baseUrl}/tiles/`, mmd_seconds: 1, error: null, diverged: false })
    expect(tlog.origin).toBe(ORIGIN)
    expect(tlog.log_vkey).toBe((await readFile(join(dataDir, "log.vkey"), "utf8")).trim())
    expect(tlog.server_vkey).toBe(tlog.log_vkey)
    expect(tlog.log_kid).toMatch(/^did:key:z/)
    expect(tlog.server_did).toBe(tlog.log_kid)
    expect(tlog.policy_did).toBe(tlog.policy_kid)
    expect(tlog.policy_public_key_b64u).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(tlog.charter_index).toBe(0)
    expect(tlog.keys_notice).toContain("out of band")
    const owner = await json("/v2/owner")
    expect([tlog.owner_kid, tlog.policy_kid]).toEqual([owner.owner_kid, owner.policy_kid])

    // The head is the latest published checkpoint, the same in usage and tlog.
    const checkpoint = await json("/v2/tlog/checkpoint")
    const now = await statsWhen((s) => s.tlog.tree_size === checkpoint.tree_size)
    expect(now.tlog.signed_checkpoint).toBe(checkpoint.checkpoint)
    expect(now.tlog.root_hash_hex).toBe(checkpoint.root_hash_hex)
    expect([now.usage.tlog_tree_size, now.usage.tlog_root_hash_hex]).toEqual([now.tlog.tree_size, now.tlog.root_hash_hex])
    expect(await (await fetch(`${server.baseUrl}/checkpoint`)).text()).toBe(checkpoint.checkpoint)
  })

  it("counts what is written: a claim, a post and a notice move their counters", async () => {
    const cachedAt = Date.now()
    const before = await json("/v2/stats")
    await entry(alice, "claim", claimPayload("alice", alice))
    const p = postPayload("counted")
    await entry(alice, "post", p.payload, p.body)
    // The counts are reused for 5 s (checked when the writes took well under that).
    const cached = await json("/v2/stats")
    if (Date.now() - cachedAt < 4_000) expect(cached.usage.agora_posts).toBe(before.usage.agora_posts)
    const notice = await fetch(`${server.baseUrl}/notice`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ location: "entry 2", explanation: "This post shows my address.", accurate: true })
    })
    expect(notice.status).toBe(201)

    const after = await statsWhen((s) => s.usage.notices_open > before.usage.notices_open && s.usage.agora_posts > before.usage.agora_posts)
    expect(after.usage).toMatchObject({
      registered_agents: before.usage.registered_agents + 1,
      ans_handles_claimed: before.usage.ans_handles_claimed + 1,
      verified_key_identities: before.usage.verified_key_identities + 1,
      agora_posts: before.usage.agora_posts + 1,
      notices_open: before.usage.notices_open + 1,
      e2ee_messages_relayed: before.usage.e2ee_messages_relayed
    })
    const grown = await statsWhen((s) => s.usage.tlog_tree_size >= before.usage.tlog_tree_size + 2)
    expect(grown.usage.tlog_tree_size).toBeGreaterThanOrEqual(before.usage.tlog_tree_size + 2)
    expect(grown.usage.tlog_root_hash_hex).not.toBe(before.usage.tlog_root_hash_hex)

    const page = await json("/stats?format=json")
    expect(Object.keys(page).sort()).toEqual(Object.keys(after).sort())
    expect(page.usage.agora_posts).toBe(after.usage.agora_posts)
  })
})

describe("GET /v2/online", () => {
  it("lists the agent that just wrote a public leaf, with its name, and checks the window", async () => {
    const p = postPayload("still here")
    const index = await entry(alice, "post", p.payload, p.body)
    const online = await json("/v2/online")
    expect(Object.keys(online).sort()).toEqual(["agents", "count", "since", "truncated", "window"])
    expect(online).toMatchObject({ window: 900, truncated: false })
    expect(online.since).toBeGreaterThan(Date.now() - 900_000 - 60_000)
    expect(online.agents[0]).toEqual({ kid: alice.kid, name: "alice", tier: "key", index, logged: expect.any(Number), type: "post" })
    expect(online.count).toBe(online.agents.length)
    expect((await json("/v2/online?window=60")).agents.map((a: any) => a.kid)).toContain(alice.kid)
    expect((await json("/v2/online?window=86400")).window).toBe(86_400)

    for (const bad of ["59", "86401", "0", "abc", "1e3", "060", "-60"]) {
      const response = await fetch(`${server.baseUrl}/v2/online?window=${bad}`)
      expect(response.status, bad).toBe(422)
      expect(response.headers.get("content-type")).toBe("application/problem+json")
      expect((await response.json() as any).code).toBe("invalid_parameters")
    }
  })

  it("is declared in /openapi.json with the statistics and the data pages", async () => {
    const spec = await json("/openapi.json")
    for (const path of ["/v2/stats", "/v2/online", "/agora", "/directory", "/tasks", "/stats", "/online"]) {
      expect(spec.paths[path]?.get, path).toBeDefined()
    }
    expect(JSON.stringify(spec.paths["/v2/online"].get.parameters)).toContain("window")
  })
})

describe("the data pages over HTTP", () => {
  const HOSTILE = `<script>alert("x")</script> & "quotes"`
  const expect422 = async (path: string) => {
    const response = await fetch(`${server.baseUrl}${path}`)
    expect(response.status, path).toBe(422)
    expect(response.headers.get("content-type"), path).toBe("application/problem+json")
    expect((await response.json() as any).code, path).toBe("invalid_parameters")
  }

  it("refuse parameters beyond their limits with 422", async () => {
    await expect422(`/directory?q=${"a".repeat(81)}`)
    expect((await fetch(`${server.baseUrl}/directory?q=${"a".repeat(80)}`)).status).toBe(200)
    for (const window of ["59", "86401", "abc"]) await expect422(`/online?window=${window}`)
    await expect422(`/agora?channel=${"a".repeat(64)}`)
    await expect422("/agora?channel=Not-Lower")
    for (const path of ["/agora", "/directory", "/tasks", "/stats", "/online"]) await expect422(`${path}?format=xml`)
  })

  it("answer every format with the security headers, hostile text as data", async () => {
    const p = postPayload(HOSTILE, "pages-http")
    await entry(alice, "post", p.payload, p.body)
    for (const path of ["/agora", "/directory", "/tasks", "/stats", "/online"]) {
      for (const format of ["", "?format=json", "?format=text"]) {
        const response = await fetch(`${server.baseUrl}${path}${format}`)
        expect(response.status, path + format).toBe(200)
        expect(response.headers.get("content-security-policy"), path + format).toBe(
          "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        )
        expect(response.headers.get("x-content-type-options"), path + format).toBe("nosniff")
      }
    }
    const page = await (await fetch(`${server.baseUrl}/agora?channel=pages-http`)).text()
    expect(page).not.toContain("<script>alert")
    expect(page).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &quot;quotes&quot;")
    // The footer's other forms keep the filter.
    expect(page).toContain(`href="/agora?channel=pages-http&amp;format=json"`)
    const data = await json("/agora?channel=pages-http&format=json")
    expect(data.posts.map((post: any) => post.text)).toEqual([HOSTILE])
    const text = await fetch(`${server.baseUrl}/agora?channel=pages-http&format=text`)
    expect(text.headers.get("content-type")).toBe("text/plain; charset=utf-8")
    expect(await text.text()).toContain(HOSTILE)
  })
})
