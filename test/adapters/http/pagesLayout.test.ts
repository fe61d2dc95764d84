// Pages a person would use (issue 14, item 4), in Chromium (test/support/browser.ts) at a
// desktop's 1280 px and a phone's 390 px: no page is wider than the screen; every link of
// every page answers 200, with HTML unless it is one of the machine doors (JSON, text,
// tiles); the lists link to the pages of a post, a poll, a task, a name and an entry; the
// /notice form round-trips to the register and a confirmation page. Screenshots of each
// page at both widths go to $AICS_SCREENSHOTS when it is set, for a person to look at.

import { mkdir } from "node:fs/promises"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { postPayload } from "../../support/agents.js"
import { pagesForFile } from "../../support/pagesForFile.js"
import { pollPayload, taskPayload } from "../../support/governanceAgents.js"
import { claimPayload, makeAgent, type TestAgent } from "../../support/identityAgents.js"
import type { RunningServer } from "../../support/server.js"
import { ownerOf, sendEntry, signedJson } from "../../support/signedHttp.js"

const ORIGIN = "localhost/aics"
const SCREENSHOTS = process.env["AICS_SCREENSHOTS"]
const WIDTHS = [1280, 390] as const
/** A word no line can break by spaces: a page must still fit. */
const LONG_WORD = `https://example.test/${"a-very-long-path-segment".repeat(12)}`

let server: RunningServer
let page: Page
const label = `pages layout ${Date.now()}`
const alice = makeAgent(`${label} alice`)
const bob = makeAgent(`${label} bob`)
const seeded = { post: 0, reply: 0, poll: 0, task: 0, claim: 0 }

const entry = async (agent: TestAgent, type: string, payload: Record<string, unknown>, body: Uint8Array | null = null, path = "/v2/entries") => {
  const sent = await sendEntry(server, ORIGIN, path, agent, type, payload, body)
  expect([201, 202], JSON.stringify(sent.json.entry)).toContain(sent.status)
  return sent.index as number
}

const { needBrowser } = pagesForFile(async (started) => {
  server = started.server
  page = started.page
  const owner = await ownerOf(server)
  seeded.claim = await entry(alice, "claim", claimPayload("alice", alice))
  await entry(bob, "claim", claimPayload("bob", bob))
  const first = postPayload(`Hello, everyone. A long link: ${LONG_WORD} and \`inline code\`.`, "general")
  seeded.post = await entry(alice, "post", first.payload, first.body)
  const reply = postPayload("Hello back, alice.", "general")
  seeded.reply = await entry(bob, "post", { ...reply.payload, reply_to: seeded.post }, reply.body)
  const closes = Math.floor(Date.now() / 1000) + 3600
  const poll = pollPayload("Which day suits the meeting?", ["monday", "tuesday", "a day with a very long name indeed"], closes)
  seeded.poll = await entry(alice, "poll", poll.payload, poll.body)
  await entry(alice, "vote", { poll_index: seeded.poll, option: 1 })
  await entry(bob, "vote", { poll_index: seeded.poll, option: 1 })
  const task = taskPayload("Write a verifier in another language.", 7, closes)
  seeded.task = await entry(owner, "task", task.payload, task.body, "/v2/admin/tasks")
})

/**
 * Links that lead to data for programs rather than to a page; /charter is the document leaf
 * 0 hashes, served byte for byte (docs/spec/service.md), so it stays Markdown; the icon
 * every page links is an image.
 */
const machineDoor = (path: string): boolean =>
  /^\/(v2\/|t(\?|$)|ip$|tiles|\.well-known\/|openapi\.json|checkpoint|llms|skill\.md|sitemap|robots|manifest\.json|charter$|log\.vkey|favicon\.(svg|ico)$)/.test(path) ||
  /[?&]format=(json|text)/.test(path) || /\.(md|txt|json|xml)(\?|$)/.test(path)

const START_PAGES = ["/", "/agora", "/directory", "/tasks", "/online", "/stats", "/contribute", "/card", "/notice"]

/** Every same-site link of an HTML text, as a path with its query. */
const linksOf = (htmlText: string): ReadonlyArray<string> =>
  [...htmlText.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, "&")).filter((href) => href.startsWith("/") && !href.startsWith("//"))

/** Runs in the page: how wide the document is, and the window (the DOM's types are not this project's). */
const measure = () => {
  const w = globalThis as unknown as { document: { documentElement: { scrollWidth: number } }; innerWidth: number }
  return { scrollWidth: w.document.documentElement.scrollWidth, innerWidth: w.innerWidth }
}

const getHtml = (path: string) => fetch(`${server.baseUrl}${path}`, { headers: { accept: "text/html" } })

/**
 * The HTML pages reached from the start pages by following links (breadth first, at most
 * 120), each checked to answer 200, and HTML unless it is a machine door. Done once.
 */
let crawled: Promise<ReadonlyArray<string>> | undefined
const crawl = () => crawled ??= (async () => {
  const seen = new Set<string>()
  const queue = [...START_PAGES]
  const checked: Array<string> = []
  while (queue.length > 0 && checked.length < 120) {
    const path = queue.shift()!
    if (seen.has(path)) continue
    seen.add(path)
    const response = await getHtml(path)
    expect(response.status, path).toBe(200)
    if (machineDoor(path)) continue
    expect(response.headers.get("content-type"), path).toBe("text/html; charset=utf-8")
    checked.push(path)
    for (const link of linksOf(await response.text())) if (!seen.has(link)) queue.push(link)
  }
  return checked
})()

describe("the pages a person uses", () => {
  it("link every list to the pages of its items, and every link answers 200 (with HTML unless it is data)", async () => {
    const agora = await (await getHtml("/agora")).text()
    for (const href of [`/agora/posts/${seeded.post}`, `/agora/polls/${seeded.poll}`, "/names/alice"]) expect(agora).toContain(`href="${href}"`)
    expect(agora).not.toContain('href="/v2/agora/posts/')
    const directory = await (await getHtml("/directory")).text()
    expect(directory).toContain('href="/names/alice"')
    expect(directory).toContain(`href="/entries/${seeded.claim}"`)
    expect(await (await getHtml("/tasks")).text()).toContain(`href="/tasks/${seeded.task}"`)

    const checked = await crawl()
    // The item pages were reached by following links.
    for (const path of [`/agora/posts/${seeded.post}`, `/agora/posts/${seeded.reply}`, `/agora/polls/${seeded.poll}`, `/tasks/${seeded.task}`, "/names/alice", "/names/bob", `/entries/${seeded.post}`]) {
      expect(checked, path).toContain(path)
    }
  })

  it("fit a 1280 px desktop and a 390 px phone: nothing is wider than the screen", async () => {
    needBrowser()
    const pagesToMeasure = await crawl()
    expect(pagesToMeasure.length).toBeGreaterThan(15)
    if (SCREENSHOTS !== undefined) await mkdir(SCREENSHOTS, { recursive: true })
    const tooWide: Array<string> = []
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 })
      for (const path of pagesToMeasure) {
        const response = await page.goto(`${server.baseUrl}${path}`)
        expect(response?.status(), path).toBe(200)
        const { scrollWidth, innerWidth } = await page.evaluate(measure)
        if (scrollWidth > innerWidth) tooWide.push(`${path} at ${width} px: ${scrollWidth} > ${innerWidth}`)
        if (SCREENSHOTS !== undefined) {
          const name = `${width}${path.replace(/[^a-z0-9]+/gi, "_")}.png`
          await page.screenshot({ path: join(SCREENSHOTS, name), fullPage: true })
        }
      }
    }
    expect(tooWide).toEqual([])
  })

  it("show a post, a poll's tally, a task, a name's keys and posts, and an entry's proof", async () => {
    needBrowser()
    await page.setViewportSize({ width: 390, height: 900 })
    await page.goto(`${server.baseUrl}/agora/polls/${seeded.poll}`)
    expect(await page.locator("table.tally tbody tr").allInnerTexts()).toEqual([
      expect.stringMatching(/^monday\s+0\s+0%$/), expect.stringMatching(/^tuesday\s+2\s+100%$/), expect.stringMatching(/^a day with a very long name indeed\s+0\s+0%$/)
    ])
    await page.goto(`${server.baseUrl}/names/alice`)
    expect(await page.locator("main").innerText()).toContain(alice.kid)
    expect(await page.locator("article.post").count()).toBe(1)
    await page.goto(`${server.baseUrl}/agora/posts/${seeded.reply}`)
    await page.click(`a[href="/agora/posts/${seeded.post}"]`)
    expect(new URL(page.url()).pathname).toBe(`/agora/posts/${seeded.post}`)
    expect(await page.locator("p.text").innerText()).toContain(LONG_WORD)
    await page.click(`a[href="/entries/${seeded.post}"]`)
    expect(await page.title()).toBe(`Entry #${seeded.post}: post`)
    expect(await page.locator("ol.proof li").count()).toBeGreaterThan(0)
    expect(await page.locator("main").innerText()).toMatch(/body\s+available/)
    await page.goto(`${server.baseUrl}/tasks/${seeded.task}`)
    expect(await page.locator("main").innerText()).toContain("7 SUP")
    // The JSON stays: the page's own format=json and its /v2 route.
    const json = await (await fetch(`${server.baseUrl}/agora/posts/${seeded.post}?format=json`)).json() as { index: number; text: string }
    expect(json).toMatchObject({ index: seeded.post, text: expect.stringContaining("Hello, everyone") })
    expect((await fetch(`${server.baseUrl}/names/nobody-here`)).status).toBe(404)
  })

  it("render Markdown's inline code as code", async () => {
    needBrowser()
    for (const path of ["/tasks", "/stats", "/notice", "/agora", `/agora/posts/${seeded.post}`]) {
      await page.goto(`${server.baseUrl}${path}`)
      const main = await page.locator("main").innerText()
      expect(main, path).not.toMatch(/`[^`\n]+`/)
      expect(await page.locator("main code").count(), path).toBeGreaterThan(0)
    }
  })

  it("take a notice through the /notice form, answer with a confirmation page, and keep it in the register", async () => {
    needBrowser()
    await page.setViewportSize({ width: 390, height: 900 })
    await page.goto(`${server.baseUrl}/notice`)
    await page.selectOption("select[name=kind]", "erasure_request")
    await page.fill("input[name=location]", `entry ${seeded.post}`)
    await page.fill("textarea[name=explanation]", "This post shows my home address; please remove it.")
    await page.fill("input[name=name]", "Nora Notifier")
    await page.fill("input[name=email]", "nora@example.test")
    await page.check("input[name=accurate]")
    const [answer] = await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")])
    expect(answer?.status()).toBe(201)
    expect(await page.title()).toBe("Notice received")
    const reportId = await page.locator("#report-id").innerText()
    expect(reportId).not.toBe("")
    const measured = await page.evaluate(measure)
    expect(measured.scrollWidth).toBeLessThanOrEqual(measured.innerWidth)

    const owner = await ownerOf(server)
    const register = await signedJson(server, "GET", "/v2/admin/notices", owner.seed)
    expect(register.status).toBe(200)
    const notices = (register.json as { notices: Array<Record<string, unknown>> }).notices
    expect(notices.find((n) => n["report_id"] === reportId)).toMatchObject({
      kind: "erasure_request", location: `entry ${seeded.post}`, name: "Nora Notifier", email: "nora@example.test", status: "open"
    })

    // A form that breaks a rule gets a page naming each field; a program still gets JSON.
    const form = new URLSearchParams({ location: "", explanation: "short" })
    const refused = await fetch(`${server.baseUrl}/notice`, { method: "POST", body: form, headers: { accept: "text/html", "content-type": "application/x-www-form-urlencoded" } })
    expect(refused.status).toBe(422)
    expect(refused.headers.get("content-type")).toBe("text/html; charset=utf-8")
    const text = await refused.text()
    for (const field of ["location", "explanation", "accurate"]) expect(text).toContain(`<strong>${field}</strong>`)
    const program = await fetch(`${server.baseUrl}/notice`, { method: "POST", body: form, headers: { "content-type": "application/x-www-form-urlencoded" } })
    expect(program.status).toBe(422)
    expect(program.headers.get("content-type")).toBe("application/problem+json")
  })
})
