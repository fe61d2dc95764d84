// What /openapi.json says of the error answers, where HttpApi's own rendering would mislead
// (OpenApi.Transforms of api.ts):
//   - HttpApi documents its built-in decode error as a 400 on every endpoint; this service
//     turns that error into the 422 problem (server.ts), so the decode error is dropped, and
//     every 400 that declared nothing else with it. The writes' own 400 (a log-signed
//     refusal, api.ts refusalAt) stays.
//   - HttpApi merges the errors an endpoint declares at one status into one schema under the
//     first one's media type, so a write's 429 read as its signed refusal or the `requests`
//     budget's problem, both as application/json. The problems (problem.ts) are served as
//     application/problem+json, so they are listed under that media type, apart.

import { Conflict, Forbidden, InvalidRequest, NotFound, PROBLEM_CONTENT_TYPE, TooManyRequests, Unauthorized, Unavailable } from "./problem.js"

/** A problem schema's reference in /openapi.json. */
export const problemRef = (problem: { readonly identifier: string }) => `#/components/schemas/${problem.identifier}`

const DECODE_ERROR = "#/components/schemas/HttpApiDecodeError"

const PROBLEMS = new Set([InvalidRequest, NotFound, Unauthorized, Forbidden, Conflict, TooManyRequests, Unavailable]
  .map(problemRef))

type Schema = { readonly $ref?: string; readonly anyOf?: ReadonlyArray<Schema> }
type Response = { description?: string; content?: Record<string, { schema?: Schema }> }

const operationsOf = (spec: Record<string, any>): Array<{ responses?: Record<string, Response> }> =>
  (Object.values(spec["paths"] ?? {}) as Array<Record<string, any>>).flatMap((item) => Object.values(item))

/** The alternatives a media type's schema lists: its anyOf, or itself. */
const alternatives = (schema: Schema | undefined): ReadonlyArray<Schema> => schema === undefined ? [] : schema.anyOf ?? [schema]

const oneOrAny = (schemas: ReadonlyArray<Schema>): Schema => schemas.length === 1 ? schemas[0]! : { anyOf: schemas }

const nameOf = (schema: Schema) => schema.$ref?.slice(schema.$ref.lastIndexOf("/") + 1) ?? "a schema"

/**
 * Takes the schemas `refs` names out of an operation's response at `status`, and the
 * response itself when nothing else is declared there: for errors HttpApi declares on every
 * operation that some never answer.
 */
export const withoutSchemas = (responses: Record<string, Response> | undefined, status: string, refs: ReadonlySet<string>): void => {
  const response = responses?.[status]
  if (response === undefined) return
  const all = Object.values(response.content ?? {}).flatMap(({ schema }) => alternatives(schema))
  const declared = all.filter((one) => one.$ref === undefined || !refs.has(one.$ref))
  if (declared.length === all.length) return
  if (declared.length === 0) {
    delete responses![status]
    return
  }
  for (const [type, media] of Object.entries(response.content ?? {})) {
    const kept = alternatives(media.schema).filter((one) => one.$ref === undefined || !refs.has(one.$ref))
    if (kept.length === 0) delete response.content![type]
    else media.schema = oneOrAny(kept)
  }
  response.description = declared.map(nameOf).join(" or ")
}

export const withoutDecodeError = (spec: Record<string, any>): Record<string, any> => {
  for (const { responses } of operationsOf(spec)) withoutSchemas(responses, "400", new Set([DECODE_ERROR]))
  delete spec["components"]?.["schemas"]?.["HttpApiDecodeError"]
  return spec
}

export const problemsApart = (spec: Record<string, any>): Record<string, any> => {
  for (const { responses } of operationsOf(spec)) {
    for (const response of Object.values(responses ?? {})) {
      const content = response.content
      if (content === undefined) continue
      for (const [type, media] of Object.entries(content)) {
        if (type === PROBLEM_CONTENT_TYPE) continue
        const all = alternatives(media.schema)
        const problems = all.filter((one) => one.$ref !== undefined && PROBLEMS.has(one.$ref))
        if (problems.length === 0 || problems.length === all.length) continue
        const others = all.filter((one) => !problems.includes(one))
        media.schema = oneOrAny(others)
        response.description = `${response.description ?? problems.map(nameOf).join(" or ")}; or ${others.map(nameOf).join(" or ")} (${type})`
        const listed = alternatives(content[PROBLEM_CONTENT_TYPE]?.schema)
        content[PROBLEM_CONTENT_TYPE] = { schema: oneOrAny([...listed, ...problems]) }
      }
    }
  }
  return spec
}
