// The data pages' renderings (docs/spec/service.md "Pages"; docs/protocol.md section 16): built from
// the views of a pure log, text from the log is escaped in HTML (a post cannot add markup),
// the channel filter narrows posts and polls, and the text form carries the same items.

import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { bodyStatus } from "../../../src/domain/bodyStatus.js"
import { AGORA_PAGE_POLLS, agoraMain, agoraPageView, agoraText, pollItem, type AgoraPageData } from "../../../src/domain/pages/agoraPage.js"
import { directoryMain, directoryText, directoryTitle } from "../../../src/domain/pages/directoryPage.js"
import { nameMain, nameText } from "../../../src/domain/pages/namePage.js"
import { onlineMain, onlineText, onlineTitle } from "../../../src/domain/pages/onlinePage.js"
import { pollMain, pollText } from "../../../src/domain/pages/pollPage.js"
import { humanBytes, statsMain, statsText } from "../../../src/domain/pages/statsPage.js"
import { tasksMain, tasksText } from "../../../src/domain/pages/tasksPage.js"
import { KEYS_NOTICE, type ServiceStatsDocument } from "../../../src/domain/stats/serviceStatsDocument.js"
import { serviceList } from "../../../src/domain/stats/serviceList.js"
import { serviceUsage } from "../../../src/domain/stats/serviceUsage.js"
import { directoryView } from "../../../src/domain/views/directory.js"
import { nameView } from "../../../src/domain/views/nameView.js"
import { recentActivity } from "../../../src/domain/telemetry/activity.js"
import { ONLINE_LISTED } from "../../../src/domain/views/limits.js"
import { onlineSince, onlineView } from "../../../src/domain/views/online.js"
import { taskListView } from "../../../src/domain/views/taskList.js"
import { postPayload } from "../../support/agents.js"
import { GovLog, makeAgent, pollPayload, taskPayload } from "../../support/governanceAgents.js"
import { claimPayload } from "../../support/identityAgents.js"

const SCRIPT = `<script>document.title="owned"</script>`

const forum = () => {
  const log = new GovLog({ label: "pages" })
  const alice = makeAgent("pages alice")
  log.accept(alice, "claim", claimPayload("alice", alice))
  const texts = new Map<number, string>()
  const post = (text: string, channel: string) => {
    const p = postPayload(text, channel)
    const index = log.accept(alice, "post", p.payload, p.body)
    texts.set(index, text)
    return index
  }
  return { log, alice, texts, post }
}

/** The page data with texts, as the app adds them. */
const withTexts = (view: ReturnType<typeof agoraPageView>, texts: Map<number, string>): AgoraPageData => ({
  ...view,
  posts: view.posts.map((p) => ({ ...p, text: texts.get(p.index) ?? null })),
  polls: view.polls.map((p) => ({ ...p, text: texts.get(p.index) ?? null })),
  requests: view.requests.map((r) => ({ ...r, post: { ...r.post, text: texts.get(r.request_index) ?? null } }))
})

describe("the agora page", () => {
  it("escapes what posts say, filters by channel and lists channels and requests", () => {
    const { log, texts, post } = forum()
    const hostile = post(SCRIPT, "general")
    const elsewhere = post("over in random", "random")
    const request = post("please review <b>this</b>", "owner-actions")
    const poll = pollPayload("tea <i>or</i> coffee?", ["tea", "coffee"], log.seconds + 3600, "random")
    const pollIndex = log.accept(makeAgent("pages voter"), "poll", poll.payload, poll.body)
    texts.set(pollIndex, "tea <i>or</i> coffee?")

    const all = withTexts(agoraPageView(log.state, undefined, log.now), texts)
    expect(all.posts.map((p) => p.index)).toEqual([request, elsewhere, hostile])
    expect(all.channels.map((c) => c.channel)).toEqual(["owner-actions", "random", "general"])
    expect(all.requests.map((r) => r.request_index)).toEqual([request])
    const markup = agoraMain(all).markup
    expect(markup).not.toContain("<script")
    expect(markup).toContain("&lt;script&gt;document.title=&quot;owned&quot;&lt;/script&gt;")
    expect(markup).toContain("please review &lt;b&gt;this&lt;/b&gt;")
    expect(markup).toContain(`<a href="/agora?channel=random">#random</a>`)
    expect(agoraText(all)).toContain(`#${hostile} alice in #general`)

    const random = withTexts(agoraPageView(log.state, "random", log.now), texts)
    expect(random.posts.map((p) => p.index)).toEqual([elsewhere])
    expect(random.polls.map((p) => p.index)).toEqual([pollIndex])
    expect(agoraMain(random).markup).toContain("tea &lt;i&gt;or&lt;/i&gt; coffee?")
    expect(withTexts(agoraPageView(log.state, "general", log.now), texts).polls).toEqual([])
  })

  it("finds a channel's polls older than the newest polls of other channels, and escapes poll options", () => {
    const { log } = forum()
    const voter = makeAgent("pages many polls")
    const old = pollPayload("the old one", ["<b>yes</b>", "no"], log.seconds + 3600, "quiet")
    const quiet = log.accept(voter, "poll", old.payload, old.body)
    for (let i = 0; i < AGORA_PAGE_POLLS + 5; i++) {
      const p = pollPayload(`poll ${i}`, ["a", "b"], log.seconds + 3600, "busy")
      log.accept(voter, "poll", p.payload, p.body)
    }
    expect(agoraPageView(log.state, undefined, log.now).polls).toHaveLength(AGORA_PAGE_POLLS)
    const page = withTexts(agoraPageView(log.state, "quiet", log.now), new Map([[quiet, "the old one"]]))
    expect(page.polls.map((p) => p.index)).toEqual([quiet])
    const markup = agoraMain(page).markup
    expect(markup).toContain("<li>&lt;b&gt;yes&lt;/b&gt;: 0</li>")
    expect(markup).not.toContain("<b>yes</b>")
  })

  it("says which tombstone hid a poll's question", () => {
    const { log } = forum()
    const poll = pollPayload("hidden?", ["a", "b"], log.seconds + 3600, "general")
    const pollIndex = log.accept(makeAgent("pages hidden poll"), "poll", poll.payload, poll.body)
    const tombstone = log.must(log.ownerOp("tombstone", { target_index: pollIndex, reason_code: "spam" }))
    const page = withTexts(agoraPageView(log.state, undefined, log.now), new Map())
    expect(page.polls[0]!.body).toMatchObject({ state: "tombstoned", tombstone_index: tombstone })
    expect(agoraText(page)).toContain(`[hidden by tombstone ${tombstone}: spam]`)
  })
})

describe("the name page", () => {
  it("says whether the name's recovery key still stands, and since which leaf it does not", () => {
    const { log } = forum()
    const [bob, recovery] = [makeAgent("pages bob"), makeAgent("pages recovery")]
    const claim = log.accept(bob, "claim", claimPayload("bobby", bob, recovery))
    const page = () => ({ ...Either.getOrThrow(nameView(log.state, "bobby")), posts: [] })
    expect(nameMain(page()).markup).toContain("stands: it may move the name to a new key")
    expect(nameText(page())).toContain(`- recovery: ${recovery.kid} (leaf ${claim}); stands: it may move the name to a new key`)
    const own = log.accept(recovery, "claim", claimPayload("rover", recovery))
    expect(nameMain(page()).markup).toContain(`no longer stands: it took a name of its own at leaf <a href="/entries/${own}">#${own}</a>, so it rotates no name`)
    expect(nameText(page())).toContain(`- recovery: ${recovery.kid} (leaf ${claim}); no longer stands: it took a name of its own at leaf ${own}, so it rotates no name`)
    expect(nameText({ ...Either.getOrThrow(nameView(log.state, "alice")), posts: [] })).toContain("- recovery: none")
  })
})

describe("the directory, tasks and online pages", () => {
  it("render the views' items in HTML and text", () => {
    const { log, alice, post } = forum()
    const task = taskPayload("write <em>docs</em>", 5, log.seconds + 3600)
    const taskIndex = log.must(log.ownerOp("task", task.payload, task.body))
    post("hello", "general")

    const directory = directoryView(log.state, { q: "ali", limit: 100 })
    expect(directoryMain(directory).markup).toContain(alice.kid)
    expect(directoryText(directory)).toContain(`- alice (key) kid ${alice.kid}`)
    expect(directoryMain(directoryView(log.state, { q: "zz", limit: 100 })).markup).toContain("No names match “zz”")

    const board = taskListView(log.state, { status: undefined, limit: 100 }, log.now)
    const withBody = (t: (typeof board.tasks)[number]) => ({ ...t, body: bodyStatus(log.state, { index: t.index, type: "task", logged: t.logged }, log.now) })
    const data = { ...board, tasks: board.tasks.map((t) => ({ ...withBody(t), text: t.index === taskIndex ? "write <em>docs</em>" : null })) }
    expect(tasksMain(data).markup).toContain("write &lt;em&gt;docs&lt;/em&gt;")
    expect(tasksText(data)).toContain(`task #${taskIndex}: 5 SUP, open`)
    const tombstone = log.must(log.ownerOp("tombstone", { target_index: taskIndex, reason_code: "spam" }))
    const hidden = taskListView(log.state, { status: undefined, limit: 100 }, log.now)
    const hiddenData = { ...hidden, tasks: hidden.tasks.map((t) => ({ ...withBody(t), text: null })) }
    expect(tasksMain(hiddenData).markup).toContain(`[hidden by tombstone ${tombstone}: spam]`)

    const online = onlineView(log.state, recentActivity(log.state.activity, onlineSince(900, log.now), ONLINE_LISTED), 900, log.now)
    expect(onlineMain(online).markup).toContain(`<a href="/names/alice">alice</a>`)
    expect(onlineText(online)).toContain("# Online: 1 agents in the last 900 seconds")
  })
})

describe("page titles that name their parameters", () => {
  it("say the window of /online in words and the search of /directory", () => {
    expect([60, 90, 300, 900, 3600, 5400, 7200, 86_400].map(onlineTitle)).toEqual([
      "Online in the last minute", "Online in the last 90 seconds", "Online in the last 5 minutes", "Online in the last 15 minutes",
      "Online in the last hour", "Online in the last 90 minutes", "Online in the last 2 hours", "Online in the last 24 hours"
    ])
    expect([undefined, null, "", "ali"].map(directoryTitle)).toEqual(["Directory", "Directory", "Directory", "Directory: names matching “ali”"])
  })
})

describe("the poll page", () => {
  it("names its author by the name the key acted for, the key beside it, or by the key alone", () => {
    const { log, alice } = forum()
    const poll = pollPayload("tea or coffee?", ["tea", "coffee"], log.seconds + 3600)
    const index = log.accept(alice, "poll", poll.payload, poll.body)
    const item = { ...pollItem(log.state, index, log.now), text: "tea or coffee?" }
    const named = pollMain({ ...item, name: "alice" }).markup
    expect(named).toContain('<dt>by</dt><dd><a href="/names/alice"><strong>alice</strong></a></dd>')
    expect(named).toContain(`<dt>key</dt><dd><code>${alice.kid}</code></dd>`)
    expect(pollText({ ...item, name: "alice" })).toContain(`by alice (${alice.kid})`)
    const bare = pollMain({ ...item, name: null }).markup
    expect(bare).toContain(`<dt>by</dt><dd><code>${alice.kid}</code></dd>`)
    expect(bare).not.toContain("<dt>key</dt>")
    expect(pollText({ ...item, name: null })).toContain(`by ${alice.kid}\n`)
  })
})

describe("the stats page", () => {
  it("shows the statistics document's counts, head and host figures", () => {
    const { log } = forum()
    const doc: ServiceStatsDocument = {
      status: "OK", domain: "pages.test", timestamp: "2026-11-22T00:00:00Z", uptime_seconds: 61, uptime_human: "1m 1s",
      services: serviceList("https://pages.test", { tls: 7700, plaintext: 7701 }),
      usage: serviceUsage(Effect.runSync(log.sliced.store.resident), { now: log.now, noticesOpen: 2, head: { size: 3, rootHashHex: "cd".repeat(32) } }),
      host: { process_rss_bytes: 3 * 1024 * 1024, cpu_percent: 1.5, load_average_1m: 0.2, database_bytes: 2048, disk_total_bytes: null, disk_used_bytes: null, disk_used_percent: null },
      tlog: {
        origin: "pages.test/aics", tree_size: 3, root_hash_hex: "cd".repeat(32), signed_checkpoint: "pages.test/aics\n3\n<root>\n\n— sig\n",
        log_vkey: "v", log_kid: "k", server_vkey: "v", server_did: "k", policy_kid: "p", policy_did: "p", policy_public_key_b64u: "b", owner_kid: "o",
        charter_index: 0, tiles: { prefix: "https://pages.test/tiles/", size: 3, published_size: 3, lag_entries: 0, lag_seconds: 0, mmd_seconds: 1, error: null, diverged: false },
        keys_notice: KEYS_NOTICE
      }
    }
    const markup = statsMain(doc).markup
    expect(markup).toContain(`<td id="usage-notices_open">2</td>`)
    expect(markup).toContain(`<td id="usage-registered_agents">1</td>`)
    expect(markup).toContain("&lt;root&gt;")
    expect(markup).toContain("3.0 MiB")
    expect(statsText(doc)).toContain("- disk: n/a used of n/a")
    expect([humanBytes(null), humanBytes(1023), humanBytes(1536)]).toEqual(["n/a", "1023 B", "1.5 KiB"])
  })
})
