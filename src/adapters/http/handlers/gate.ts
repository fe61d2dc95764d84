// POST /t and GET /t (docs/spec/service.md "Text gate"; docs/protocol.md section 17): the HTTP
// transports of the text gate (app/Gate.ts). POST takes a text/plain body of command lines,
// the first of which may be "session <id>"; it counts as TLS only when the proxy in front
// says it came over HTTPS (docs/protocol.md 17.4, https.ts's proxySaidHttps). GET takes one
// line in `l` and the session in `s`, and is never trusted with a secret. Neither reply may
// be cached: it carries session ids and what a session did.

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { Gate } from "../../../app/Gate.js"
import { ServiceConfig } from "../../../app/ServiceConfig.js"
import { currentClient, tooManyRequests } from "../admission.js"
import { AicsApi } from "../api.js"
import { proxySaidHttps } from "../https.js"
import { readLimitedBody } from "../limitedBody.js"
import { problemResponse } from "../problem.js"

/** The largest POST /t body: as much as GET's one line may carry. */
export const MAX_GATE_POST_BYTES = 1_048_576 + 4096

const SESSION_LINE = /^session (\S{1,64})$/

const text = (lines: ReadonlyArray<string>) =>
  HttpServerResponse.text(lines.map((line) => `${line}\n`).join(""), {
    contentType: "text/plain; charset=utf-8",
    headers: { "cache-control": "no-store" }
  })

export const GateHandlers = HttpApiBuilder.group(AicsApi, "gate", (handlers) =>
  Effect.gen(function*() {
    const gate = yield* Gate
    const config = yield* ServiceConfig

    return handlers
      .handleRaw("post", ({ request }) =>
        Effect.gen(function*() {
          const body = yield* readLimitedBody(request, MAX_GATE_POST_BYTES)
          if (body._tag === "Failed") return yield* problemResponse({ status: 400, code: "malformed_request", detail: "the body could not be read" })
          if (body._tag === "TooLarge") return yield* problemResponse({ status: 413, code: "body_too_large", detail: `a POST /t body is at most ${MAX_GATE_POST_BYTES} bytes` })
          const lines = new TextDecoder().decode(body.bytes).split("\n")
          const first = lines.findIndex((line) => line.trim() !== "")
          const session = first < 0 ? null : SESSION_LINE.exec(lines[first]!.trim())
          const id = session === null ? undefined : session[1]
          const commands = session === null ? lines : lines.slice(first + 1)
          const tls = proxySaidHttps(request.headers, config.publicUrl)
          const reply = yield* gate.exchange(id, commands, { tls, method: "POST" }, yield* currentClient)
          if (reply.limited !== undefined) return yield* tooManyRequests(reply.limited)
          return text(reply.lines)
        }))
      .handle("get", ({ urlParams }) =>
        Effect.gen(function*() {
          yield* HttpApp.appendPreResponseHandler((_request, response) => Effect.succeed(HttpServerResponse.setHeader(response, "cache-control", "no-store")))
          const lines = urlParams.l === undefined ? [] : [urlParams.l]
          const reply = yield* gate.exchange(urlParams.s === "" ? undefined : urlParams.s, lines, { tls: false, method: "GET" }, yield* currentClient)
          // The endpoint's success is text; a spent budget is the 429 problem, which the server
          // answers as it is when it arrives as a defect (HttpServerError.causeResponse).
          if (reply.limited !== undefined) return yield* Effect.flatMap(tooManyRequests(reply.limited), Effect.die)
          return reply.lines.map((line) => `${line}\n`).join("")
        }))
  }))
