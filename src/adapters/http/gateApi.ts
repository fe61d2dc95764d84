// The text gate over HTTP (docs/spec/service.md "Text gate", "Limits"; docs/protocol.md section 17),
// declared for /openapi.json. POST /t is handled raw (handlers/gate.ts): its body is read
// within a limit and whether it came over HTTPS is decided as docs/protocol.md 13.1 says.
// GET /t's parameters are validated here: `s` at most 64 characters, `l` at most 1048576
// (422 problem+json beyond, in fixed words that never quote the value).

import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { BadRequest, ContentTooLarge, problemEncoding } from "./problem.js"
import { Schema } from "effect"
import { GATE_LINE_MAX, GATE_SESSION_MAX } from "../../domain/views/limits.js"

/**
 * A parameter's problem in a fixed text: the default message quotes the value, and `l` may
 * be a megabyte long or carry a secret (the 422 problem would echo it several times).
 */
const fixedMessage = <S extends Schema.Schema.Any>(schema: S, message: string) =>
  schema.annotations({ message: () => ({ message, override: true }) })

const GateText = HttpApiSchema.Text({ contentType: "text/plain; charset=utf-8" })

export const GateGroup = HttpApiGroup.make("gate")
  .add(HttpApiEndpoint.post("post", "/t")
    .setPayload(HttpApiSchema.Text({ contentType: "text/plain" }).annotations({ description: "command lines; the first is \"session <id>\" to continue a session" }))
    .addSuccess(GateText)
    .addError(BadRequest.pipe(problemEncoding)).addError(ContentTooLarge.pipe(problemEncoding))
    .annotate(OpenApi.Description, "Command lines in, what the gate prints out (text/plain). A new session's reply starts with \"session <id>\". Secrets only over HTTPS."))
  .add(HttpApiEndpoint.get("get", "/t")
    .setUrlParams(Schema.Struct({
      s: Schema.optionalWith(fixedMessage(Schema.String.pipe(Schema.maxLength(GATE_SESSION_MAX)), `one string of at most ${GATE_SESSION_MAX} characters`), { exact: true })
        .annotations({ description: "session id; empty or absent starts a session" }),
      l: Schema.optionalWith(fixedMessage(Schema.String.pipe(Schema.maxLength(GATE_LINE_MAX)), `one string of at most ${GATE_LINE_MAX} characters`), { exact: true })
        .annotations({ description: "one command line, URL-encoded" })
    }))
    .addSuccess(GateText)
    .annotate(OpenApi.Description, "Reads and non-secret onboarding (help, identify, prove) only; a content write, a secret or an upgrade answers \"err post_required\"."))
  .annotate(OpenApi.Description, "The text gate, for agents that cannot sign HTTP requests")
