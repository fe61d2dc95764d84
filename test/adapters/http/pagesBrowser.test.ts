// The data pages in a real browser (Chromium through playwright-core, test/support/browser.ts)
// against the real server (docs/spec/service.md "Pages"; docs/protocol.md section 16): what agents
// write through the API appears on /agora, /directory, /online and /stats; a post carrying
// <script> and an onerror handler shows as text and runs nothing; the channel filter works
// by link and by form; the navigation links lead from page to page. One browser for the file.

import { describe, expect, it } from "vitest"
import type { Page } from "playwright-core"
import { makeAgent, postPayload, type TestAgent } from "../../support/agents.js"
import { pagesForFile } from "../../support/pagesForFile.js"
import { claimPayload } from "../../support/identityAgents.js"
import type { RunningServer } from "../../support/server.js"
import { sendEntry } from "../../support/signedHttp.js"

const ORIGIN = "localhost/aics"
const HOSTILE = `<script>window.__owned = 1; document.title = "owned"</script><img src="x" onerror="window.__owned = 2">`
let server: RunningServer
let page: Page
const label = `pages browser ${Date.now()}`
const alice = makeAgent(`${label} alice`)
const bob = makeAgent(`${label} bob`)

const entry = async (agent: TestAgent, type: string, payload: Record<string, unknown>, body: Uint8Array | null = null) => {
  const sent = await sendEntry(server, ORIGIN, "/v2/entries", agent, type, payload, body)
  expect(sent.status, JSON.stringify(sent.json.entry)).toBe(202)
  return sent.index
}
const post = (agent: TestAgent, text: string, channel: string) => {
  const p = postPayload(text, channel)
  return entry(agent, "post", p.payload, p.body)
}
const postTexts = () => page.locator("article.post p.text").allTextContents()

const { needBrowser } = pagesForFile(async (started) => {
  server = started.server
  page = started.page
  await entry(alice, "claim", claimPayload("alice", alice))
  await entry(bob, "claim", claimPayload("bob", bob))
  await post(alice, "hello from alice", "general")
  await post(bob, HOSTILE, "random")
})

describe("the agora page", () => {
  it("shows the posts written through the API, the hostile one as text that runs nothing", async () => {
    needBrowser()
    const response = await page.goto(`${server.baseUrl}/agora`)
    expect(response?.status()).toBe(200)
    expect(await page.title()).toBe("Agora")
    expect(await postTexts()).toEqual([HOSTILE, "hello from alice"])
    expect(await page.locator("script").count()).toBe(0)
    expect(await page.locator("main img").count()).toBe(0)
    // Whatever could run has had its chance once the page (and any image) has loaded.
    await page.waitForLoadState("load")
    expect(await page.evaluate(() => (globalThis as { __owned?: number }).__owned)).toBeUndefined()
    expect(await page.locator("article.post strong").allTextContents()).toEqual(["bob", "alice"])

    // The pages forbid scripts by policy as well (Content-Security-Policy).
    expect(response?.headers()["content-security-policy"]).toContain("default-src 'none'")
    // The control: the same text as raw markup does run in this browser (on a blank page,
    // outside the pages' policy).
    await page.goto("about:blank")
    await page.setContent(`<p>${HOSTILE}</p>`)
    await page.waitForFunction(() => (globalThis as { __owned?: number }).__owned !== undefined)
  })

  it("filters by channel, by its link and by the form", async () => {
    needBrowser()
    await page.goto(`${server.baseUrl}/agora`)
    await page.locator("p.channels").getByRole("link", { name: "#random" }).click()
    await page.waitForURL(/\/agora\?channel=random$/)
    expect(await page.locator("h2").first().textContent()).toBe("Posts in #random")
    expect(await postTexts()).toEqual([HOSTILE])

    await page.fill("input[name=channel]", "general")
    await page.getByRole("button", { name: "Show" }).click()
    await page.waitForURL(/\/agora\?channel=general$/)
    expect(await postTexts()).toEqual(["hello from alice"])

    await page.getByRole("link", { name: "all", exact: true }).click()
    await page.waitForURL(/\/agora$/)
    expect(await postTexts()).toHaveLength(2)
  })
})

describe("navigation", () => {
  it("leads from the agora to the directory, online, stats and tasks pages, each showing the log's data", async () => {
    needBrowser()
    await page.goto(`${server.baseUrl}/agora`)
    const nav = page.getByRole("navigation", { name: "pages" })

    await nav.getByRole("link", { name: "directory" }).click()
    await page.waitForURL(/\/directory$/)
    expect(await page.locator("tr.name td:first-child").allTextContents()).toEqual(["alice", "bob"])
    expect(await page.locator("tr.name td:nth-child(3)").allTextContents()).toEqual([alice.kid, bob.kid])
    await page.fill("input[name=q]", "ali")
    await page.getByRole("button", { name: "Search" }).click()
    await page.waitForURL(/\/directory\?q=ali$/)
    expect(await page.locator("tr.name td:first-child").allTextContents()).toEqual(["alice"])

    await nav.getByRole("link", { name: "online" }).click()
    await page.waitForURL(/\/online$/)
    expect(await page.locator("tr.agent td:first-child").allTextContents()).toEqual(["bob", "alice"])
    expect(await page.locator("strong.count").textContent()).toBe("2")
    await page.getByRole("link", { name: "24 hours" }).click()
    await page.waitForURL(/\/online\?window=86400$/)
    expect(await page.locator("tr.agent").count()).toBe(2)

    await nav.getByRole("link", { name: "stats" }).click()
    await page.waitForURL(/\/stats$/)
    expect(await page.locator("strong.status").textContent()).toBe("OK")
    // Counts are cached for a few seconds: reload until the posts written above show.
    for (let i = 0; i < 30 && (await page.locator("#usage-agora_posts").textContent()) !== "2"; i++) {
      await page.waitForTimeout(500)
      await page.reload()
    }
    expect(await page.locator("#usage-agora_posts").textContent()).toBe("2")
    expect(await page.locator("#usage-registered_agents").textContent()).toBe("2")
    expect(Number(await page.locator("#tree-size").textContent())).toBeGreaterThanOrEqual(5)

    await nav.getByRole("link", { name: "tasks" }).click()
    await page.waitForURL(/\/tasks$/)
    expect(await page.locator("main").textContent()).toContain("No tasks yet.")

    await page.getByRole("link", { name: "JSON", exact: true }).click()
    await page.waitForURL(/\/tasks\?format=json$/)
    expect(JSON.parse(await page.locator("body").innerText())).toMatchObject({ tasks: [], truncated: false })
  })
})

describe("what a browser walk of the pages meets", () => {
  it("a failed page request shows an HTML error page with the way home, not a problem document", async () => {
    needBrowser()
    const response = await page.goto(`${server.baseUrl}/agora/posts/999999`)
    expect(response?.status()).toBe(404)
    expect(response?.headers()["content-type"]).toBe("text/html; charset=utf-8")
    expect(await page.title()).toBe("Post not found")
    expect(await page.locator("p.problem-detail").textContent()).toBe("leaf 999999 is not a post")
    await page.getByRole("link", { name: "Go to the home page" }).click()
    await page.waitForURL(`${server.baseUrl}/`)
    expect(await page.locator("h1").count()).toBe(1)

    const invalid = await page.goto(`${server.baseUrl}/online?window=5`)
    expect(invalid?.status()).toBe(422)
    expect(await page.title()).toBe("Invalid parameters")
    expect(await page.locator("ul.problem-errors li").allTextContents()).toEqual([expect.stringMatching(/^window: /)])
  })

  it("pages come gzipped with a validator, and the icon answers without an error on the console", async () => {
    needBrowser()
    const failures: Array<string> = []
    const onConsole = (message: { type(): string; text(): string }) => {
      if (message.type() === "error") failures.push(message.text())
    }
    const onResponse = (answer: { status(): number; url(): string }) => {
      if (answer.status() >= 400) failures.push(`${answer.status()} ${answer.url()}`)
    }
    page.on("console", onConsole)
    page.on("response", onResponse)
    try {
      const agora = await page.goto(`${server.baseUrl}/agora`)
      expect(agora?.headers()["content-encoding"]).toBe("gzip")
      expect(agora?.headers()["etag"]).toMatch(/^"[A-Za-z0-9_-]{22}-gzip"$/)
      expect(await page.locator('link[rel="icon"]').getAttribute("href")).toBe("/favicon.svg")
      for (const [path, type] of [["/favicon.svg", "image/svg+xml"], ["/favicon.ico", "image/x-icon"]] as const) {
        const icon = await page.goto(`${server.baseUrl}${path}`)
        expect(icon?.status(), path).toBe(200)
        expect(icon?.headers()["content-type"], path).toBe(type)
      }
      // A JSON answer in a tab names no icon: the browser asks /favicon.ico for it, which answers.
      await page.goto(`${server.baseUrl}/v2/agora/posts`)
      await page.waitForLoadState("load")
    } finally {
      page.off("console", onConsole)
      page.off("response", onResponse)
    }
    expect(failures).toEqual([])
  })

  it("titles /online and /directory by their parameters, and shows a guidance page's nested list inside its item", async () => {
    needBrowser()
    await page.goto(`${server.baseUrl}/online?window=3600`)
    expect(await page.title()).toBe("Online in the last hour")
    await page.goto(`${server.baseUrl}/directory?q=ali`)
    expect(await page.title()).toBe("Directory: names matching “ali”")
    await page.goto(`${server.baseUrl}/sandbox-network`)
    expect(await page.locator("main > ol > li > ul > li code:first-child").allTextContents())
      .toEqual(["signature_clock", "authority_not_allowed", "nonce_invalid"])
  })
})
