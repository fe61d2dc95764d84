// A write whose answer is lost (src/client/lostAnswer.ts, write.ts): a proxy in front of the
// real service forwards POST /v2/entries and closes the connection instead of answering, or
// never forwards it, or then lets nothing through. The client asks the log before it
// answers: the entry found, it is accepted with its receipt fetched again and kept (a retry
// would have been a second, permanent post); not there, it says the write was not accepted;
// the log not answering either, it says the write MAY have been accepted and how to find out,
// never "is the service there?" alone.

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nobleCrypto } from "../../src/adapters/crypto/nobleCrypto.js"
import { generateAgentKey } from "../../src/client/agentKey.js"
import { syncedWithLog } from "../../src/client/chainSync.js"
import { ClientError } from "../../src/client/errors.js"
import { mayHaveArrived, serviceAt } from "../../src/client/http.js"
import { postDraft } from "../../src/client/payloads.js"
import { getEntry } from "../../src/client/read.js"
import { writeEntry, type LogClient } from "../../src/client/write.js"
import { parseVerifierKey } from "../../src/domain/note/verifierKey.js"
import { ok, runAics, startCliWorld, type CliWorld } from "../support/aicsCli.js"
import { CUT, startLyingProxy, type Alter, type Drop } from "../support/lyingProxy.js"
import { callTool, connectAicsMcp } from "../support/mcpClient.js"
import { freePort } from "../support/server.js"

let world: CliWorld
let proxy: Awaited<ReturnType<typeof startLyingProxy>>
let alter: Alter | undefined
let drop: Drop | undefined
const mcpClients: Array<Client> = []

const isWrite = (path: string, method: string) => method === "POST" && path.startsWith("/v2/entries")
/** The service's answer to a write is lost: the proxy closes the connection instead. */
const cutWriteAnswers: Alter = (path, _answer, method) => (isWrite(path, method) ? CUT : undefined)

beforeAll(async () => {
  const port = await freePort()
  proxy = await startLyingProxy(() => `http://127.0.0.1:${port}`, () => alter, () => drop)
  // The proxy passes the client's Host on (its signature covers it): the service takes it as one of its own.
  world = await startCliWorld("aics-lost-answer-", { port, env: { AICS_AUTHORITY: `127.0.0.1:${port},${new URL(proxy.url).host}` } })
}, 60_000)

afterAll(async () => {
  for (const client of mcpClients) await client.close()
  await proxy?.close()
  await world?.stop()
})

/** `aics` through the proxy. */
const viaProxy = (args: ReadonlyArray<string>) =>
  runAics(args, { cwd: world.agentsDir, env: { AICS_SERVER: proxy.url, AICS_LOG_VKEY: world.vkey }, timeoutMs: 60_000 })

const keyFile = async (file: string) => JSON.parse(await readFile(join(world.agentsDir, file), "utf8")) as { kid: string; seq: number; receipts: Array<{ index: number; seq: number }> }

/** The log's own view of the key (straight from the service). */
const keyView = async (kid: string) => (await (await fetch(`${world.server.baseUrl}/v2/keys/${encodeURIComponent(kid)}`)).json()) as { seq: number | null; head_index: number | null }

const newAgent = async (file: string, name: string): Promise<string> => {
  ok(await world.aics(["keygen", "--key", file]))
  ok(await world.aics(["claim", name, "--key", file]))
  return (await keyFile(file)).kid
}

describe("a write whose answer is lost", () => {
  it("is found in the log and answered as accepted, its receipt kept: sending it again is not needed", async () => {
    const kid = await newAgent("dup.json", "dupper")
    alter = cutWriteAnswers
    try {
      const run = await viaProxy(["post", "dup", "important announcement", "--key", "dup.json"])
      expect(run.err, run.err).toBe("")
      expect(run.code).toBe(0)
      const index = Number(/as entry (\d+)/.exec(run.out)?.[1])
      expect(run.out).toMatch(/\(seq 1, receipt verified\)/)
      expect(run.out).toMatch(/the answer was lost and recovered from the log: POST .* failed: .*; the log holds this very envelope as entry \d+, and its receipt, fetched again, verified/)
      // The log holds it once, at this key's seq 1, and the key file kept its receipt and moved past it.
      expect(await keyView(kid)).toMatchObject({ seq: 1, head_index: index })
      const key = await keyFile("dup.json")
      expect(key.seq).toBe(2)
      expect(key.receipts.map((r) => [r.seq, r.index])).toContainEqual([1, index])
      // With --json, the answer says so too.
      const again = await viaProxy(["post", "dup", "a second one", "--key", "dup.json", "--json"])
      expect(again.code).toBe(0)
      expect(JSON.parse(again.out)).toMatchObject({ seq: 2, answer_lost: expect.stringMatching(/this very envelope as entry/) })
    } finally {
      alter = undefined
    }
    ok(await world.aics(["verify", "--key", "dup.json"]))
  })

  it("not forwarded, is said not yet written but possible until its expires, with when to look; the key file stays where it was", async () => {
    const kid = await newAgent("lost.json", "loser")
    const before = await keyFile("lost.json")
    drop = (path, method) => isWrite(path, method)
    try {
      const run = await viaProxy(["post", "dup", "never arrives", "--key", "lost.json"])
      expect(run.code).toBe(1)
      // The log could still take it (a queue, a relay) until the envelope's expires, 300 s on: not "NOT accepted".
      expect(run.err).toMatch(/^error \(network\): POST .*\/v2\/entries failed: .*; asked then, the log holds no entry at seq 1 of did:key:\S+ yet \(its chain ends at seq 0\), but this write MAY still be written: the log takes the envelope until its expires \(\d+\), and the request may still be waiting to be sequenced\. Do not send it again before \S+Z by the service's clock \(in about 30\d s\); then find out: GET http:\/\/\S+\/v2\/keys\/did%3Akey%3A\S+ \(the key's seq and head_index\); seq 1 there means it was accepted as leaf head_index, and `aics receipt <head_index>` fetches, verifies and keeps its receipt/)
      expect(run.err).not.toContain("NOT accepted")
    } finally {
      drop = undefined
    }
    expect(await keyView(kid)).toMatchObject({ seq: 0 })
    expect(await keyFile("lost.json")).toEqual(before)
  })

  it("when the log cannot be asked either, says the write MAY have been accepted and how to find out; aics receipt then keeps it", async () => {
    const kid = await newAgent("maybe.json", "mayber")
    let cut = false
    // The write's answer is lost, and after it nothing gets through.
    alter = (path, _answer, method) => {
      if (!isWrite(path, method)) return undefined
      cut = true
      return CUT
    }
    drop = () => cut
    try {
      const run = await viaProxy(["post", "dup", "maybe written", "--key", "maybe.json"])
      expect(run.code).toBe(1)
      expect(run.err).toMatch(/^error \(network\): POST .*\/v2\/entries failed: .*\. The request may have reached the service, so this write MAY have been accepted \(seq 1 of did:key:\S+\), and the log could not be asked \(GET .* failed: [^()]*\)\. Before sending it again, find out: GET http:\/\/127\.0\.0\.1:\d+\/v2\/keys\/did%3Akey%3A\S+ \(the key's seq and head_index\); seq 1 there means it was accepted as leaf head_index, and `aics receipt <head_index>` fetches, verifies and keeps its receipt/)
      expect(run.err).toContain("Sending it again unchecked may write it twice, permanently.")
      expect(run.err).not.toContain("is the service there?")
    } finally {
      alter = undefined
      drop = undefined
    }
    // It was: the way the error gives finds it and keeps its receipt, and the next write follows it.
    const view = await keyView(kid)
    expect(view.seq).toBe(1)
    expect(ok(await world.aics(["receipt", String(view.head_index), "--key", "maybe.json"])).out).toContain("kept in maybe.json")
    expect((await keyFile("maybe.json")).seq).toBe(2)
    expect(ok(await world.aics(["post", "dup", "next", "--key", "maybe.json"])).out).toMatch(/\(seq 2, receipt verified\)$/m)
  })

  it("through aics mcp: the post tool answers accepted with the verified receipt, and the chain moves on from it", async () => {
    ok(await world.aics(["keygen", "--key", "mcp.json"]))
    const kid = (await keyFile("mcp.json")).kid
    const mcp = await connectAicsMcp(join(world.agentsDir, "mcp.json"), { server: proxy.url, vkey: world.vkey })
    mcpClients.push(mcp)
    alter = cutWriteAnswers
    try {
      const posted = await callTool(mcp, "post", { channel: "dup", text: "important announcement" })
      expect(posted.isError, posted.summary).toBe(false)
      expect(posted.data).toMatchObject({ seq: 0, receipt_verified: true })
      expect(await keyView(kid)).toMatchObject({ seq: 0, head_index: posted.data.index })
      const next = await callTool(mcp, "post", { channel: "dup", text: "and then" })
      expect(next.data).toMatchObject({ seq: 1, receipt_verified: true })
    } finally {
      alter = undefined
    }
    expect(await keyView(kid)).toMatchObject({ seq: 1 })
  })

})

describe("a lost answer asked of the log by the library: the chain moved on elsewhere (the text gate, another copy of the key file), an envelope near its expires", () => {
  const plain = (): LogClient => ({ service: serviceAt(world.server.baseUrl), vkey: parseVerifierKey(nobleCrypto.sha256, world.vkey)! })
  /** What fetch throws when the connection closes with no answer. */
  const closed = () => new TypeError("fetch failed", { cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }) })
  /** A client whose first POST goes as `post` says, then loses its answer. */
  const losing = (post: (input: string | URL | Request, init: RequestInit) => Promise<void>): LogClient => {
    let first = true
    return {
      ...plain(),
      service: serviceAt(world.server.baseUrl, async (input, init) => {
        if (init?.method !== "POST" || !first) return fetch(input, init)
        first = false
        await post(input, init)
        throw closed()
      })
    }
  }

  it("finds its entry behind the later ones, by its seq, and answers it accepted", async () => {
    const key = generateAgentKey()
    const draft = postDraft("dup", "mine, answer lost")
    const client = losing(async (input, init) => {
      expect((await fetch(input, init)).status).toBe(202)
      // The key's next entry lands before the client asks.
      const later = postDraft("dup", "a later one")
      expect((await writeEntry(plain(), await syncedWithLog(plain(), key), "post", later.payload, later.body))._tag).toBe("Accepted")
    })
    const result = await writeEntry(client, key, "post", draft.payload, draft.body)
    if (result._tag !== "Accepted") throw new Error(`refused ${result.code}`)
    expect(result.answerLost).toMatch(/fetch failed: other side closed; the log holds this very envelope as entry \d+/)
    expect(result.receipt.seq).toBe(0)
    expect(result.key.seq).toBe(1)
    expect(await keyView(result.envelope.kid)).toMatchObject({ seq: 1 })
    expect((await getEntry(plain(), result.receipt.index)).envelope).toEqual(result.envelope)
  })

  it("near its expires, looks until the log can no longer take it, then says it was not accepted", async () => {
    const key = generateAgentKey()
    const draft = postDraft("dup", "never sent, near its expires")
    // Signed 297 s ago by the client's clock: its expires is 3 s away.
    const client: LogClient = { ...losing(async () => {}), now: () => Date.now() - 297_000 }
    const started = Date.now()
    const failure = await writeEntry(client, key, "post", draft.payload, draft.body).then(() => undefined, (error: unknown) => error)
    expect(failure).toBeInstanceOf(ClientError)
    expect((failure as ClientError).message).toMatch(
      /^POST .* failed: fetch failed: other side closed; asked then, the log holds no entry at seq 0 of did:key:\S+ \(its chain is empty\), still 5 s after the envelope's expires \(\d+\) by the service's clock, when the log can no longer take it: this write was NOT accepted/
    )
    // Not said before the log's time for it had passed (its expires, 3 s on, and 5 s more).
    expect(Date.now() - started).toBeGreaterThanOrEqual(6_000)
  })

  it("arriving after the old 2 s of looking, while the log can still take it, is found and answered accepted", async () => {
    const key = generateAgentKey()
    const draft = postDraft("dup", "late, answer lost")
    // Its expires 10 s away; the request reaches the service 3 s after the client starts looking.
    const late = losing(async (input, init) => {
      setTimeout(() => void fetch(input, init).then((r) => r.arrayBuffer()).catch(() => undefined), 3_000)
    })
    const result = await writeEntry({ ...late, now: () => Date.now() - 290_000 }, key, "post", draft.payload, draft.body)
    if (result._tag !== "Accepted") throw new Error(`refused ${result.code}`)
    expect(result.answerLost).toMatch(/the log holds this very envelope as entry \d+/)
    expect(await keyView(result.envelope.kid)).toMatchObject({ seq: 0, head_index: result.receipt.index })
  })

  it("finds another envelope at its seq: not accepted", async () => {
    const key = generateAgentKey()
    const draft = postDraft("dup", "mine, never sent")
    const client = losing(async () => {
      const other = postDraft("dup", "another at the same seq")
      expect((await writeEntry(plain(), key, "post", other.payload, other.body))._tag).toBe("Accepted")
    })
    const failure = await writeEntry(client, key, "post", draft.payload, draft.body).then(() => undefined, (error: unknown) => error)
    expect(failure).toBeInstanceOf(ClientError)
    expect((failure as ClientError).message).toMatch(
      /^POST .* failed: fetch failed: other side closed; asked then, the log's entry at seq 0 of did:key:\S+ is another envelope \(entry \d+: .*\): this write was NOT accepted, nothing was written/
    )
  })
})

describe("whether a request that got no answer may have reached the service", () => {
  const failureOf = (url: string, init: RequestInit = {}) => fetch(url, init).then(() => undefined, (error: unknown) => error)

  it("not when the connection was refused: the request was never sent", async () => {
    const error = await failureOf(`http://127.0.0.1:${await freePort()}/v2/entries`, { method: "POST", body: "{}" })
    expect(error).toBeDefined()
    expect(mayHaveArrived(error)).toBe(false)
  })

  it("when the connection was closed after the request, or the wait ran out", async () => {
    drop = (path) => path === "/cut"
    try {
      const error = await failureOf(`${proxy.url}/cut`, { method: "POST", body: "{}" })
      expect(error).toBeDefined()
      expect(mayHaveArrived(error)).toBe(true)
    } finally {
      drop = undefined
    }
    expect(mayHaveArrived(new DOMException("The operation was aborted due to timeout", "TimeoutError"))).toBe(true)
  })
})
