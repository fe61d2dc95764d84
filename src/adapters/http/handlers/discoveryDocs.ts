// The discovery documents and the banner (docs/spec/service.md "Discovery"; docs/protocol.md section
// 15): each rendered by a pure function of domain/discovery from the instance's facts and
// the endpoint list derived from the API. Documents that never change while the process
// runs are rendered once; `/` (the checkpoint), security.txt (Expires) and /ip per request.

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Option } from "effect"
import { Publisher } from "../../../app/Publisher.js"
import { publishedCheckpoint } from "../../../app/servedCheckpoint.js"
import { CosignatureCollector } from "../../../app/CosignatureCollector.js"
import { ServiceConfig } from "../../../app/ServiceConfig.js"
import { robotsTxt, sitemapPaths, sitemapTxt, sitemapXml } from "../../../domain/discovery/crawl.js"
import { isFixedPath } from "../../../domain/discovery/endpoints.js"
import { homeHtml, homeJson, homeText } from "../../../domain/discovery/home.js"
import { llmsFullTxt, llmsTxt } from "../../../domain/discovery/llms.js"
import { agentProtocol } from "../../../domain/discovery/manifest.js"
import { securityTxt } from "../../../domain/discovery/securityTxt.js"
import { skillMd } from "../../../domain/discovery/skill.js"
import { fromUtf8 } from "../../../domain/bytes.js"
import { FAVICON_SVG, faviconIco } from "../../../domain/pages/favicon.js"
import { Clock } from "../../../ports/Clock.js"
import { TileSink } from "../../../ports/TileSink.js"
import { AicsApi } from "../api.js"
import { callerAddress } from "../callerAddress.js"
import { negotiatedFormat, pageResponse } from "../pageResponse.js"
import { apiEndpoints, siteFacts } from "../siteFacts.js"
import { ICO, SVG, TEXT, textDocument, XML } from "../textDocument.js"
import { orUnavailable } from "./common.js"

export const DiscoveryDocsHandlers = HttpApiBuilder.group(AicsApi, "discoveryDocs", (handlers) =>
  Effect.gen(function*() {
    const facts = yield* siteFacts
    const { securityContact, trustedProxies } = yield* ServiceConfig
    const clock = yield* Clock
    const sink = yield* TileSink
    const publisher = yield* Publisher
    const collector = yield* CosignatureCollector
    const endpoints = apiEndpoints()

    // The sitemap lists only what the API serves with GET at a fixed path (and /openapi.json,
    // served by the OpenAPI middleware), so a page not built here is never listed.
    const served = new Set(["/openapi.json", ...endpoints.filter((e) => e.method === "GET" && isFixedPath(e.path)).map((e) => e.path)])
    const paths = sitemapPaths((path) => served.has(path))
    const llms = textDocument(llmsTxt(facts), TEXT)
    const llmsFull = textDocument(llmsFullTxt(facts, endpoints), TEXT)
    const skill = textDocument(skillMd(facts), TEXT)
    const robots = textDocument(robotsTxt(facts), TEXT)
    const sitemapText = textDocument(sitemapTxt(facts, paths), TEXT)
    const sitemapXmlText = textDocument(sitemapXml(facts, paths), XML)
    const manifest = agentProtocol(facts, endpoints)
    // The icon changes only with a release: a week in caches. Nothing in it may load or run
    // (an SVG opened in a tab is a document); the inline style is the browser's own viewer's.
    const iconHeaders = { "cache-control": "public, max-age=604800", "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'", "x-content-type-options": "nosniff" }
    const faviconIcoResponse = HttpServerResponse.uint8Array(faviconIco(), { contentType: ICO, headers: iconHeaders })
    const faviconSvgResponse = HttpServerResponse.text(FAVICON_SVG, { contentType: SVG, headers: iconHeaders })

    // The same note /checkpoint serves (app/servedCheckpoint.ts), not a file read of its own.
    const checkpoint = publishedCheckpoint.pipe(
      Effect.provideService(Publisher, publisher),
      Effect.provideService(TileSink, sink),
      Effect.provideService(CosignatureCollector, collector),
      Effect.map(Option.match({ onNone: () => null, onSome: fromUtf8 })),
      orUnavailable
    )

    return handlers
      .handle("home", ({ request, urlParams }) =>
        Effect.map(checkpoint, (note) => {
          const response = pageResponse(negotiatedFormat(urlParams.format, request.headers["accept"]), {
            html: () => homeHtml(facts, note),
            json: () => homeJson(facts, note),
            text: () => homeText(facts, note)
          })
          // The checkpoint moves with every published leaf: a cache asks each time (its ETag,
          // pageDelivery.ts, makes that a 304 while nothing moved); the format follows Accept.
          return HttpServerResponse.setHeaders(response, { "cache-control": "no-cache", vary: "Accept" })
        }))
      .handle("llms", () => Effect.succeed(llms))
      .handle("llmsFull", () => Effect.succeed(llmsFull))
      .handle("skill", () => Effect.succeed(skill))
      .handle("robots", () => Effect.succeed(robots))
      .handle("sitemapTxt", () => Effect.succeed(sitemapText))
      .handle("sitemapXml", () => Effect.succeed(sitemapXmlText))
      .handle("securityTxt", () =>
        Effect.map(clock.nowMillis, (now) => textDocument(securityTxt(facts, now, securityContact), TEXT, "public, max-age=3600")))
      .handle("faviconIco", () => Effect.succeed(faviconIcoResponse))
      .handle("faviconSvg", () => Effect.succeed(faviconSvgResponse))
      .handle("manifest", () => Effect.succeed(manifest))
      .handle("agentProtocol", () => Effect.succeed(manifest))
      .handle("ip", ({ request }) =>
        Effect.succeed(textDocument(
          `${callerAddress(Option.getOrUndefined(request.remoteAddress), request.headers["x-forwarded-for"], trustedProxies)}\n` +
            `What this is: ${facts.publicUrl}/llms.txt\n`,
          TEXT,
          "private, no-store"
        )))
  }))
