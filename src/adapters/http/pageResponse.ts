// How a page route answers in each format (domain/pages/layout.ts): the page's handler gives
// the three renderings lazily and this picks one, with the content type and a short cache
// (pages show projections that change with every leaf).

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

/**
 * The format of a page that answers every client in its own terms (GET /, docs/spec/service.md
 * "Discovery"): the one asked for with `format`, else HTML to a client whose Accept names
 * text/html (a browser), plain text to the rest (curl, an agent's fetch).
 */
export const negotiatedFormat = (format: PageFormat | undefined, accept: string | undefined): PageFormat =>
  format ?? (accept !== undefined && /(^|[\s,])(text\/html|application\/xhtml\+xml)\s*(;|,|$)/i.test(accept) ? "html" : "text")

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
