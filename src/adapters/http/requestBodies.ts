// The OpenAPI of what HttpApi cannot see. The notice routes read their bodies raw (a form or
// JSON, size-limited before parsing; a signed body checked byte for byte), so no payload
// schema is declared and the generated operation has no requestBody: these transforms add
// it from the same schemas that decide (NoticeRequest, CloseBody). The tile route is a
// wildcard in the router (a tile path has several segments); the document names it as the
// parameterized path C2SP tlog-tiles defines.

import { JSONSchema, type Schema } from "effect"

/** `{$ref: "#/$defs/X", ...}` replaced by X's definition: a body schema stands alone in the document. */
const inlined = (value: unknown, defs: Readonly<Record<string, unknown>>): unknown => {
  if (Array.isArray(value)) return value.map((v) => inlined(v, defs))
  if (typeof value !== "object" || value === null) return value
  const { $ref, ...rest } = value as Record<string, unknown>
  const base = typeof $ref === "string" && $ref.startsWith("#/$defs/") ? inlined(defs[$ref.slice(8)], defs) as Record<string, unknown> : {}
  return { ...base, ...Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, inlined(v, defs)])) }
}

const jsonSchemaOf = (schema: Schema.Schema.Any): unknown => {
  const { $schema: _, $defs, ...rest } = JSONSchema.make(schema) as unknown as Record<string, unknown>
  return inlined(rest, ($defs ?? {}) as Record<string, unknown>)
}

/** An operation transform that adds a required request body with `schema` in each media type. */
export const requestBodyOpenApi = (schema: Schema.Schema.Any, mediaTypes: ReadonlyArray<string>, description: string) =>
  (operation: Record<string, any>): Record<string, any> => {
    const json = jsonSchemaOf(schema)
    return {
      ...operation,
      requestBody: { required: true, description, content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: json }])) }
    }
  }

const TILE_WILDCARD = "/tiles/tile/*"
export const TILE_TEMPLATE = "/tiles/tile/{tile_path}"

/** The spec with the tile route as `/tiles/tile/{tile_path}` and its parameter described. */
export const tileRouteTemplate = (spec: Record<string, any>): Record<string, any> => {
  const route = spec["paths"]?.[TILE_WILDCARD]
  if (route === undefined) return spec
  const { [TILE_WILDCARD]: _, ...paths } = spec["paths"] as Record<string, any>
  const parameter = {
    name: "tile_path",
    in: "path",
    required: true,
    // C2SP tlog-tiles: the path below tile/ spans several segments.
    description: "C2SP tlog-tiles path below tile/: <L>/<N>[.p/<W>] for a hash tile of level L, entries/<N>[.p/<W>] for an entry bundle; " +
      "N is the tile index in groups of three digits, each but the last prefixed with x (x001/234), W the width of a partial tile. Slashes are not escaped.",
    schema: { type: "string", pattern: "^(?:[0-9]+|entries)/(?:x[0-9]{3}/)*[0-9]{3}(?:\\.p/[0-9]+)?$" },
    allowReserved: true
  }
  const withParameter = Object.fromEntries(Object.entries(route as Record<string, any>).map(([method, operation]) =>
    [method, { ...operation, parameters: [parameter, ...((operation.parameters as Array<unknown> | undefined) ?? [])] }]))
  return { ...spec, paths: { ...paths, [TILE_TEMPLATE]: withParameter } }
}
