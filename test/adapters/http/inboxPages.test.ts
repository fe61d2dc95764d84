// GET /v2/inbox a page at a time, through the real server (docs/spec/service.md "Projections" inbox:
// `next_from` when a page stopped at `limit`; "Limits" from and limit; docs/protocol.md
// 10.3): from/limit/next_from as on /v2/inbox/{kid}, their bounds (422), and unread_only
// with the read cursor across pages, and the byte bound (INBOX_PAGE_CT_BYTES: a page ends
// before the ciphertext that would pass it, next_from going on). Each page is signed with the profile's four
// components, @path without the query (test/domain/http/aicsProfile.test.ts: one that
// covers "@query" is refused).

import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeAgent, type TestAgent } from "../../support/agents.js"
import { ciphertext, claimPayload, dmPayload } from "../../support/identityAgents.js"
import { sendEntry, signatureHeaders } from "../../support/signedHttp.js"
import { INBOX_PAGE_CT_BYTES } from "../../../src/domain/views/limits.js"
import { CIPHERTEXT_LIMIT } from "../../../src/domain/entries/entryRule.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

const ORIGIN = "localhost/aics"
const MESSAGES = 7
let dataDir: string
let server: RunningServer
const bob = makeAgent(`inbox pages bob ${Date.now()}`)
const alice = makeAgent(`inbox pages alice ${Date.now()}`)
const sent: Array<number> = []

const write = async (agent: TestAgent, type: string, payload: Record<string, unknown>, body: Uint8Array | null = null) => {
  const answer = await sendEntry(server, ORIGIN, "/v2/entries", agent, type, payload, body)
  expect(answer.status, JSON.stringify(answer.json.entry)).toBe(202)
  return answer.index
}

/** GET <path> signed by `agent` (the profile's four components: the query is not covered). */
const signedGet = async (agent: TestAgent, path: string) => {
  const response = await fetch(`${server.baseUrl}${path}`, {
    headers: signatureHeaders(server, agent.seed, { method: "GET", path, body: new Uint8Array(0) })
  })
  return { status: response.status, json: await response.json() as any }
}

/** GET /v2/inbox?<query> signed by bob. */
const page = (query: string) => signedGet(bob, `/v2/inbox${query === "" ? "" : `?${query}`}`)

beforeAll(async () => {
  dataDir = await tempDataDir()
  server = await startServer({ dataDir })
  const claim = await write(bob, "claim", claimPayload(`pages-bob-${Date.now() % 100000}`, bob))
  const grant = await write(bob, "grant", { sender: alice.kid, use: "dm" })
  for (let i = 0; i < MESSAGES; i++) {
    const dm = dmPayload(bob.kid, grant, claim, ciphertext(`page dm ${i}`))
    sent.push(await write(alice, "dm", dm.payload, dm.body))
  }
})

afterAll(async () => {
  await server?.stop()
  await removeDir(dataDir)
})

describe("GET /v2/inbox pages", () => {
  it("answers at most limit messages and next_from, and following next_from reads every message once", async () => {
    const first = await page("limit=3")
    expect(first.status, JSON.stringify(first.json)).toBe(200)
    expect(first.json.indices).toEqual(sent.slice(0, 3))
    expect(first.json.messages.map((m: any) => m.index)).toEqual(sent.slice(0, 3))
    expect(first.json.messages[0].ct).not.toBeNull()
    expect(first.json.next_from).toBe(sent[3])
    const seen: Array<number> = []
    let from: number | null = 0
    while (from !== null) {
      const next = await page(`from=${from}&limit=3`)
      expect(next.status).toBe(200)
      seen.push(...next.json.indices)
      from = next.json.next_from
    }
    expect(seen).toEqual(sent)
    // The last page says so; a page from past the last message is empty.
    expect((await page(`from=${sent[6]! + 1}`)).json).toMatchObject({ indices: [], messages: [], next_from: null })
    expect((await page("")).json.indices).toEqual(sent)
  })

  it("keeps from and limit within the bounds of /v2/inbox/{kid} (422 outside)", async () => {
    for (const bad of ["limit=0", "limit=10001", "from=-1", "from=x", "limit=1e3"]) {
      const answer = await page(bad)
      expect(answer.status, bad).toBe(422)
      expect(answer.json.code).toBe("invalid_parameters")
    }
    expect((await page("limit=10000")).status).toBe(200)
  })

  it("unread_only pages start after the read cursor, and each page read moves it on", async () => {
    const reader = makeAgent(`inbox pages reader ${Date.now()}`)
    const readerClaim = await write(reader, "claim", claimPayload(`pages-rd-${Date.now() % 100000}`, reader))
    const grant = await write(reader, "grant", { sender: alice.kid, use: "dm" })
    const mine: Array<number> = []
    for (let i = 0; i < 5; i++) {
      const dm = dmPayload(reader.kid, grant, readerClaim, ciphertext(`reader dm ${i}`))
      mine.push(await write(alice, "dm", dm.payload, dm.body))
    }
    const get = async (query: string) => {
      const answer = await signedGet(reader, `/v2/inbox?${query}`)
      expect(answer.status).toBe(200)
      return answer.json as { indices: Array<number>; next_from: number | null }
    }
    const first = await get("unread_only=true&limit=2")
    expect([first.indices, first.next_from]).toEqual([mine.slice(0, 2), mine[2]])
    // Read again from the start: the old page does not move the cursor back.
    expect((await get("limit=1")).indices).toEqual(mine.slice(0, 1))
    const second = await get("unread_only=true&limit=2")
    expect([second.indices, second.next_from]).toEqual([mine.slice(2, 4), mine[4]])
    const rest = await get(`unread_only=true&from=${second.next_from}&limit=2`)
    expect([rest.indices, rest.next_from]).toEqual([mine.slice(4), null])
    expect((await get("unread_only=true")).indices).toEqual([])
  })

  it("ends a page by ciphertext bytes as well as by count, and next_from from there reads every message once", async () => {
    // Full-size DMs: one more than the byte bound holds, so the first page stops before it.
    const fit = Math.floor(INBOX_PAGE_CT_BYTES / CIPHERTEXT_LIMIT)
    const big = makeAgent(`inbox pages big ${Date.now()}`)
    const bigClaim = await write(big, "claim", claimPayload(`pages-big-${Date.now() % 100000}`, big))
    const grant = await write(big, "grant", { sender: alice.kid, use: "dm" })
    const mine: Array<number> = []
    for (let i = 0; i <= fit; i++) {
      const dm = dmPayload(big.kid, grant, bigClaim, ciphertext(`big dm ${i}`, CIPHERTEXT_LIMIT))
      mine.push(await write(alice, "dm", dm.payload, dm.body))
    }
    const first = await signedGet(big, "/v2/inbox?unread_only=true&limit=10000")
    expect(first.status).toBe(200)
    expect(first.json.indices).toEqual(mine.slice(0, fit))
    expect(first.json.messages.every((m: any) => typeof m.ct === "string")).toBe(true)
    expect(first.json.next_from).toBe(mine[fit])
    // The read cursor moved to the last message returned, not past the cut.
    expect((await signedGet(big, "/v2/inbox/status")).json).toMatchObject({ unread: 1, total: fit + 1 })
    const rest = await signedGet(big, `/v2/inbox?unread_only=true&from=${first.json.next_from}&limit=10000`)
    expect([rest.json.indices, rest.json.next_from]).toEqual([mine.slice(fit), null])
    expect((await signedGet(big, "/v2/inbox/status")).json).toMatchObject({ unread: 0 })
  })
})
