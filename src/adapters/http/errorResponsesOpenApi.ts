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

const DECODE_ERROR = "#/components/schemas/HttpApiDecodeError"

const PROBLEMS = new Set([InvalidRequest, NotFound, Unauthorized, Forbidden, Conflict, TooManyRequests, Unavailable]
  .map((problem) => `#/components/schemas/${problem.identifier}`))

type Schema = { readonly $ref?: string; readonly anyOf?: ReadonlyArray<Schema> }
type Response = { description?: string; content?: Record<string, { schema?: Schema }> }

const operationsOf = (spec: Record<string, any>): Array<{ responses?: Record<string, Response> }> =>
  (Object.values(spec["paths"] ?? {}) as Array<Record<string, any>>).flatMap((item) => Object.values(item))

/** The alternatives a media type's schema lists: its anyOf, or itself. */
const alternatives = (schema: Schema | undefined): ReadonlyArray<Schema> => schema === undefined ? [] : schema.anyOf ?? [schema]

const oneOrAny = (schemas: ReadonlyArray<Schema>): Schema => schemas.length === 1 ? schemas[0]! : { anyOf: schemas }

const nameOf = (schema: Schema) => schema.$ref?.slice(schema.$ref.lastIndexOf("/") + 1) ?? "a schema"

export const withoutDecodeError = (spec: Record<string, any>): Record<string, any> => {
  for (const { responses } of operationsOf(spec)) {
    const response = responses?.["400"]
    if (response === undefined) continue
    const declared = Object.values(response.content ?? {}).flatMap(({ schema }) => alternatives(schema)).filter((one) => one.$ref !== DECODE_ERROR)
    if (declared.length === 0) {
      delete responses!["400"]
      continue
    }
    for (const media of Object.values(response.content ?? {})) media.schema = oneOrAny(alternatives(media.schema).filter((one) => one.$ref !== DECODE_ERROR))
    response.description = declared.map(nameOf).join(" or ")
  }
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
