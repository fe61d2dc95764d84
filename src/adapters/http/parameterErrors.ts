// A 422 names each bad parameter once, in words (docs/spec/profile.md section 7): HttpApi
// decodes the query with Effect Schema's default of stopping at the first failure, and
// reports an optional parameter's failure once per member of `X | undefined` (the
// "Expected undefined, actual ..." that says nothing to a caller). So every endpoint's
// query is decoded with errors "all", and the issues are folded to one per parameter.

import type * as HttpApi from "@effect/platform/HttpApi"
import { Option } from "effect"

/**
 * Makes every endpoint of `api` decode its query parameters with errors "all". HttpApi
 * builds each route's decoder from the endpoint when the API layer is built, so this runs
 * once, before that (src/adapters/http/server.ts); the OpenAPI document is unchanged.
 */
export const decodeEveryParameter = (api: HttpApi.HttpApi.Any): void => {
  const groups = (api as unknown as { readonly groups: Record<string, { readonly endpoints: Record<string, { urlParamsSchema: Option.Option<any> }> }> }).groups
  for (const group of Object.values(groups)) {
    for (const endpoint of Object.values(group.endpoints)) {
      const params = endpoint.urlParamsSchema
      if (Option.isSome(params)) endpoint.urlParamsSchema = Option.some(params.value.annotations({ parseOptions: { errors: "all" } }))
    }
  }
}

export interface ParameterError {
  readonly path: string
  readonly message: string
}

const NOT_UNDEFINED = /^Expected undefined, actual /
const EXPECTED_LITERAL = /^Expected ("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null), actual (.*)$/s

/**
 * One error per parameter, in the order they were found: the "Expected undefined" of an
 * optional's union dropped, and a union of literals said once ("Expected "html" | "json" |
 * "text", actual "pdf"").
 */
export const oneErrorPerParameter = (errors: ReadonlyArray<ParameterError>): ReadonlyArray<ParameterError> => {
  const byPath = new Map<string, Array<string>>()
  for (const { path, message } of errors) {
    const messages = byPath.get(path) ?? []
    if (!messages.includes(message)) messages.push(message)
    byPath.set(path, messages)
  }
  return [...byPath].map(([path, messages]) => {
    const meaningful = messages.filter((m) => !NOT_UNDEFINED.test(m))
    const kept = meaningful.length > 0 ? meaningful : messages
    const literals = kept.map((m) => EXPECTED_LITERAL.exec(m))
    if (kept.length > 1 && literals.every((m) => m !== null && m[2] === literals[0]![2])) {
      return { path, message: `Expected ${literals.map((m) => m![1]).join(" | ")}, actual ${literals[0]![2]}` }
    }
    return { path, message: kept[0]! }
  })
}
