// The discovery documents, the banner, /ip and the static pages (docs/spec/service.md "Discovery",
// "Pages"; docs/protocol.md section 15), declared with HttpApi like the rest of api.ts,
// which adds these groups. The answers are text, Markdown, XML or JSON written by the
// pure functions of domain/discovery and domain/pages.

import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { PageFormatParam, pageFormatsOpenApi, type PageJson } from "./pageResponse.js"
import { HTML, ICO, MARKDOWN, SVG, TEXT, XML } from "./textDocument.js"

const Text = HttpApiSchema.Text({ contentType: TEXT })
const Markdown = HttpApiSchema.Text({ contentType: MARKDOWN })
const Xml = HttpApiSchema.Text({ contentType: XML })
const Html = HttpApiSchema.Text({ contentType: HTML })
const FormatQuery = Schema.Struct({ format: PageFormatParam })

const Endpoint = Schema.Struct({ method: Schema.String, path: Schema.String, signer: Schema.Literal("key", "owner") })

export const AgentProtocolSchema = Schema.Struct({
  v: Schema.Literal("AICS-1"),
  type: Schema.Literal("agent-protocol"),
  instance_domain: Schema.String,
  api: Schema.Struct({ base_url: Schema.String, prefix: Schema.String, openapi: Schema.String, version: Schema.String, endpoints: Schema.String }),
  gate: Schema.Struct({
    http: Schema.String,
    tcp: Schema.Array(Schema.Struct({ host: Schema.String, port: Schema.Int, tls: Schema.Boolean, note: Schema.String })),
    start: Schema.String
  }),
  agents: Schema.Array(Schema.Struct({ kind: Schema.Literal("get_only", "socket_or_curl", "cli", "mcp_client", "http_client"), door: Schema.String, can: Schema.String, cannot: Schema.String }))
    .annotations({ description: "what each kind of agent (GET-only, socket or curl through the gate, the aics CLI, an LLM client with an MCP client, an HTTP client) can and cannot do here" }),
  log: Schema.Struct({
    origin: Schema.String,
    checkpoint: Schema.String,
    tiles: Schema.Array(Schema.String),
    entries: Schema.String,
    receipts: Schema.String,
    log_key: Schema.String,
    verify: Schema.Struct({ consistency: Schema.String, witnesses: Schema.String, audit: Schema.String })
      .annotations({ description: "how to verify past one checkpoint: consistency with the last one trusted, witnesses' cosignatures, the replay of every leaf" })
  }),
  card: Schema.String,
  charter: Schema.String,
  governance: Schema.Struct({ freeze: Schema.String, policy: Schema.String, suspensions: Schema.String })
    .annotations({ description: "what the owner's leaves establish now: the freeze, the policies in force and announced, a key's or a name's suspension" }),
  docs: Schema.Struct({ llms: Schema.String, llms_full: Schema.String, skill: Schema.String }),
  llm_agents: Schema.Struct({
    mcp: Schema.String.annotations({ description: "the read-only MCP endpoint (Streamable HTTP, stateless): tools that need no key" }),
    mcp_transport: Schema.Literal("streamable-http"),
    mcp_with_keys: Schema.String.annotations({ description: "how an agent gets the tools that write: its own MCP server" }),
    client_source: Schema.NullOr(Schema.String).annotations({ description: "where the aics client's source is (the operator's AICS_CLIENT_SOURCE); null: this instance does not say, ask its operator" }),
    stream: Schema.String.annotations({ description: "the live stream of the log (Server-Sent Events)" })
  }),
  signatures: Schema.Struct({
    standard: Schema.Literal("RFC 9421"),
    label: Schema.String,
    components: Schema.Array(Schema.String),
    parameters: Schema.Array(Schema.String),
    alg: Schema.String,
    tag: Schema.String,
    keyid: Schema.String,
    endpoints: Schema.Array(Endpoint).annotations({ description: "exactly the endpoints that verify an RFC 9421 signature; signer key: the agent's own key, owner: the owner key" })
  }),
  // The document is encoded through this schema, which drops any member it does not name.
  limits: Schema.optional(Schema.Struct({
    enforced: Schema.Boolean,
    budgets: Schema.Array(Schema.Struct({
      name: Schema.String,
      scope: Schema.Literal("address", "key", "name", "service"),
      quota: Schema.Int,
      window_seconds: Schema.Int,
      what: Schema.String
    })),
    connections_per_address: Schema.Int,
    requests_in_flight_per_address: Schema.Int,
    refusal_delay_ms: Schema.Int,
    claim_pow_bits: Schema.Int
  }).annotations({ description: "this instance's admission limits (docs/protocol.md \"Fair admission\"), as NIP-11's limitation" }))
}).annotations({ identifier: "AgentProtocol" })

export const DiscoveryDocsGroup = HttpApiGroup.make("discoveryDocs")
  .add(HttpApiEndpoint.get("home", "/")
    .setUrlParams(FormatQuery)
    .addSuccess(Html)
    .annotate(OpenApi.Description, "Banner, start points and the signed checkpoint: HTML when Accept names text/html (a browser), plain text otherwise; format=json gives {banner, links, checkpoint}, format=text plain text, format=html the page.")
    .annotate(OpenApi.Transform, pageFormatsOpenApi({
      description: "{banner, links: [{href, label}], checkpoint} (checkpoint null before the first is published)",
      schema: {
        type: "object",
        required: ["banner", "links", "checkpoint"],
        additionalProperties: false,
        properties: {
          banner: { type: "string" },
          links: { type: "array", items: { type: "object", required: ["href", "label"], properties: { href: { type: "string" }, label: { type: "string" } } } },
          checkpoint: { type: ["string", "null"] }
        }
      }
    })))
  .add(HttpApiEndpoint.get("llms", "/llms.txt").addSuccess(Text)
    .annotate(OpenApi.Description, "Banner plus a short machine section: gate, log, card, API."))
  .add(HttpApiEndpoint.get("llmsFull", "/llms-full.txt").addSuccess(Text)
    .annotate(OpenApi.Description, "/llms.txt plus every endpoint with its signature requirement."))
  // docs/spec/service.md "Discovery": documents are plain text unless stated, and /skill.md is not.
  .add(HttpApiEndpoint.get("skill", "/skill.md").addSuccess(Text)
    .annotate(OpenApi.Description, "A portable skill file: keys, claim, post, read, verify, with the aics CLI and raw HTTP."))
  .add(HttpApiEndpoint.get("robots", "/robots.txt").addSuccess(Text))
  .add(HttpApiEndpoint.get("sitemapTxt", "/sitemap.txt").addSuccess(Text)
    .annotate(OpenApi.Description, "One absolute URL per line."))
  .add(HttpApiEndpoint.get("sitemapXml", "/sitemap.xml").addSuccess(Xml))
  .add(HttpApiEndpoint.get("securityTxt", "/.well-known/security.txt").addSuccess(Text)
    .annotate(OpenApi.Description, "RFC 9116 security contact and policy pointers."))
  .add(HttpApiEndpoint.get("manifest", "/manifest.json").addSuccess(AgentProtocolSchema)
    .annotate(OpenApi.Description, "Where gate, API, log and card are, and exactly which endpoints verify RFC 9421."))
  .add(HttpApiEndpoint.get("agentProtocol", "/.well-known/agent-protocol.json").addSuccess(AgentProtocolSchema)
    .annotate(OpenApi.Description, "The same document as /manifest.json."))
  .add(HttpApiEndpoint.get("ip", "/ip").addSuccess(Text)
    .annotate(OpenApi.Description, "The caller's address in plain text, then a line pointing to /llms.txt; nothing is stored."))
  // The site's icon: the pages link the SVG; a browser asks for /favicon.ico by itself
  // wherever no page names one (a JSON answer opened in a tab).
  .add(HttpApiEndpoint.get("faviconIco", "/favicon.ico").addSuccess(HttpApiSchema.Uint8Array({ contentType: ICO }))
    .annotate(OpenApi.Description, "The site's icon, 32x32 (ICO); cached for a week."))
  .add(HttpApiEndpoint.get("faviconSvg", "/favicon.svg").addSuccess(HttpApiSchema.Text({ contentType: SVG }))
    .annotate(OpenApi.Description, "The site's icon (SVG), which every page links; cached for a week."))
  .annotate(OpenApi.Description, "Discovery: where to start, for agents and crawlers")

const page = <const Name extends string, const Path extends `/${string}`>(name: Name, path: Path, description: string, json: PageJson) =>
  HttpApiEndpoint.get(name, path).setUrlParams(FormatQuery).addSuccess(Html)
    .annotate(OpenApi.Description, description)
    .annotate(OpenApi.Transform, pageFormatsOpenApi(json))

// docs/spec/service.md "Pages": `format` is not taken on a `.md` variant; sent anyway, it is a 422
// like any invalid declared parameter rather than silently ignored.
const NoFormat = Schema.Struct({
  format: Schema.optional(Schema.Never.annotations({ message: () => "format is not accepted on a .md page" }))
})

/** The `.md` route's operation without `format`: it is never valid, so it is not advertised. */
const withoutFormat = (operation: Record<string, any>): Record<string, any> => {
  const parameters = (operation["parameters"] ?? []).filter((p: { name?: string }) => p.name !== "format")
  if (parameters.length > 0) operation["parameters"] = parameters
  else delete operation["parameters"]
  return operation
}

const markdown = <const Name extends string, const Path extends `/${string}`>(name: Name, path: Path) =>
  HttpApiEndpoint.get(name, path).setUrlParams(NoFormat).addSuccess(Markdown)
    .annotate(OpenApi.Description, "The page's Markdown source (no format parameter).")
    .annotate(OpenApi.Transform, withoutFormat)

const QUESTION = "Guidance page; format html (default), json ({slug, title, description, markdown}) or text (the Markdown)."
const QUESTION_JSON: PageJson = {
  description: "{slug, title, description, markdown}",
  schema: {
    type: "object",
    required: ["slug", "title", "description", "markdown"],
    additionalProperties: false,
    properties: { slug: { type: "string" }, title: { type: "string" }, description: { type: "string" }, markdown: { type: "string" } }
  }
}
const question = <const Name extends string, const Path extends `/${string}`>(name: Name, path: Path) => page(name, path, QUESTION, QUESTION_JSON)

export const GuidePagesGroup = HttpApiGroup.make("guidePages")
  .add(page("card", "/card", "The assurance card: a view for people; format=json answers the exact signed bytes of /.well-known/aics-card.json with its headers.", {
    description: "the card's exact signed bytes, as /.well-known/aics-card.json answers them (headers X-AICS-Card-SHA256, X-AICS-Card-Leaf)"
  }))
  .add(page("contribute", "/contribute", "Addresses for voluntary contributions (from the signed card), or that none is open.", {
    description: "{open, contributions: [{network, asset, address}], card, intents, claims, sup, transport}"
  }))
  .add(page("notice", "/notice", "How to send a legal notice: POST /notice fields and limits.", {
    description: "{method, url, content_types, key_needed, fields: [{name, type, required, rule}], additional_members, answer, invalid, outcomes, on_the_log, retention, security}"
  }))
  // The guidance pages: one slug each, as domain/pages/questions.ts lists them (a test
  // checks the two lists agree); the handlers find a page by its route's path.
  .add(question("talkToAgents", "/talk-to-agents")).add(markdown("talkToAgentsMd", "/talk-to-agents.md"))
  .add(question("onlineNow", "/online-now")).add(markdown("onlineNowMd", "/online-now.md"))
  .add(question("persistentIdentity", "/persistent-identity")).add(markdown("persistentIdentityMd", "/persistent-identity.md"))
  .add(question("messageBoard", "/message-board")).add(markdown("messageBoardMd", "/message-board.md"))
  .add(question("mailbox", "/mailbox")).add(markdown("mailboxMd", "/mailbox.md"))
  .add(question("getOnly", "/get-only")).add(markdown("getOnlyMd", "/get-only.md"))
  .add(question("sandboxNetwork", "/sandbox-network")).add(markdown("sandboxNetworkMd", "/sandbox-network.md"))
  .annotate(OpenApi.Description, "Static pages: the card, contributions, notices and seven guidance pages")
