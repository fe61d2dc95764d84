// Text that becomes a body must be well-formed Unicode (src/client/payloads.ts wellFormedText):
// a lone surrogate ("\ud800" in a JSON argument) has no UTF-8 form, and encoding it would store
// U+FFFD for good instead of what was written. It is refused before anything is signed, in the
// library, the CLI and the MCP tools alike (one check where text becomes a body).

import { join } from "node:path"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ClientError } from "../../src/client/errors.js"
import { pollDraft, postDraft, someText, textBytes, wellFormedText } from "../../src/client/payloads.js"
import { ok, startCliWorld, type CliWorld } from "../support/aicsCli.js"
import { callTool, connectAicsMcp } from "../support/mcpClient.js"

const usage = (run: () => unknown): string => {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(ClientError)
    expect((error as ClientError).kind).toBe("usage")
    return (error as ClientError).message
  }
  throw new Error("accepted")
}

describe("well-formed text", () => {
  it("takes any well-formed text, surrogate pairs (emoji) included", () => {
    expect(wellFormedText("héllo \u{1F600} wörld", "the post")).toBe("héllo \u{1F600} wörld")
    expect(new TextDecoder().decode(textBytes("\u{1F600}", "the post"))).toBe("\u{1F600}")
  })

  it("refuses a lone surrogate, high or low, saying which and where", () => {
    expect(usage(() => wellFormedText("important \ud800 end", "the post"))).toBe(
      "the post is not well-formed Unicode: a lone surrogate (U+D800, half of a UTF-16 pair) at character 10, which has no UTF-8 form " +
        "(it would be stored as U+FFFD, the replacement character); send the whole character or remove it"
    )
    expect(usage(() => wellFormedText("\udc00", "the message"))).toMatch(/^the message is not well-formed Unicode: a lone surrogate \(U\+DC00, .*\) at character 0/)
    // A pair the wrong way round is two lone halves.
    expect(usage(() => wellFormedText("\ude00\ud83d", "the post"))).toMatch(/U\+DE00/)
  })

  it("where text becomes a body: a post, a DM's text, a poll's question", () => {
    expect(usage(() => postDraft("general", "important announcement \ud800 end"))).toMatch(/^the post is not well-formed Unicode/)
    expect(usage(() => someText("hi \ud800", "the message"))).toMatch(/^the message is not well-formed Unicode/)
    expect(usage(() => pollDraft("general", "which \udfff?", ["a", "b"], 2_000_000_000))).toMatch(/^the question is not well-formed Unicode/)
  })
})

describe("through aics mcp", () => {
  let world: CliWorld
  let mcp: Client | undefined

  beforeAll(async () => {
    world = await startCliWorld("aics-well-formed-")
  }, 60_000)

  afterAll(async () => {
    await mcp?.close()
    await world?.stop()
  })

  it("a post or a capsule with a lone surrogate is a usage error, and nothing is written", async () => {
    ok(await world.aics(["keygen", "--key", "text.json"]))
    mcp = await connectAicsMcp(join(world.agentsDir, "text.json"), { server: world.server.baseUrl, vkey: world.vkey })
    const posted = await callTool(mcp, "post", { channel: "general", text: "important announcement \ud800 end" })
    expect(posted.isError).toBe(true)
    expect(posted.summary).toMatch(/^error \(usage\): the post is not well-formed Unicode: a lone surrogate \(U\+D800/)
    const stored = await callTool(mcp, "capsule_put", { slot: "0f3a9c51d2e84b7a96c1e0d5b2a47f38", text: "note \udc00" })
    expect(stored.isError).toBe(true)
    expect(stored.summary).toMatch(/^error \(usage\): the capsule's text is not well-formed Unicode/)
    const who = await callTool(mcp, "whoami")
    expect(who.data).toMatchObject({ seq: 0, receipts: 0 })
    // A whole character goes as written.
    const emoji = await callTool(mcp, "post", { channel: "general", text: "fine \u{1F600}" })
    expect(emoji.isError, emoji.summary).toBe(false)
    expect((await callTool(mcp, "get_entry", { index: emoji.data.index })).data.text).toBe("fine \u{1F600}")
  })
})
