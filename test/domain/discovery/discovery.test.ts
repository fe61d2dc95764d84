import { describe, expect, it } from "vitest"
import { robotsTxt, sitemapPaths, sitemapTxt, sitemapXml } from "../../../src/domain/discovery/crawl.js"
import { endpointsOf, signedEndpoints } from "../../../src/domain/discovery/endpoints.js"
import { homeJson, homeText } from "../../../src/domain/discovery/home.js"
import { llmsFullTxt, llmsTxt } from "../../../src/domain/discovery/llms.js"
import { agentProtocol } from "../../../src/domain/discovery/manifest.js"
import { securityTxt, securityTxtExpiry } from "../../../src/domain/discovery/securityTxt.js"
import type { SiteFacts } from "../../../src/domain/discovery/site.js"
import { skillMd, skillName } from "../../../src/domain/discovery/skill.js"
import { contributeMarkdown, contributionTransport } from "../../../src/domain/pages/contributePage.js"
import { noticeData, noticeMarkdown } from "../../../src/domain/pages/noticePage.js"
import { QUESTION_PAGES } from "../../../src/domain/pages/questions.js"
import { parseFrontMatter } from "../../support/frontMatter.js"
import { writeVector } from "../http/httpVectors.js"
import { signatureRequirement } from "../../../src/domain/http/signedRoutes.js"
import { COMMAND_USAGE } from "../../../src/client/cliUsage.js"
import { agentTools } from "../../../src/client/mcp/agentTools.js"

const facts: SiteFacts = {
  publicUrl: "https://aics.example",
  domain: "aics.example",
  origin: "aics.example/aics",
  tilePrefixes: ["https://aics.example/tiles/", "https://mirror.example/aics/"],
  apiVersion: "0.3.0",
  gatePorts: { tls: 7700, plaintext: 7701 }
}

const spec = {
  paths: {
    "/v2/entries": { post: { description: "Signed\n  write" } },
    "/v2/entries/{index}": { get: {}, parameters: [] },
    "/v2/inbox": { get: { summary: "own inbox" } },
    "/v2/admin/anything/{id}": { get: {}, post: {} },
    "/notice": { post: {} }
  }
}

describe("endpoints", () => {
  it("derives every operation from an OpenAPI document, with its signature requirement", () => {
    const endpoints = endpointsOf(spec)
    expect(endpoints.map((e) => `${e.method} ${e.path} ${e.signature}`)).toEqual([
      "POST /v2/entries key",
      "GET /v2/entries/{index} none",
      "GET /v2/inbox key",
      "GET /v2/admin/anything/{id} owner",
      "POST /v2/admin/anything/{id} owner",
      "POST /notice none"
    ])
    expect(endpoints[0]!.description).toBe("Signed write")
    expect(endpoints[2]!.description).toBe("own inbox")
    expect(signedEndpoints(endpoints).map((e) => e.path)).toEqual(["/v2/entries", "/v2/inbox", "/v2/admin/anything/{id}", "/v2/admin/anything/{id}"])
  })

  it("requires the method to match: GET /v2/entries/{index} is a public read, POST /v2/entries a signed write", () => {
    expect(signatureRequirement("GET", "/v2/entries")).toBe("none")
    expect(signatureRequirement("post", "/v2/entries")).toBe("key")
    expect(signatureRequirement("GET", "/v2/capsules/{key_hash}")).toBe("key")
    expect(signatureRequirement("GET", "/v2/inbox/{kid}")).toBe("none")
  })
})

describe("documents", () => {
  const endpoints = endpointsOf(spec)

  it("puts /llms.txt first in /llms-full.txt, then one line per endpoint", () => {
    const full = llmsFullTxt(facts, endpoints)
    expect(full.startsWith(llmsTxt(facts))).toBe(true)
    expect(full).toContain("- POST /v2/entries: signed (RFC 9421, the agent's own key). Signed write\n")
    expect(full).toContain("- GET /v2/entries/{index}: no signature\n")
    expect(full).toContain("- POST /v2/admin/anything/{id}: owner-signed (RFC 9421, the owner key)\n")
  })

  it("names the gate on the public URL's host with both TCP ports, and the out-of-band log key", () => {
    const llms = llmsTxt(facts)
    expect(llms).toContain("https://aics.example/t ")
    expect(llms).toContain("aics.example:7700 (TLS) and aics.example:7701 (plaintext")
    expect(llms).toContain("DNS TXT _aics.aics.example")
    expect(llms).toContain("https://aics.example/tiles/, https://mirror.example/aics/")
    const skill = skillMd(facts)
    expect(skill).toContain("export AICS_SERVER=https://aics.example")
    // An LLM client's way in: the agent's own MCP server, and the keyless /mcp.
    expect(skill).toContain("aics mcp --key")
    expect(skill).toContain("POST https://aics.example/mcp")
    expect(skill).toContain(`origin: "aics.example/aics"`)
  })

  it("tells in each document how to verify past one checkpoint: consistency with the kept one, witnesses, the audit", () => {
    const manifest = agentProtocol(facts, endpoints)
    const documents = {
      llms: llmsTxt(facts),
      skill: skillMd(facts),
      manifest: JSON.stringify(manifest)
    }
    for (const [name, text] of Object.entries(documents)) {
      // Keep the last checkpoint trusted; each new one must be consistent with it.
      expect(text, name).toMatch(/keep the last checkpoint you trusted/i)
      expect(text, name).toContain("https://aics.example/v2/tlog/consistency?from=<kept size>&to=<new size>")
      expect(text, name).toContain("`aics monitor`")
      // Witnesses cosign: the card names them, the keys come from their operators.
      expect(text, name).toContain("cosign")
      expect(text, name).toContain("the card's `witnessing` member")
      expect(text, name).toContain("`aics verify --witness <vkey>`")
      // The whole log replayed as the service had to decide it.
      expect(text, name).toContain("`aics audit log [--witness <vkey>]`")
      expect(text, name).toContain("`audit_log`")
    }
    expect(Object.keys(manifest.log.verify)).toEqual(["consistency", "witnesses", "audit"])
    // Step 7 of the skill file is more than the checkpoint and the tiles.
    const step7 = documents.skill.slice(documents.skill.indexOf("7. Verify:"), documents.skill.indexOf("## Without a shell"))
    expect(step7).toContain("consistency")
    expect(step7).toContain("witness")
    expect(documents.skill).toContain("aics monitor --once")
  })

  it("names only options and tools the client has for the verification it describes", () => {
    for (const command of ["verify", "get", "monitor", "audit"] as const) expect(COMMAND_USAGE[command], command).toContain("--witness VKEY")
    expect(COMMAND_USAGE.audit).toContain("aics audit log")
    expect(agentTools({ client: { service: {} } as never, keyPath: "" }).map((tool) => tool.name)).toContain("audit_log")
  })

  it("says the log key comes out of band from the operator, never from a generic package or this API alone", () => {
    for (const text of [llmsTxt(facts), skillMd(facts), agentProtocol(facts, endpoints).log.log_key]) {
      expect(text).toContain("DNS TXT _aics.aics.example")
      expect(text).toContain("aics --vkey-dns aics.example")
      expect(text).toContain("log.vkey")
      expect(text).not.toContain("the aics package")
      expect(text).toContain("never from this API alone")
    }
  })

  it("advertises only the gate's TCP ports that are open", () => {
    const tlsOnly = { ...facts, gatePorts: { tls: 7700, plaintext: 0 } }
    expect(agentProtocol(tlsOnly, endpoints).gate.tcp).toEqual([{ host: "aics.example", port: 7700, tls: true, note: "TLS; secrets accepted" }])
    expect(llmsTxt(tlsOnly)).toContain("TCP aics.example:7700 (TLS).")
    expect(llmsTxt(tlsOnly)).not.toContain("7701")
    const none = { ...facts, gatePorts: { tls: 0, plaintext: 0 } }
    expect(agentProtocol(none, endpoints).gate.tcp).toEqual([])
    for (const text of [llmsTxt(none), skillMd(none)]) {
      expect(text).toContain("No TCP port is open on this instance")
      expect(text).not.toMatch(/770[01]/)
    }
  })

  it("lists in the manifest exactly the signed endpoints", () => {
    const manifest = agentProtocol(facts, endpoints)
    expect(manifest.signatures.endpoints).toEqual([
      { method: "POST", path: "/v2/entries", signer: "key" },
      { method: "GET", path: "/v2/inbox", signer: "key" },
      { method: "GET", path: "/v2/admin/anything/{id}", signer: "owner" },
      { method: "POST", path: "/v2/admin/anything/{id}", signer: "owner" }
    ])
    expect(manifest.gate.tcp.map((t) => t.port)).toEqual([7700, 7701])
  })

  it("lists only served paths in the sitemaps, as absolute URLs, escaped in XML", () => {
    const paths = sitemapPaths((path) => path !== "/agora")
    expect(paths).toContain("/")
    expect(paths).toContain("/mailbox.md")
    expect(paths).not.toContain("/agora")
    expect(new Set(paths).size).toBe(paths.length)
    expect(sitemapTxt(facts, ["/", "/card"])).toBe("https://aics.example/\nhttps://aics.example/card\n")
    expect(sitemapXml({ ...facts, publicUrl: "https://a.example/x&y" }, ["/"])).toContain("<loc>https://a.example/x&amp;y/</loc>")
    expect(robotsTxt(facts)).toContain("Sitemap: https://aics.example/sitemap.xml")
  })

  it("sets security.txt's Expires to a UTC midnight 90 days ahead, stable through a day", () => {
    const now = Date.UTC(2026, 0, 15, 13, 45)
    expect(securityTxtExpiry(now).toISOString()).toBe("2026-04-15T00:00:00.000Z")
    expect(securityTxtExpiry(Date.UTC(2026, 0, 15, 0, 0))).toEqual(securityTxtExpiry(Date.UTC(2026, 0, 15, 23, 59)))
    expect(securityTxt(facts, now)).toContain("\nExpires: 2026-04-15T00:00:00Z\n")
    expect(securityTxt(facts, now)).toContain("\nContact: https://aics.example/notice\n")
  })

  it("writes security.txt as RFC 9116 asks: https web URIs only, the operator's contact when set", () => {
    const now = Date.UTC(2026, 0, 15)
    const fieldsOf = (text: string) => text.split("\n").filter((l) => l !== "" && !l.startsWith("#")).map((l) => l.slice(0, l.indexOf(":")))
    const https = securityTxt(facts, now)
    expect(fieldsOf(https)).toEqual(["Contact", "Expires", "Policy", "Policy", "Canonical", "Preferred-Languages"])
    expect(https).toContain("\nCanonical: https://aics.example/.well-known/security.txt\n")
    expect(https).toContain("vulnerability reports go through the notice register".replace(/^v/, "V"))
    const mail = securityTxt(facts, now, "mailto:security@aics.example")
    expect(mail).toContain("\nContact: mailto:security@aics.example\n")
    expect(mail).not.toContain("Contact: https://aics.example/notice")
    // On plain http: no Canonical or Policy field (their URIs would be http); a comment says why.
    const plain = { ...facts, publicUrl: "http://127.0.0.1:8080" }
    expect(fieldsOf(securityTxt(plain, now))).toEqual(["Contact", "Expires", "Preferred-Languages"])
    expect(securityTxt(plain, now)).toContain("\nContact: http://127.0.0.1:8080/notice\n")
    expect(securityTxt(plain, now)).toMatch(/^# .*plain http.*RFC 9116/m)
    expect(securityTxt(plain, now, "https://security.example/report")).toContain("\nContact: https://security.example/report\n")
    for (const text of [https, mail, securityTxt(plain, now), securityTxt(plain, now, "mailto:a@b.example")]) {
      for (const line of text.split("\n").filter((l) => /^(Contact|Canonical|Policy): /.test(l))) {
        expect(line, line).toMatch(/^[A-Za-z]+: (https:\/\/|mailto:|http:\/\/127\.0\.0\.1:8080\/notice$)/)
      }
    }
  })

  it("says on /notice how to report a vulnerability: the register, or the operator's contact", () => {
    expect(noticeMarkdown(facts)).toContain("## Report a vulnerability")
    expect(noticeMarkdown(facts)).toContain("location `security`")
    expect(noticeMarkdown(facts, "mailto:sec@aics.example")).toContain("write to mailto:sec@aics.example")
    expect(noticeData(facts, "mailto:sec@aics.example").security.contact).toBe("mailto:sec@aics.example")
    expect(noticeData(facts).security.contact).toBe("https://aics.example/notice")
    expect(noticeMarkdown(facts)).toContain("`accurate` anything but `true` included) answers 422")
  })

  it("says over what contributions are taken: HTTPS only, plain HTTP when allowed, and none on an http URL", () => {
    const address = [{ network: "testnet", asset: "TST", address: "0xab" }]
    expect(contributionTransport(facts, false)).toBe("HTTPS only")
    expect(contributionTransport(facts, true)).toContain("plain HTTP")
    expect(contributionTransport({ ...facts, publicUrl: "http://127.0.0.1:8080" }, false)).toContain("403 https_required")
    expect(contributeMarkdown(facts, address, true)).not.toContain("HTTPS only")
    expect(contributeMarkdown(facts, address, false)).toContain("(HTTPS only; never a leaf)")
  })

  it("starts the skill file with a strict YAML header: a slug name and a JSON-string description", () => {
    const header = parseFrontMatter(skillMd(facts))
    expect(Object.keys(header)).toEqual(["name", "description"])
    expect(header["name"]).toBe("aics-aics-example")
    expect(header["description"]).toContain("https://aics.example: own keys")
    expect(skillName({ ...facts, domain: "a.b-c.example" })).toBe("aics-a-b-c-example")
    // The checker itself refuses what a strict reader may refuse.
    expect(() => parseFrontMatter("---\ndescription: at https://x: y\n---\n")).toThrow(/neither/)
    expect(() => parseFrontMatter("---\nname: aics.example\n---\n")).toThrow(/neither/)
    expect(() => parseFrontMatter("name: x\n")).toThrow(/---/)
  })

  it("tells how to get the CLI from the repository, never npx, and the Node version", () => {
    const skill = skillMd(facts)
    expect(skill).toContain("npm install && npm run build")
    expect(skill).toContain("node bin/aics.js help")
    expect(skill).toContain("npm link")
    expect(skill).toContain("never run `npx aics`")
    expect(skill).toContain("Node.js >= 20.19")
  })

  it("names the client's source the operator set (AICS_CLIENT_SOURCE), else says to ask the operator: never a placeholder", () => {
    const source = "https://git.example/aics.git"
    const named = { ...facts, clientSource: source }
    expect(skillMd(named)).toContain(`git clone ${source} aics && cd aics`)
    expect(llmsTxt(named)).toContain(`come from the repository ${source}`)
    expect(agentProtocol(named, endpoints).llm_agents.client_source).toBe(source)
    for (const text of [skillMd(facts), llmsTxt(facts)]) {
      expect(text).toContain("its operator has not set AICS_CLIENT_SOURCE): ask the operator of aics.example")
      expect(text).not.toContain("git clone")
    }
    expect(agentProtocol(facts, endpoints).llm_agents.client_source).toBeNull()
    for (const text of [skillMd(facts), skillMd(named), llmsTxt(facts), llmsTxt(named)]) {
      expect(text).not.toContain("<the public repository>")
      expect(text).not.toMatch(/git clone <|<repository/)
    }
  })

  it("gives an MCP client a configuration to copy: aics mcp with this service's URL and the out-of-band log key, and the keyless /mcp", () => {
    for (const [name, text] of Object.entries({ skill: skillMd(facts), llms: llmsTxt(facts) })) {
      const blocks = [...text.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => JSON.parse(m[1]!))
      expect(blocks, name).toEqual([
        {
          mcpServers: {
            aics: {
              command: "aics",
              args: ["mcp", "--key", "<absolute path of your key file>"],
              env: { AICS_SERVER: "https://aics.example", AICS_LOG_VKEY: "<the log's verifier key, obtained out of band>" }
            }
          }
        },
        { mcpServers: { "aics-read": { type: "http", url: "https://aics.example/mcp" } } }
      ])
      expect(text, name).toContain("claude mcp add aics --env AICS_SERVER=https://aics.example --env AICS_LOG_VKEY='<log key>' -- aics mcp --key")
      expect(text, name).toContain("claude mcp add --transport http aics-read https://aics.example/mcp")
      // The log key is never taken from the document that shows the configuration.
      expect(text, name).toContain("The log key must come from the DNS TXT record _aics.aics.example")
      expect(text, name).toContain("not from this document alone")
    }
  })

  it("names this service's URL in every served step that runs aics (the CLI's default is a local server)", () => {
    const pages = [
      ...QUESTION_PAGES.map((page) => ({ name: page.slug, text: page.markdown(facts) })),
      { name: "/notice", text: noticeMarkdown(facts) },
      { name: "/contribute", text: contributeMarkdown(facts, [{ network: "testnet", asset: "TST", address: "0xab" }], false) },
      { name: "/skill.md", text: skillMd(facts) },
      { name: "/llms.txt", text: llmsTxt(facts) }
    ]
    const running = pages.filter((page) => /`aics [a-z]/.test(page.text))
    expect(running.map((page) => page.name)).toEqual(expect.arrayContaining(["/talk-to-agents", "/online-now", "/persistent-identity", "/message-board", "/mailbox", "/notice", "/contribute", "/skill.md", "/llms.txt"]))
    for (const page of running) expect(page.text, page.name).toMatch(/AICS_SERVER=https:\/\/aics\.example|--server https:\/\/aics\.example/)
    // talk-to-agents, followed literally: the server and the log key are set before the first command that talks to it.
    const talk = QUESTION_PAGES.find((page) => page.slug === "/talk-to-agents")!.markdown(facts)
    expect(talk.indexOf("export AICS_SERVER=https://aics.example")).toBeGreaterThan(-1)
    expect(talk.indexOf("export AICS_SERVER=https://aics.example")).toBeLessThan(talk.indexOf("aics claim"))
    expect(talk.indexOf("export AICS_LOG_VKEY")).toBeLessThan(talk.indexOf("aics claim"))
  })

  it("shows the signature base of the raw write exactly as docs/spec/profile.md section 6 and the vectors do", () => {
    const skill = skillMd({ ...facts, publicUrl: "http://127.0.0.1:8080" })
    // The vector's base with its values as placeholders, line by line, indented as in the list.
    const base = writeVector.signature_base!
      .replace(/sha-256=:[^:]+:/, "sha-256=:<base64 SHA-256 of the body>:")
      .replace(/created=\d+/, "created=<s>").replace(/expires=\d+/, "expires=<s>")
      .replace(/nonce="[^"]+"/, `nonce="<U64>"`).replace(/keyid="[^"]+"/, `keyid="<did:key>"`)
    expect(skill).toContain(base.split("\n").map((line) => `   ${line}`).join("\n"))
    expect(skill).toContain("the number of those bytes (not of characters)")
  })

  it("gives / as {banner, links, checkpoint} with the checkpoint exactly, or null before the first", () => {
    const note = "aics.example/aics\n1\nabc=\n\n— aics.example/aics sig\n"
    const home = homeJson(facts, note)
    expect(Object.keys(home)).toEqual(["banner", "links", "checkpoint"])
    expect(home.checkpoint).toBe(note)
    expect(home.links.every((l) => l.href.startsWith("https://aics.example/"))).toBe(true)
    expect(homeJson(facts, null).checkpoint).toBeNull()
    expect(homeText(facts, note).endsWith(note)).toBe(true)
  })
})
