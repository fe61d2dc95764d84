// What /openapi.json says of the error answers, where HttpApi's own rendering would mislead
// (OpenApi.Transforms of api.ts):
//   - HttpApi documents its built-in decode error as a 400 on every endpoint; this service
//     turns that error into the 422 problem (server.ts), so the decode error is dropped, and
//     every 400 that declared nothing else with it. The writes' own 400 (a log-signed
//     refusal, api.ts refusalAt) stays.
//   - HttpApi merges the errors an endpoint declares at one status into one schema under the
//     first one's media type, so a write's 429 read as its signed refusal or the `requests`
//     budget's problem, both as application/json. The problems (problem.ts) are served as
//     application/problem+json, so they are listed under that media type, apart (and a
//     route's text answer at a status, add-checkpoint's 409 size, stays under its own).

import { PROBLEM_CONTENT_TYPE } from "./problem.js"

/** A problem schema's reference in /openapi.json. */
export const problemRef = (problem: { readonly identifier: string }) => `#/components/schemas/${problem.identifier}`

const DECODE_ERROR = "#/components/schemas/HttpApiDecodeError"

/** The components that are problem documents (problem.ts): those with every member of one. */
const problemsOf = (spec: Record<string, any>): ReadonlySet<string> => {
  const schemas = (spec["components"]?.["schemas"] ?? {}) as Record<string, { required?: ReadonlyArray<string> }>
  return new Set(Object.entries(schemas)
    .filter(([, schema]) => PROBLEM_MEMBERS.every((member) => schema.required?.includes(member)))
    .map(([name]) => `#/components/schemas/${name}`))
}
const PROBLEM_MEMBERS = ["type", "title", "status", "code", "detail"]

type Schema = { readonly $ref?: string; readonly anyOf?: ReadonlyArray<Schema> }
type Response = { description?: string; content?: Record<string, { schema?: Schema }> }

const operationsOf = (spec: Record<string, any>): Array<{ responses?: Record<string, Response> }> =>
  (Object.values(spec["paths"] ?? {}) as Array<Record<string, any>>).flatMap((item) => Object.values(item))

/** The alternatives a media type's schema lists: its anyOf, or itself. */
const alternatives = (schema: Schema | undefined): ReadonlyArray<Schema> => schema === undefined ? [] : schema.anyOf ?? [schema]

const oneOrAny = (schemas: ReadonlyArray<Schema>): Schema => schemas.length === 1 ? schemas[0]! : { anyOf: schemas }

const nameOf = (schema: Schema) => schema.$ref?.slice(schema.$ref.lastIndexOf("/") + 1) ?? "a schema"

/** How a response describes a schema it lists: the component's own description, else its name. */
export const describerOf = (spec: Record<string, any>) => (schema: Schema & { description?: string }): string =>
  schema.description ?? (schema.$ref === undefined ? undefined : spec["components"]?.["schemas"]?.[nameOf(schema)]?.["description"]) ?? nameOf(schema)

/**
 * Takes the schemas `refs` names out of an operation's response at `status`, and the
 * response itself when nothing else is declared there: for errors HttpApi declares on every
 * operation that some never answer.
 */
export const withoutSchemas = (
  responses: Record<string, Response> | undefined,
  status: string,
  refs: ReadonlySet<string>,
  describe: (schema: Schema) => string = nameOf
): void => {
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
  response.description = declared.map(describe).join("; or ")
}

export const withoutDecodeError = (spec: Record<string, any>): Record<string, any> => {
  const describe = describerOf(spec)
  for (const { responses } of operationsOf(spec)) withoutSchemas(responses, "400", new Set([DECODE_ERROR]), describe)
  delete spec["components"]?.["schemas"]?.["HttpApiDecodeError"]
  return spec
}

export const problemsApart = (spec: Record<string, any>): Record<string, any> => {
  const problemRefs = problemsOf(spec)
  const describe = describerOf(spec)
  for (const { responses } of operationsOf(spec)) {
    for (const response of Object.values(responses ?? {})) {
      const content = response.content
      if (content === undefined) continue
      for (const [type, media] of Object.entries(content)) {
        if (type === PROBLEM_CONTENT_TYPE) continue
        const all = alternatives(media.schema)
        const problems = all.filter((one) => one.$ref !== undefined && problemRefs.has(one.$ref))
        if (problems.length === 0) continue
        const others = all.filter((one) => !problems.includes(one))
        if (others.length === 0) {
          delete content[type]
        } else {
          media.schema = oneOrAny(others)
          response.description = `${problems.map(describe).join("; or ")}; or ${others.map(describe).join("; or ")} (${type})`
        }
        const listed = alternatives(content[PROBLEM_CONTENT_TYPE]?.schema)
        const refs = new Set(listed.map((one) => one.$ref))
        content[PROBLEM_CONTENT_TYPE] = { schema: oneOrAny([...listed, ...problems.filter((one) => !refs.has(one.$ref) && refs.add(one.$ref))]) }
      }
    }
  }
  return spec
}

/**
 * An operation's Transform for a route whose error at `status` is text in a media type of its
 * own (add-checkpoint's 409, text/x.tlog.size): HttpApi lists every error of a status under
 * application/json, so the string schemas there move to `mediaType`; the problems beside them
 * move to problem+json with problemsApart.
 */
export const textAnswerAt = (status: string, mediaType: string) => (operation: Record<string, any>): Record<string, any> => {
  const content: Record<string, { schema?: Schema & { type?: string } }> | undefined = operation["responses"]?.[status]?.content
  const json = content?.["application/json"]
  if (content === undefined || json === undefined) return operation
  const all = alternatives(json.schema) as ReadonlyArray<Schema & { type?: string }>
  const texts = all.filter((one) => one.type === "string")
  if (texts.length === 0) return operation
  const rest = all.filter((one) => one.type !== "string")
  if (rest.length === 0) delete content["application/json"]
  else json.schema = oneOrAny(rest)
  content[mediaType] = { schema: oneOrAny(texts) }
  return operation
}
