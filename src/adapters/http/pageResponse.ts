// How a page route answers in each format (domain/pages/layout.ts): the page's handler gives
// the three renderings lazily and this picks one, with the content type and a short cache
// (pages show projections that change with every leaf). The one reading of Accept for the
// pages is here too (preferredMediaType: `/`, the /notice form's answer, the error pages);
// pageDelivery.ts adds the ETag, gzip and the error pages on the way out.

import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Schema } from "effect"
import { PAGE_FORMATS, type PageFormat } from "../../domain/pages/layout.js"

/** The optional `format` query parameter of a page, declared so 422 answers other values. */
export const PageFormatParam = Schema.optional(Schema.Literal(...PAGE_FORMATS).annotations({
  description: "html (default), json (the page's data) or text (plain text / Markdown)"
}))

/**
 * Every page answer, whatever its format: pages carry no script and load nothing from
 * elsewhere, so the policy allows only their inline style and same-origin images and
 * forms; a browser must not sniff a JSON or text answer into HTML.
 */
export const PAGE_SECURITY_HEADERS = {
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff"
} as const

export interface PageRenderings {
  readonly html: () => string
  readonly json: () => unknown
  readonly text: () => string
}

/** The answer of a page in `format` (html when absent). */
export const pageResponse = (format: PageFormat | undefined, page: PageRenderings): HttpServerResponse.HttpServerResponse => {
  const headers = { "cache-control": "public, max-age=5", ...PAGE_SECURITY_HEADERS }
  switch (format ?? "html") {
    case "json":
      return HttpServerResponse.text(JSON.stringify(page.json()), { contentType: "application/json", headers })
    case "text":
      return HttpServerResponse.text(page.text(), { contentType: "text/plain; charset=utf-8", headers })
    default:
      return HttpServerResponse.text(page.html(), { contentType: "text/html; charset=utf-8", headers })
  }
}

/** One media range of an Accept header (RFC 9110 12.5.1), lower case, with its weight. */
interface MediaRange {
  readonly type: string
  readonly subtype: string
  readonly q: number
}

/** The media ranges of an Accept header; a range with an unreadable weight is left out. */
export const parseAccept = (accept: string): ReadonlyArray<MediaRange> =>
  accept.split(",").flatMap((item) => {
    const [range = "", ...params] = item.split(";").map((part) => part.trim())
    const [type, subtype, ...rest] = range.toLowerCase().split("/")
    if (type === undefined || type === "" || subtype === undefined || subtype === "" || rest.length > 0) return []
    let q = 1
    for (const param of params) {
      const [name = "", value = ""] = param.split("=").map((part) => part.trim())
      if (name.toLowerCase() !== "q") continue
      q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value) ? Number(value) : Number.NaN
    }
    return Number.isNaN(q) || (type === "*" && subtype !== "*") ? [] : [{ type, subtype, q }]
  })

/** How specifically a range names a type: exactly (2), by its top-level type (1), `*\/*` (0); -1 not at all. */
const specificity = (range: MediaRange, type: string, subtype: string): number =>
  range.type === type && range.subtype === subtype ? 2
    : range.type === type && range.subtype === "*" ? 1
    : range.type === "*" ? 0
    : -1

/**
 * The media type of `offered` (in the server's order of preference) that an Accept header
 * takes best (RFC 9110 12.5.1): each offer weighs what its most specific matching range
 * says; the highest weight above 0 wins, a tie going to the offer a range names more
 * specifically (`text/html, *\/*` names text/html), then to the earlier offer. No Accept
 * takes anything: the first offer. Undefined when the header takes none of them.
 */
export const preferredMediaType = <T extends string>(accept: string | undefined, offered: ReadonlyArray<T>): T | undefined => {
  if (accept === undefined || accept.trim() === "") return offered[0]
  const ranges = parseAccept(accept)
  let best: { readonly offer: T; readonly q: number; readonly specificity: number } | undefined
  for (const offer of offered) {
    const [type = "", subtype = ""] = offer.toLowerCase().split("/")
    let found: { q: number; specificity: number } | undefined
    for (const range of ranges) {
      const s = specificity(range, type, subtype)
      if (s < 0 || (found !== undefined && s < found.specificity)) continue
      found = found === undefined || s > found.specificity ? { q: range.q, specificity: s } : { q: Math.max(found.q, range.q), specificity: s }
    }
    if (found === undefined || found.q <= 0) continue
    if (best === undefined || found.q > best.q || (found.q === best.q && found.specificity > best.specificity)) best = { offer, ...found }
  }
  return best?.offer
}

const HTML_TYPES: ReadonlySet<string> = new Set(["text/html", "application/xhtml+xml"])

/**
 * Whether an Accept header prefers HTML to plain text (a browser's does; curl's `*\/*`, an
 * agent's fetch and no Accept at all do not). The weights count: `text/html;q=0.1,
 * text/plain` is text. The one reading of "wants HTML" for the pages (negotiatedFormat) and
 * for the statistics (countRequests.ts), so a request is counted as what it is served as.
 */
export const prefersHtml = (accept: string | undefined): boolean =>
  HTML_TYPES.has(preferredMediaType(accept, ["text/plain", "text/html", "application/xhtml+xml"]) ?? "")

/**
 * The format of a page that answers every client in its own terms (GET /, docs/spec/service.md
 * "Discovery"): the one asked for with `format`, else HTML to a client whose Accept prefers
 * text/html to plain text (a browser), plain text to the rest (curl, an agent's fetch, an
 * Accept that takes neither). The weights count: `text/html;q=0.1, text/plain` is text.
 */
export const negotiatedFormat = (format: PageFormat | undefined, accept: string | undefined): PageFormat =>
  format ?? (prefersHtml(accept) ? "html" : "text")

/**
 * Whether an error answer of a page goes to the client as an HTML page rather than its
 * problem document: `format=html` asks for it; `format=json` or `text` asks for the
 * document; without either, an Accept that prefers text/html to JSON (a browser) does.
 * A client that takes anything (`*\/*`, no Accept) keeps the problem document.
 */
export const errorAsPage = (format: string | undefined, accept: string | undefined): boolean =>
  format === "html" ||
  (format !== "json" && format !== "text" &&
    HTML_TYPES.has(preferredMediaType(accept, ["application/problem+json", "application/json", "text/html", "application/xhtml+xml"]) ?? ""))

/** What a page's `format=json` answer is, for its OpenAPI description. */
export interface PageJson {
  readonly description: string
  /** JSON Schema of the answer; any JSON object when absent. */
  readonly schema?: Readonly<Record<string, unknown>>
}

const TEXT_SCHEMA = { type: "string" }

/**
 * The OpenAPI of a page's 200 with its three formats (an OpenApi.Transform of the
 * operation): HttpApi declares one content type per status, the one the schema that
 * `addSuccess` gets (the HTML), so the JSON and the text forms are added here.
 */
export const pageFormatsOpenApi = (json: PageJson) => (operation: Record<string, any>): Record<string, any> => {
  const ok = operation["responses"]?.["200"]
  if (ok === undefined) return operation
  ok.description = `format=html (default): the page; format=json: ${json.description}; format=text: plain text`
  ok.content = {
    "text/html; charset=utf-8": { schema: TEXT_SCHEMA },
    "application/json": { schema: json.schema ?? { type: "object" } },
    "text/plain; charset=utf-8": { schema: TEXT_SCHEMA }
  }
  return operation
}
