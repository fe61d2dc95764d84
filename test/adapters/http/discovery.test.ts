// The discovery documents, /ip, / and the static pages through the real server: content
// types, the endpoint list against /openapi.json, the sitemaps' URLs, security.txt, the
// checkpoint on /, the card's bytes at /card, escaping, links, the format parameter, and
// the manifest's signed list against what the server actually requires.

import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { encodeU64 } from "../../../src/domain/encoding.js"
import { GuidePagesGroup } from "../../../src/adapters/http/discoveryApi.js"
import { signatureRequirement } from "../../../src/domain/http/signedRoutes.js"
import { QUESTION_PAGES } from "../../../src/domain/pages/questions.js"
import { COMMANDS } from "../../../src/client/cliUsage.js"
import { parseFrontMatter } from "../../support/frontMatter.js"
import { makeAgent } from "../../support/agents.js"
import { signatureHeaders } from "../../support/signedHttp.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

// A contribution address with markup in it: the /contribute page must show it escaped.
const NETWORKS = JSON.stringify([{ network: "testnet", asset: "TST", address: "0xab<b>cd&", units_per_sup: "1000000" }])

// Where the operator says the aics client's source is: /skill.md, /llms.txt and the manifest name it.
const CLIENT_SOURCE = "https://git.example/aics.git"

let dataDir: string
let server: RunningServer

beforeAll(async () => {
  dataDir = await tempDataDir()
  server = await startServer({ dataDir, env: { AICS_SUP_NETWORKS: NETWORKS, AICS_CLIENT_SOURCE: CLIENT_SOURCE } })
})

afterAll(async () => {
  await server?.stop()
  await removeDir(dataDir)
})

const get = (path: string, init?: RequestInit) => fetch(`${server.baseUrl}${path}`, init)
const text = async (path: string) => {
  const response = await get(path)
  expect(response.status, path).toBe(200)
  return response.text()
}

const openApi = async () => JSON.parse(await text("/openapi.json")) as { paths: Record<string, Record<string, any>>; components: Record<string, any> }

/** Whether `path` (no query) is a route of /openapi.json, a folder routes live under (`/tiles/`, `/v2`), or /openapi.json itself. */
const servedBy = (paths: ReadonlyArray<string>) => {
  const patterns = paths.map((template) =>
    new RegExp(`^${template.replace(/[.+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+").replace(/\*$/, ".+")}$`))
  return (path: string) =>
    path === "/openapi.json" || paths.includes(path) || patterns.some((p) => p.test(path)) ||
    paths.some((template) => template.startsWith(path.endsWith("/") ? path : `${path}/`))
}

/** Every path a text names: absolute URLs on this server (made paths) and `/paths` on their own. */
const pathsIn = (doc: string): ReadonlyArray<string> => {
  const found: Array<string> = []
  // A signed checkpoint (the home page's text shows one) is data, not a route: its root
  // hash and signature are base64, where "/" stands anywhere ("+/R/g..." once failed this).
  const prose = doc.replace(/^[A-Za-z0-9+/]{43}=$/gm, " ").replace(/^\u2014 \S+ [A-Za-z0-9+/]+={0,2}$/gm, " ")
  const rest = prose.replace(/https?:\/\/[^\s`'"<>)\],]+/g, (url) => {
    if (url.startsWith(`${server.baseUrl}/`) || url === server.baseUrl) found.push(decodeURI(new URL(url).pathname))
    return " "
  })
  for (const match of rest.matchAll(/(?<![\w.~/-])\/(?:[A-Za-z0-9._~{}-]+\/?)*/g)) found.push(match[0])
  return found.map((path) => path.replace(/[.,:;]+$/, "")).filter((path) => path !== "")
}

/** The `aics <command>` invocations of a text: in code, at a line's start or after a backtick. */
const commandsIn = (doc: string): ReadonlyArray<string> =>
  [...doc.matchAll(/(?:^|`)[ \t]*aics ([a-z][a-z-]*)/gm)].map((m) => m[1]!)

/** The documents an agent reads: the skill file, both llms texts and each page's Markdown. */
const agentDocuments = () => [
  "/skill.md", "/llms.txt", "/llms-full.txt", "/notice?format=text", "/contribute?format=text", "/?format=text",
  ...QUESTION_PAGES.map((page) => `${page.slug}.md`)
]

describe("discovery documents", () => {
  it("answers every route with its content type", async () => {
    const types: Record<string, string> = {
      // fetch sends Accept: */*, so / answers plain text; a browser gets HTML (below).
      "/": "text/plain; charset=utf-8",
      "/?format=html": "text/html; charset=utf-8",
      "/?format=json": "application/json",
      "/?format=text": "text/plain; charset=utf-8",
      "/llms.txt": "text/plain; charset=utf-8",
      "/llms-full.txt": "text/plain; charset=utf-8",
      "/skill.md": "text/plain; charset=utf-8",
      "/robots.txt": "text/plain; charset=utf-8",
      "/sitemap.txt": "text/plain; charset=utf-8",
      "/sitemap.xml": "application/xml; charset=utf-8",
      "/.well-known/security.txt": "text/plain; charset=utf-8",
      "/manifest.json": "application/json",
      "/.well-known/agent-protocol.json": "application/json",
      "/ip": "text/plain; charset=utf-8",
      "/card": "text/html; charset=utf-8",
      "/contribute": "text/html; charset=utf-8",
      "/notice": "text/html; charset=utf-8"
    }
    for (const page of QUESTION_PAGES) {
      types[page.slug] = "text/html; charset=utf-8"
      types[`${page.slug}.md`] = "text/markdown; charset=utf-8"
    }
    for (const [path, type] of Object.entries(types)) {
      const response = await get(path)
      expect(response.status, path).toBe(200)
      expect(response.headers.get("content-type"), path).toBe(type)
      expect((await response.text()).length, path).toBeGreaterThan(0)
    }
  })

  it("names the gate, the log, the card and the API in /llms.txt", async () => {
    const llms = await text("/llms.txt")
    expect(llms).toContain(`${server.baseUrl}/t`)
    // The test server opens no gate TCP port (both are off unless configured), so none is named.
    expect(llms).toContain("No TCP port is open on this instance")
    expect(llms).not.toMatch(/770[01]/)
    expect(llms).toContain(`${server.baseUrl}/checkpoint`)
    expect(llms).toContain(`${server.baseUrl}/tiles/`)
    expect(llms).toContain(`${server.baseUrl}/.well-known/aics-card.json`)
    expect(llms).toContain(`${server.baseUrl}/openapi.json`)
    expect(llms).toContain("_aics.localhost")
  })

  it("lists in /llms-full.txt every operation of /openapi.json with its signature requirement, after /llms.txt", async () => {
    const full = await text("/llms-full.txt")
    expect(full.startsWith(await text("/llms.txt"))).toBe(true)
    const spec = await openApi()
    const operations = Object.entries(spec.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
    expect(operations.length).toBeGreaterThan(60)
    for (const operation of operations) expect(full, operation).toMatch(new RegExp(`^- ${operation.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: `, "m"))
    expect(full).toContain("- POST /v2/entries: signed (RFC 9421, the agent's own key)")
    expect(full).toContain("- POST /v2/admin/freeze: owner-signed (RFC 9421, the owner key)")
    expect(full).toContain("- GET /v2/names/{name}: no signature")
    expect(full).toContain("- POST /notice: no signature")
  })

  it("lists absolute URLs in the sitemaps that all answer 200, the same in text and XML", async () => {
    const lines = (await text("/sitemap.txt")).split("\n").filter((line) => line !== "")
    const xml = await text("/sitemap.xml")
    expect(xml.startsWith(`<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)).toBe(true)
    const locs = [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]!.replace(/&amp;/g, "&"))
    expect(locs).toEqual(lines)
    for (const slug of ["/", "/card", "/contribute", "/notice", "/llms.txt", "/skill.md", ...QUESTION_PAGES.flatMap((p) => [p.slug, `${p.slug}.md`])]) {
      expect(lines, slug).toContain(`${server.baseUrl}${slug}`)
    }
    for (const url of lines) {
      expect(url.startsWith(`${server.baseUrl}/`), url).toBe(true)
      expect((await fetch(url)).status, url).toBe(200)
    }
  })

  it("keeps crawlers off the owner routes, gate sessions, tiles and bodies, and points to the sitemap", async () => {
    const robots = await text("/robots.txt")
    expect(robots).toMatch(/^User-agent: \*$/m)
    for (const rule of ["Disallow: /v2/admin/", "Disallow: /t$", "Disallow: /t?", "Disallow: /tiles/tile/", "Disallow: /v2/bodies/"]) expect(robots).toContain(rule)
    expect(robots).not.toMatch(/^Disallow: \/t$/m)
    expect(robots).toContain(`Sitemap: ${server.baseUrl}/sitemap.xml`)
  })

  it("serves an RFC 9116 security.txt with a Contact and a future Expires under a year away", async () => {
    const security = await text("/.well-known/security.txt")
    const fields = new Map<string, Array<string>>()
    for (const line of security.split("\n")) {
      const field = line.match(/^([A-Za-z-]+): (.+)$/)
      if (field !== null) fields.set(field[1]!, [...(fields.get(field[1]!) ?? []), field[2]!])
    }
    // The test server's public URL is plain http: no https URI exists for Canonical or
    // Policy (RFC 9116 2.5), and the contact is the notice page (no AICS_SECURITY_CONTACT).
    expect(fields.get("Contact")).toEqual([`${server.baseUrl}/notice`])
    expect(fields.get("Canonical")).toBeUndefined()
    expect(fields.get("Policy")).toBeUndefined()
    expect(security).toContain(`# Policy (http): ${server.baseUrl}/charter`)
    const expires = fields.get("Expires")!
    expect(expires).toHaveLength(1)
    expect(expires[0]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
    const when = Date.parse(expires[0]!)
    expect(when).toBeGreaterThan(Date.now())
    expect(when).toBeLessThan(Date.now() + 365 * 86_400_000)
    expect(await text("/notice?format=text")).toContain("## Report a vulnerability")
  })

  it("answers /ip with the caller's address and a pointer to /llms.txt, a local proxy's X-Forwarded-For believed", async () => {
    expect(await text("/ip")).toBe(`127.0.0.1\nWhat this is: ${server.baseUrl}/llms.txt\n`)
    // The test's connection comes from this machine, as a local reverse proxy's would.
    const proxied = await (await get("/ip", { headers: { "x-forwarded-for": "198.51.100.9, 203.0.113.7" } })).text()
    expect(proxied.split("\n")[0]).toBe("203.0.113.7")
    for (const bogus of ["cafe", "1.2.3", "::::", "fe80::1%eth0", "<b>"]) {
      expect((await (await get("/ip", { headers: { "x-forwarded-for": bogus } })).text()).split("\n")[0], bogus).toBe("127.0.0.1")
    }
    expect((await (await get("/ip", { headers: { "x-forwarded-for": "2001:db8::7" } })).text()).split("\n")[0]).toBe("2001:db8::7")
    expect((await get("/ip")).headers.get("cache-control")).toBe("private, no-store")
  })

  it("shows the current signed checkpoint on / in every format", async () => {
    const checkpoint = await text("/checkpoint")
    expect(checkpoint).toMatch(/^localhost\/aics\n\d+\n/)
    const home = await (await get("/?format=json")).json() as { banner: string; links: Array<{ href: string; label: string }>; checkpoint: string }
    expect(Object.keys(home).sort()).toEqual(["banner", "checkpoint", "links"])
    expect(home.checkpoint).toBe(checkpoint)
    expect(home.banner).toContain("AICS-1 at localhost")
    expect(home.links.map((l) => l.href)).toContain(`${server.baseUrl}/llms.txt`)
    expect(await text("/?format=text")).toContain(checkpoint)
    expect(await text("/")).toContain(checkpoint)
  })

  it("answers / in HTML to a browser and in plain text to a client that does not ask for HTML", async () => {
    const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    for (const [accept, type] of [
      [browser, "text/html; charset=utf-8"],
      ["text/html", "text/html; charset=utf-8"],
      ["*/*", "text/plain; charset=utf-8"],
      ["text/plain", "text/plain; charset=utf-8"],
      ["application/json", "text/plain; charset=utf-8"],
      // The weights count (RFC 9110 12.5.1): text/html named with a lower weight loses.
      ["text/html;q=0.1, text/plain", "text/plain; charset=utf-8"],
      ["text/html;q=0", "text/plain; charset=utf-8"],
      ["text/plain;q=0.5, text/html", "text/html; charset=utf-8"]
    ] as const) {
      const response = await get("/", { headers: { accept } })
      expect(response.headers.get("content-type"), accept).toBe(type)
      expect(response.headers.get("vary")).toMatch(/accept/i)
      const body = await response.text()
      expect(body.startsWith("<!doctype html>"), accept).toBe(type.startsWith("text/html"))
    }
    // format= wins over Accept.
    expect((await get("/?format=json", { headers: { accept: browser } })).headers.get("content-type")).toBe("application/json")
  })

  it("refuses an unknown format with 422 on / and on every page, and any format on a .md page", async () => {
    for (const path of ["/", "/card", "/contribute", "/notice", ...QUESTION_PAGES.map((p) => p.slug)]) {
      const response = await get(`${path}?format=pdf`)
      expect(response.status, path).toBe(422)
      expect(response.headers.get("content-type")).toBe("application/problem+json")
      expect((await response.json() as { code: string }).code).toBe("invalid_parameters")
    }
    for (const page of QUESTION_PAGES) expect((await get(`${page.slug}.md?format=text`)).status, page.slug).toBe(422)
  })
})

describe("manifest", () => {
  it("is the same document at /manifest.json and /.well-known/agent-protocol.json, naming gate, API, log and card", async () => {
    const manifest = await text("/manifest.json")
    expect(await text("/.well-known/agent-protocol.json")).toBe(manifest)
    const doc = JSON.parse(manifest)
    expect(doc.gate.http).toBe(`${server.baseUrl}/t`)
    expect(doc.gate.tcp).toEqual([])
    expect(doc.api.openapi).toBe(`${server.baseUrl}/openapi.json`)
    expect(doc.log.checkpoint).toBe(`${server.baseUrl}/checkpoint`)
    expect(doc.log.tiles).toEqual([`${server.baseUrl}/tiles/`])
    expect(doc.card).toBe(`${server.baseUrl}/.well-known/aics-card.json`)
    // Every member the document is built with survives its schema's encoding.
    expect(doc.log.receipts).toBe(`${server.baseUrl}/v2/entries/{index}/receipt`)
    expect(Object.keys(doc.log.verify)).toEqual(["consistency", "witnesses", "audit"])
    expect(doc.log.verify.audit).toContain("`aics audit log [--witness <vkey>]`")
    // (The test servers run with AICS_RATE_LIMITS=off: no budget is enforced.)
    expect(doc.limits).toMatchObject({ enforced: false, budgets: [], claim_pow_bits: expect.any(Number) })
    expect(doc.governance.freeze).toBe(`${server.baseUrl}/v2/governance/freeze`)
    expect(doc.agents.map((a: { kind: string }) => a.kind)).toContain("mcp_client")
    expect(doc.llm_agents.client_source).toBe(CLIENT_SOURCE)
  })

  it("names the operator's AICS_CLIENT_SOURCE and gives the MCP client configuration with this service's URL", async () => {
    const skill = await text("/skill.md")
    expect(skill).toContain(`git clone ${CLIENT_SOURCE} aics && cd aics`)
    expect(await text("/llms.txt")).toContain(`come from the repository ${CLIENT_SOURCE}`)
    for (const doc of ["/skill.md", "/llms.txt"]) {
      const served = await text(doc)
      expect(served, doc).toContain(`"AICS_SERVER": "${server.baseUrl}"`)
      expect(served, doc).toContain(`"url": "${server.baseUrl}/mcp"`)
    }
    expect(await text("/talk-to-agents.md")).toContain(`export AICS_SERVER=${server.baseUrl}`)
  })

  // A request to each route of /openapi.json: path parameters filled with well-formed values.
  const kid = makeAgent("discovery sample").kid
  const hash = encodeU64(nodeCrypto.sha256(new Uint8Array([7])))
  const SAMPLES: Record<string, string> = {
    kid, key_hash: hash, digest: hash, entry_hash: hash, name: "nobody", handle: "nobody", report_id: "n_none"
  }
  const concrete = (path: string) => path.replace(/\{([^}]+)\}/g, (_, name: string) => SAMPLES[name] ?? "0").replace(/\*$/, "0/000")
  const unsigned = (method: string, path: string) =>
    get(path, method === "GET" ? {} : { method, headers: { "content-type": "application/json" }, body: "{}" })

  it("lists exactly the routes that answer 401 unsigned, and a signed request gets past the signature", async () => {
    const manifest = JSON.parse(await text("/manifest.json")) as { signatures: { endpoints: Array<{ method: string; path: string; signer: string }> } }
    const listed = manifest.signatures.endpoints
    const spec = await openApi()
    const all = Object.entries(spec.paths).flatMap(([path, item]) => Object.keys(item).map((method) => ({ method: method.toUpperCase(), path })))
    const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`
    // Every listed route exists in the API.
    for (const route of listed) expect(all.map(key), key(route)).toContain(key(route))
    expect(listed.map(key)).toEqual(expect.arrayContaining([
      "POST /v2/entries", "GET /v2/agents/me", "GET /v2/inbox/status", "GET /v2/inbox", "GET /v2/capsules", "GET /v2/capsules/{key_hash}",
      "POST /v2/admin/tombstones", "GET /v2/admin/notices", "POST /v2/admin/notices/{report_id}/close", "GET /v2/admin/stats"
    ]))

    const agent = makeAgent(`discovery signer ${Date.now()}`)
    for (const route of all) {
      const path = concrete(route.path)
      const response = await unsigned(route.method, path)
      const isListed = listed.some((l) => key(l) === key(route))
      if (isListed) {
        expect(response.status, `${key(route)} unsigned`).toBe(401)
        expect((await response.json() as { code?: string; entry?: { refused: string } }), key(route))
          .toSatisfy((body: { code?: string; entry?: { refused: string } }) => (body.code ?? body.entry?.refused) === "signature_missing")
        // Signed by a key that is not the owner's: past the signature (403 for owner routes).
        const raw = route.method === "GET" ? new Uint8Array(0) : new TextEncoder().encode("{}")
        const headers = signatureHeaders(server, agent.seed, { method: route.method, path, body: raw })
        const signed = await get(path, route.method === "GET" ? { headers } : { method: route.method, headers: { ...headers, "content-type": "application/json" }, body: raw })
        expect(signed.status, `${key(route)} signed`).not.toBe(401)
        if (route.path.startsWith("/v2/admin/")) expect(signed.status, `${key(route)} signed by another key`).toBe(403)
      } else {
        // (403 can still come for other reasons, e.g. https_required on the contribution routes.)
        expect(response.status, `${key(route)} is not listed, so it must not require a signature`).not.toBe(401)
      }
    }
  })
})

describe("pages", () => {
  const mainOf = (page: string) => page.slice(page.indexOf("<main>"), page.indexOf("</main>"))
  const hrefs = (page: string) => [...mainOf(page).matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, "&"))

  it("links only to routes that answer, from every page's content", async () => {
    const pages = ["/?format=html", "/card", "/contribute", "/notice", ...QUESTION_PAGES.map((p) => p.slug)]
    const seen = new Set<string>()
    for (const page of pages) {
      const links = hrefs(await text(page))
      expect(links.length, page).toBeGreaterThan(0)
      for (const link of links) seen.add(link)
    }
    for (const link of seen) {
      expect(link.startsWith("/"), link).toBe(true)
      expect((await get(link)).status, link).toBe(200)
    }
  })

  it("serves each guidance page as Markdown at .md and rendered from the same source", async () => {
    for (const page of QUESTION_PAGES) {
      const markdown = await text(`${page.slug}.md`)
      expect(markdown.startsWith(`# ${page.title}\n\n`), page.slug).toBe(true)
      const json = await (await get(`${page.slug}?format=json`)).json() as { slug: string; title: string; markdown: string }
      expect(json.slug).toBe(page.slug)
      expect(markdown).toBe(`# ${page.title}\n\n${json.markdown}`)
      expect(await text(`${page.slug}?format=text`)).toBe(json.markdown)
      const html = await text(page.slug)
      expect(html).toContain(`<h1>${page.title.replace(/'/g, "&#39;")}</h1>`)
      expect(mainOf(html)).not.toContain("```")
    }
    expect(await text("/get-only.md")).toContain(`GET ${server.baseUrl}/t?l=help`)
  })

  it("answers /card?format=json with the card's exact bytes and headers, and shows the card to people", async () => {
    const wellKnown = await get("/.well-known/aics-card.json")
    const card = await get("/card?format=json")
    expect(new Uint8Array(await card.arrayBuffer())).toEqual(new Uint8Array(await wellKnown.arrayBuffer()))
    for (const header of ["content-type", "x-aics-card-sha256", "x-aics-card-leaf", "cache-control"]) {
      expect(card.headers.get(header), header).toBe(wellKnown.headers.get(header))
    }
    const page = await text("/card")
    expect(page).toContain(wellKnown.headers.get("x-aics-card-sha256")!)
    expect(page).toContain(`href="/.well-known/aics-card.json"`)
    expect(await text("/card?format=text")).toContain(`sha-256 (U64): ${wellKnown.headers.get("x-aics-card-sha256")}`)
  })

  it("lists the card's contribution addresses on /contribute, escaped", async () => {
    const page = await text("/contribute")
    expect(page).toContain("0xab&lt;b&gt;cd&amp;")
    expect(page).not.toContain("<b>cd")
    const data = await (await get("/contribute?format=json")).json() as { open: boolean; contributions: Array<Record<string, string>> }
    expect(data.open).toBe(true)
    const card = await (await get("/.well-known/aics-card.json")).json() as { contributions: unknown }
    expect(data.contributions).toEqual(card.contributions)
  })

  it("states the POST /notice fields and limits on /notice", async () => {
    const data = await (await get("/notice?format=json")).json() as { url: string; fields: Array<{ name: string; required: boolean; rule: string }> }
    expect(data.url).toBe(`${server.baseUrl}/notice`)
    expect(data.fields.map((f) => f.name)).toEqual(["kind", "location", "explanation", "name", "email", "report_id", "accurate"])
    expect(data.fields.filter((f) => f.required).map((f) => f.name)).toEqual(["location", "explanation", "accurate"])
    const page = await text("/notice?format=text")
    for (const limit of ["1 to 1000", "10 to 8000", "at most 200", "at most 254", "at most 40", "12 months"]) expect(page).toContain(limit)
  })
})

describe("what the documents name exists", () => {
  it("names only routes the API serves: every path and URL of the skill file, the llms texts and each page's Markdown", async () => {
    const spec = await openApi()
    const served = servedBy(Object.keys(spec.paths))
    const named = new Set<string>()
    for (const doc of agentDocuments()) {
      const paths = pathsIn(await text(doc))
      expect(paths.length, doc).toBeGreaterThan(0)
      for (const path of paths) {
        named.add(path)
        expect(served(path), `${doc} names ${path}`).toBe(true)
      }
    }
    // The gate and the data pages are among what the documents name, and all are served.
    for (const path of ["/t", "/agora", "/online", "/v2/online"]) expect(named.has(path), path).toBe(true)
    // The extraction finds what it should.
    expect(pathsIn(`GET ${server.baseUrl}/v2/names/{name} or /checkpoint, not text/plain or ./aics-key.json`)).toEqual(["/v2/names/{name}", "/checkpoint"])
    const root = `/R/g${"A".repeat(39)}=`
    expect(pathsIn(`see /checkpoint:\nlocalhost/aics\n7\n${root}\n\n\u2014 localhost/aics Zx+/R/g${"B".repeat(80)}==\n`)).toEqual(["/checkpoint"])
    expect(served("/v2/entries/{index}") && served("/v2/entries/12") && served("/tiles/") && served("/v2") && !served("/nowhere") && !served("/v2/entries/12/x")).toBe(true)
  })

  it("names only aics commands the CLI has", async () => {
    const named = new Set<string>()
    for (const doc of agentDocuments()) for (const command of commandsIn(await text(doc))) named.add(command)
    expect([...named].length).toBeGreaterThan(5)
    for (const command of named) expect(COMMANDS as ReadonlyArray<string>, `aics ${command}`).toContain(command)
    expect(commandsIn("the aics package, `aics keygen`\naics verify")).toEqual(["keygen", "verify"])
  })

  it("serves /skill.md with a strict YAML header", async () => {
    const header = parseFrontMatter(await text("/skill.md"))
    expect(header["name"]).toBe("aics-localhost")
    expect(header["description"]).toContain(`${server.baseUrl}: own keys`)
  })

  it("points the sandbox page to mmd_seconds of /v2/tlog/checkpoint, which says it", async () => {
    const page = await text("/sandbox-network.md")
    for (const word of ["nonce_invalid", "401", "409 `nonce_reused`", "mmd_seconds", "authority_not_allowed"]) expect(page).toContain(word)
    const checkpoint = await (await get("/v2/tlog/checkpoint")).json() as { tiles: { mmd_seconds: number } }
    expect(checkpoint.tiles.mmd_seconds).toBeGreaterThan(0)
  })

  it("says on /contribute that this http instance takes no contribution (no AICS_SUP_ALLOW_HTTP)", async () => {
    expect(await text("/contribute?format=text")).toContain("403 https_required")
    expect((await (await get("/contribute?format=json")).json() as { transport: string }).transport).toContain("403 https_required")
  })

  it("declares the seven guidance pages in the API exactly as domain/pages/questions.ts lists them", () => {
    const paths = Object.values(GuidePagesGroup.endpoints).map((endpoint) => endpoint.path)
    const slugs = QUESTION_PAGES.map((page) => page.slug)
    expect(slugs).toHaveLength(7)
    expect(paths.filter((path) => !["/card", "/contribute", "/notice"].includes(path))).toEqual(slugs.flatMap((slug) => [slug, `${slug}.md`]))
  })
})

describe("/openapi.json", () => {
  it("declares html, json and text for / and every page, and the card's bytes as /card's json", async () => {
    const spec = await openApi()
    for (const path of ["/", "/card", "/contribute", "/notice", ...QUESTION_PAGES.map((p) => p.slug)]) {
      const content = spec.paths[path]!["get"].responses["200"].content
      expect(Object.keys(content).sort(), path).toEqual(["application/json", "text/html; charset=utf-8", "text/plain; charset=utf-8"])
    }
    expect(spec.paths["/"]!["get"].responses["200"].content["application/json"].schema.required).toEqual(["banner", "links", "checkpoint"])
    expect(spec.paths["/card"]!["get"].responses["200"].description).toContain("exact signed bytes")
    expect(Object.keys(spec.paths["/skill.md"]!["get"].responses["200"].content)).toEqual(["text/plain; charset=utf-8"])
  })

  it("does not advertise format on a .md route (sent anyway, it is still a 422)", async () => {
    const spec = await openApi()
    for (const page of QUESTION_PAGES) {
      const operation = spec.paths[`${page.slug}.md`]!["get"]
      expect((operation.parameters ?? []).map((p: { name: string }) => p.name), page.slug).not.toContain("format")
      expect(JSON.stringify(operation), page.slug).not.toContain(`{"not":{}}`)
    }
  })

  it("puts the 401 and the signature scheme on exactly the signed routes", async () => {
    const spec = await openApi()
    let signed = 0
    for (const [path, item] of Object.entries(spec.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const requirement = signatureRequirement(method, path)
        expect("401" in operation.responses, `${method} ${path}`).toBe(requirement !== "none")
        expect(operation.security ?? [], `${method} ${path}`).toEqual(requirement === "none" ? [] : [{ aicsSignature: [] }])
        if (requirement !== "none") signed++
      }
    }
    expect(signed).toBeGreaterThan(10)
    expect(spec.components["securitySchemes"]["aicsSignature"]).toMatchObject({ type: "apiKey", in: "header", name: "Signature" })
  })
})
