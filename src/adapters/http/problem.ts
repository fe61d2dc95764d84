// RFC 9457 problem details (docs/spec/profile.md section 7): every error of an endpoint other than an
// entry write is `application/problem+json` with `type` urn:aics:error:<code>, `title`,
// `status`, `code`, `detail`; a 422 adds `errors: [{path, message}]`. One class per status,
// because HttpApi picks the status of an error from its schema.

import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Schema } from "effect"
import { withoutServerPaths } from "../../domain/http/serverPaths.js"

// `status` is a literal per class: HttpApi finds the schema of an error by trying each in
// turn, and problems that differ only in their status would all match the first one.
const problemFields = <S extends number>(status: S) => ({
  type: Schema.String,
  title: Schema.String,
  status: Schema.Literal(status),
  code: Schema.String,
  detail: Schema.String
})

const PROBLEM_JSON = "application/problem+json"

const fieldsOf = <S extends number>(status: S, title: string, code: string, detail: string) =>
  ({ type: `urn:aics:error:${code}`, title, status, code, detail })

export class ValidationIssue extends Schema.Class<ValidationIssue>("ValidationIssue")({
  path: Schema.String,
  message: Schema.String
}) {}

/** 422: a parameter or body outside what the endpoint declares. */
export class InvalidRequest extends Schema.Class<InvalidRequest>("InvalidRequest")(
  { ...problemFields(422), errors: Schema.Array(ValidationIssue) },
  HttpApiSchema.annotations({ status: 422, description: "A parameter or the body is invalid" })
) {
  static of(code: string, detail: string, errors: ReadonlyArray<{ path: string; message: string }> = []) {
    return new InvalidRequest({
      ...fieldsOf(422, "Invalid request", code, detail),
      errors: errors.map((e) => new ValidationIssue(e))
    })
  }
  static fail(code: string, detail: string, errors: ReadonlyArray<{ path: string; message: string }> = []) {
    return Effect.fail(InvalidRequest.of(code, detail, errors))
  }
}

/** 404: no such resource. For log lookups, absence proves nothing. */
export class NotFound extends Schema.Class<NotFound>("NotFound")(
  problemFields(404),
  HttpApiSchema.annotations({ status: 404, description: "Not found" })
) {
  static of(code: string, detail: string) {
    return new NotFound(fieldsOf(404, "Not found", code, detail))
  }
  static fail(code: string, detail: string) {
    return Effect.fail(NotFound.of(code, detail))
  }
}

/** 401: a signed read whose RFC 9421 signature is missing or does not verify. */
export class Unauthorized extends Schema.Class<Unauthorized>("Unauthorized")(
  problemFields(401),
  HttpApiSchema.annotations({ status: 401, description: "The request must be signed (RFC 9421, AICS profile)" })
) {
  static of(code: string, detail: string) {
    return new Unauthorized(fieldsOf(401, "Unauthorized", code, detail))
  }
  static fail(code: string, detail: string) {
    return Effect.fail(Unauthorized.of(code, detail))
  }
}

/** 403: signed by a key that may not read or do this. */
export class Forbidden extends Schema.Class<Forbidden>("Forbidden")(
  problemFields(403),
  HttpApiSchema.annotations({ status: 403, description: "The signing key may not do this" })
) {
  static of(code: string, detail: string) {
    return new Forbidden(fieldsOf(403, "Forbidden", code, detail))
  }
  static fail(code: string, detail: string) {
    return Effect.fail(Forbidden.of(code, detail))
  }
}

/** 409: a signed read that replays a nonce. */
export class Conflict extends Schema.Class<Conflict>("Conflict")(
  problemFields(409),
  HttpApiSchema.annotations({ status: 409, description: "Conflicts with what the service has seen" })
) {
  static of(code: string, detail: string) {
    return new Conflict(fieldsOf(409, "Conflict", code, detail))
  }
  static fail(code: string, detail: string) {
    return Effect.fail(Conflict.of(code, detail))
  }
}

/** 400: a body the route reads itself (/t, /mcp, /notice, /add-checkpoint, contributions) could not be read. */
export class BadRequest extends Schema.Class<BadRequest>("BadRequest")(
  problemFields(400),
  HttpApiSchema.annotations({ status: 400, description: "The body could not be read (malformed_request)" })
) {}

/** 413: a body longer than the route takes (the routes that read their body themselves). */
export class ContentTooLarge extends Schema.Class<ContentTooLarge>("ContentTooLarge")(
  problemFields(413),
  HttpApiSchema.annotations({ status: 413, description: "The body is longer than this route takes (body_too_large)" })
) {}

// A 403 or 409 that an unsigned route answers by a rule of its own (contributions closed, a
// claim already settled, a witnessed log's signature): classes apart from Forbidden and
// Conflict, which /openapi.json keeps only where a signature is checked (signedOpenApi.ts).

/** 403 of an unsigned route's own rule. */
export class RouteRefused extends Schema.Class<RouteRefused>("RouteRefused")(
  problemFields(403),
  HttpApiSchema.annotations({ status: 403, description: "Refused by this route's own rule (the code says which)" })
) {}

/** 409 of an unsigned route's own rule; a claim not yet final also says `confirmations_missing`. */
export class RouteConflict extends Schema.Class<RouteConflict>("RouteConflict")(
  { ...problemFields(409), confirmations_missing: Schema.optional(Schema.NullOr(Schema.Int)) },
  HttpApiSchema.annotations({ status: 409, description: "Conflicts with what this route has recorded (the code says what)" })
) {}

/**
 * 429: the client's address has spent its `requests` budget (admission.ts). Declared for
 * every route: the middleware answers it before any route is reached, with Retry-After.
 */
export class TooManyRequests extends Schema.Class<TooManyRequests>("TooManyRequests")(
  problemFields(429),
  HttpApiSchema.annotations({ status: 429, description: "The address's requests budget is spent: retry after Retry-After seconds" })
) {}

/** 503: the service cannot answer now (storage failure, log diverged). */
export class Unavailable extends Schema.Class<Unavailable>("Unavailable")(
  problemFields(503),
  HttpApiSchema.annotations({ status: 503, description: "Service unavailable" })
) {
  static of(code: string, detail: string) {
    return new Unavailable(fieldsOf(503, "Service unavailable", code, detail))
  }
  static fail(code: string, detail: string) {
    return Effect.fail(Unavailable.of(code, detail))
  }
}

/** Marks an error schema as served with the problem+json media type. */
export const problemEncoding = <A extends Schema.Schema.Any>(self: A): A =>
  HttpApiSchema.withEncoding(self, { kind: "Json", contentType: PROBLEM_JSON })
export const PROBLEM_CONTENT_TYPE = PROBLEM_JSON

const TITLES: Record<number, string> = {
  400: "Bad request", 403: "Forbidden", 404: "Not found", 409: "Conflict", 413: "Content too large", 422: "Invalid request", 429: "Too many requests",
  503: "Service unavailable"
}

/** A problem sent by a raw handler (one that answers app/ProblemAnswer.ts values itself). */
export const problemResponse = (p: {
  readonly status: number
  readonly code: string
  readonly detail: string
  readonly errors?: ReadonlyArray<{ readonly path: string; readonly message: string }>
  readonly retryAfter?: number
  readonly members?: Readonly<Record<string, string | number | null>>
}) =>
  HttpServerResponse.json({
    ...p.members,
    type: `urn:aics:error:${p.code}`, title: TITLES[p.status] ?? "Error", status: p.status, code: p.code, detail: p.detail,
    ...(p.status === 422 ? { errors: p.errors ?? [] } : {})
  }, {
    status: p.status, contentType: PROBLEM_JSON,
    ...(p.retryAfter === undefined ? {} : { headers: { "retry-after": String(p.retryAfter) } })
  }).pipe(Effect.orDie)

/** A storage failure in a raw handler: 503, the request may be retried. */
export const storageProblem = (e: { readonly message: string }) =>
  problemResponse({ status: 503, code: "storage_unavailable", detail: withoutServerPaths(e.message) })
