// A document that is text (plain, Markdown, XML): the discovery documents and the `.md`
// forms of the guidance pages (and the content types of the site's icon, declared here too). Their content types are declared once here, for the
// HttpApi schemas (discoveryApi.ts) and the answers alike. They never change while the
// process runs, so caches may keep them a little.

import * as HttpServerResponse from "@effect/platform/HttpServerResponse"

export const TEXT = "text/plain; charset=utf-8"
export const MARKDOWN = "text/markdown; charset=utf-8"
export const XML = "application/xml; charset=utf-8"
export const HTML = "text/html; charset=utf-8"
/** The site's icon (domain/pages/favicon.ts). */
export const SVG = "image/svg+xml"
export const ICO = "image/x-icon"

/** A text answer with its content type and Cache-Control (five minutes unless told). */
export const textDocument = (body: string, contentType: string, cacheControl = "public, max-age=300"): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(body, { contentType, headers: { "cache-control": cacheControl } })
