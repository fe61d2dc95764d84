// The inbox proves each message in the log (src/client/messaging.ts inboxProver): the leaf
// rebuilt from the envelope, index and logged time the service's answer gives must be
// included under a checkpoint signed by the log key, by proofs built from the hash tiles.
//   - an honest inbox decrypts, a page of messages costing a few tile fetches and no entry
//     read per message;
//   - a service that lies (here a fetch that rewrites GET /v2/inbox answers before the
//     client sees them, as the lying proxy of test/support/lyingProxy.ts does for unsigned
//     reads) about a message's logged time or index, or serves a DM signed by a real
//     sender but never logged, is refused with error (verification);
//   - with another log's verifier key (same origin name, another key) the read is refused
//     with error (verification), by the library, the MCP inbox tool and `aics inbox`.

import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nobleCrypto } from "../../src/adapters/crypto/nobleCrypto.js"
import { claimName } from "../../src/client/agent.js"
import { generateAgentKey } from "../../src/client/agentKey.js"
import { buildEnvelope } from "../../src/client/envelope.js"
import { ClientError } from "../../src/client/errors.js"
import { grant } from "../../src/client/grants.js"
import { serviceAt } from "../../src/client/http.js"
import { createAgentKeyFile, readAgentKeyFile } from "../../src/client/keyFile.js"
import { agentTools } from "../../src/client/mcp/agentTools.js"
import { dmDraftTo, readInbox, sendDm } from "../../src/client/messaging.js"
import type { LogClient } from "../../src/client/write.js"
import { utf8 } from "../../src/domain/bytes.js"
import { encodeU64 } from "../../src/domain/encoding.js"
import { formatVerifierKey, makeVerifierKey, parseVerifierKey, type VerifierKey } from "../../src/domain/note/verifierKey.js"
import { runAics } from "../support/aicsCli.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../support/server.js"

let server: RunningServer
let keysDir: string
let vkey: VerifierKey
const path = (name: string) => join(keysDir, `${name}.json`)
const sent: Array<number> = []

/** What the lying service does to each GET /v2/inbox answer (undefined: answers honestly). */
let lie: ((answer: any) => unknown) | undefined
/** Every path the client asked for since the last reset. */
let asked: Array<string> = []

const clientWith = (key: VerifierKey): LogClient => ({
  service: serviceAt(server.baseUrl, async (input, init) => {
    const url = new URL(String(input))
    asked.push(url.pathname)
    const answer = await fetch(input, init)
    if (lie === undefined || url.pathname !== "/v2/inbox" || answer.status !== 200) return answer
    return new Response(JSON.stringify(lie(await answer.json())), { status: 200, headers: { "content-type": "application/json" } })
  }),
  vkey: key
})

/** The same origin name as the log's, with another key: the verifier key of another instance. */
const otherLogKey = (): VerifierKey =>
  makeVerifierKey(nobleCrypto.sha256, vkey.name, nobleCrypto.ed25519.publicKey(nobleCrypto.sha256(utf8("another log"))))

const refusedForVerification = async (read: Promise<unknown>): Promise<ClientError> => {
  const error = await read.then(() => undefined, (e: unknown) => e)
  expect(error).toBeInstanceOf(ClientError)
  expect((error as ClientError).kind, (error as Error).message).toBe("verification")
  return error as ClientError
}

beforeAll(async () => {
  server = await startServer({ dataDir: await tempDataDir() })
  vkey = parseVerifierKey(nobleCrypto.sha256, (await readFile(join(server.dataDir, "log.vkey"), "utf8")).trim())!
  keysDir = await mkdtemp(join(tmpdir(), "aics-inbox-proof-"))
  const client = clientWith(vkey)
  for (const name of ["alice", "bob"]) {
    await createAgentKeyFile(path(name), generateAgentKey())
    expect((await claimName(client, path(name), `${name}-proof`))._tag).toBe("Accepted")
  }
  await grant(client, path("bob"), "alice-proof")
  for (const text of ["one", "two", "three", "four", "five"]) {
    const dm = await sendDm(client, path("alice"), "bob-proof", text)
    if (dm.result._tag !== "Accepted") throw new Error(`refused: ${dm.result.code}`)
    sent.push(dm.result.receipt.index)
  }
}, 60_000)

afterAll(async () => {
  await server?.stop()
  if (server !== undefined) await removeDir(server.dataDir)
  if (keysDir !== undefined) await rm(keysDir, { recursive: true, force: true })
})

describe("the inbox proves each message in the log", () => {
  it("decrypts an honest page, its proofs from a few tiles and no entry read per message", async () => {
    lie = undefined
    asked = []
    const inbox = await readInbox(clientWith(vkey), path("bob"))
    expect(inbox.messages.map((m) => ("text" in m ? m.text : m.error))).toEqual(["one", "two", "three", "four", "five"])
    expect(inbox.messages.map((m) => m.index)).toEqual(sent)
    expect(asked.filter((p) => p.startsWith("/v2/entries/"))).toEqual([])
    // The log is under 256 leaves: one level-0 tile proves every message of the page.
    const tiles = asked.filter((p) => p.startsWith("/tiles/"))
    expect(tiles.length).toBeGreaterThan(0)
    expect(tiles.length).toBeLessThan(sent.length)
  })

  it("refuses a message whose logged time the service changed", async () => {
    lie = (answer) => ({ ...answer, messages: answer.messages.map((m: any, i: number) => (i === 1 ? { ...m, logged: m.logged + 1 } : m)) })
    const error = await refusedForVerification(readInbox(clientWith(vkey), path("bob")))
    expect(error.message).toContain(`inbox message ${sent[1]}`)
    expect(error.message).toContain("is not in the log under the checkpoint")
  })

  it("refuses a message the service moved to another index", async () => {
    lie = (answer) => ({ ...answer, messages: answer.messages.map((m: any, i: number) => (i === 2 ? { ...m, index: m.index - 1 } : m)) })
    await refusedForVerification(readInbox(clientWith(vkey), path("bob")))
  })

  it("refuses a DM the sender signed but the log never took, though it decrypts", async () => {
    // alice's key signs a DM to bob at her next seq; it is never sent to the log.
    const client = clientWith(vkey)
    const alice = await readAgentKeyFile(path("alice"))
    const { draft } = await dmDraftTo(client, alice, "bob-proof", "not in the log")
    const forged = buildEnvelope(alice, vkey.name, draft.type, draft.payload, Math.floor(Date.now() / 1000))
    lie = (answer) => ({
      ...answer,
      messages: answer.messages.map((m: any, i: number) => (i === 0 ? { ...m, envelope: forged, ct: encodeU64(draft.body!) } : m))
    })
    const error = await refusedForVerification(readInbox(client, path("bob")))
    expect(error.message).toContain(`inbox message ${sent[0]}`)
  })

  it("refuses the whole read with another log's verifier key: the library, the MCP inbox tool and aics inbox", async () => {
    lie = undefined
    const late = await sendDm(clientWith(vkey), path("alice"), "bob-proof", "six")
    expect(late.result._tag).toBe("Accepted")
    const other = otherLogKey()
    const refused = await refusedForVerification(readInbox(clientWith(other), path("bob")))
    expect(refused.message).toMatch(/checkpoint/)
    const tool = agentTools({ client: clientWith(other), keyPath: path("bob") }).find((t) => t.name === "inbox")!
    await refusedForVerification(tool.run({}))
    const cli = await runAics(["inbox", "--key", path("bob")], {
      cwd: keysDir,
      env: { AICS_SERVER: server.baseUrl, AICS_LOG_VKEY: formatVerifierKey(other) }
    })
    expect(cli.code).not.toBe(0)
    expect(cli.err).toContain("error (verification)")
    // The log key is checked before the signed read, which marks messages read: the refused
    // reads marked nothing, and the honest key still finds the new message unread.
    const unread = await readInbox(clientWith(vkey), path("bob"), { unreadOnly: true })
    expect(unread.messages.map((m) => ("text" in m ? m.text : m.error))).toEqual(["six"])
  })
})
