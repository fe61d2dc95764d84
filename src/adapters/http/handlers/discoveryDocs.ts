// The discovery documents and the banner (service.md "Discovery"; docs/protocol.md section
// 15): each rendered by a pure function of domain/discovery from the instance's facts and
// the endpoint list derived from the API. Documents that never change while the process
// runs are rendered once; `/` (the checkpoint), security.txt (Expires) and /ip per request.

import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { robotsTxt, sitemapPaths, sitemapTxt, sitemapXml } from "../../../domain/discovery/crawl.js"
import { isFixedPath } from "../../../domain/discovery/endpoints.js"
import { homeHtml, homeJson, homeText } from "../../../domain/discovery/home.js"
import { llmsFullTxt, llmsTxt } from "../../../domain/discovery/llms.js"
import { agentProtocol } from "../../../domain/discovery/manifest.js"
import { securityTxt } from "../../../domain/discovery/securityTxt.js"
import { skillMd } from "../../../domain/discovery/skill.js"
import { fromUtf8 } from "../../../domain/bytes.js"
import { Clock } from "../../../ports/Clock.js"
import { TileSink } from "../../../ports/TileSink.js"
import { AicsApi } from "../api.js"
import { callerAddress } from "../callerAddress.js"
import { pageResponse } from "../pageResponse.js"
import { apiEndpoints, siteFacts } from "../siteFacts.js"
import { orUnavailable } from "./common.js"

/** A text document with its content type; discovery documents may be cached a little. */
const document = (body: string, contentType: string, cacheControl = "public, max-age=300") =>
  HttpServerResponse.text(body, { contentType, headers: { "cache-control": cacheControl } })

const TEXT = "text/plain; charset=utf-8"
const MARKDOWN = "text/markdown; charset=utf-8"

export const DiscoveryDocsHandlers = HttpApiBuilder.group(AicsApi, "discoveryDocs", (handlers) =>
  Effect.gen(function*() {
    const facts = yield* siteFacts
    const clock = yield* Clock
    const sink = yield* TileSink
    const endpoints = apiEndpoints()

    // The sitemap lists only what the API serves with GET at a fixed path (and /openapi.json,
    // served by the OpenAPI middleware), so a page not built here is never listed.
    const served = new Set(["/openapi.json", ...endpoints.filter((e) => e.method === "GET" && isFixedPath(e.path)).map((e) => e.path)])
    const paths = sitemapPaths((path) => served.has(path))
    const llms = llmsTxt(facts)
    const llmsFull = llmsFullTxt(facts, endpoints)
    const skill = skillMd(facts)
    const robots = robotsTxt(facts)
    const sitemapText = sitemapTxt(facts, paths)
    const sitemapXmlText = sitemapXml(facts, paths)
    const manifest = agentProtocol(facts, endpoints)

    const checkpoint = sink.readCheckpoint.pipe(Effect.map(Option.match({ onNone: () => null, onSome: fromUtf8 })), orUnavailable)

    return handlers
      .handle("home", ({ urlParams }) =>
        Effect.map(checkpoint, (note) => {
          const response = pageResponse(urlParams.format, {
            html: () => homeHtml(facts, note),
            json: () => homeJson(facts, note),
            text: () => homeText(facts, note)
          })
          // The checkpoint moves with every published leaf.
          return HttpServerResponse.setHeader(response, "cache-control", "no-store")
        }))
      .handle("llms", () => Effect.succeed(document(llms, TEXT)))
      .handle("llmsFull", () => Effect.succeed(document(llmsFull, TEXT)))
      .handle("skill", () => Effect.succeed(document(skill, MARKDOWN)))
      .handle("robots", () => Effect.succeed(document(robots, TEXT)))
      .handle("sitemapTxt", () => Effect.succeed(document(sitemapText, TEXT)))
      .handle("sitemapXml", () => Effect.succeed(document(sitemapXmlText, "application/xml; charset=utf-8")))
      .handle("securityTxt", () => Effect.map(clock.nowMillis, (now) => document(securityTxt(facts, now), TEXT, "public, max-age=3600")))
      .handle("manifest", () => Effect.succeed(manifest))
      .handle("agentProtocol", () => Effect.succeed(manifest))
      .handle("ip", ({ request }) =>
        Effect.succeed(document(
          `${callerAddress(Option.getOrUndefined(request.remoteAddress), request.headers["x-forwarded-for"])}\n` +
            `What this is: ${facts.publicUrl}/llms.txt\n`,
          TEXT,
          "private, no-store"
        )))
  }))
