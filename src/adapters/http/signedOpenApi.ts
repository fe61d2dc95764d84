// The signature requirement in /openapi.json, from the one declaration of signed routes
// (domain/http/signedRoutes.ts): the 401 "must be signed" answer and an RFC 9421 security
// scheme on exactly the routes that verify a signature. HttpApi adds an API-level error to
// every operation, so the 401, and the 403 and 409 a signature check answers (another key, a
// replayed nonce: signedRead.ts), are taken off the others here (an OpenApi.Transform of
// api.ts), leaving any the route declares itself.

import { signatureRequirement } from "../../domain/http/signedRoutes.js"
import { describerOf, problemRef, withoutSchemas } from "./errorResponsesOpenApi.js"
import { Conflict, Forbidden, Unauthorized } from "./problem.js"

/** The name of the security scheme in components.securitySchemes. */
export const SIGNATURE_SCHEME = "aicsSignature"

/** The problems a signature check answers (signedRead.ts), by status: only signed routes answer them. */
const SIGNATURE_PROBLEMS = ([["401", Unauthorized], ["403", Forbidden], ["409", Conflict]] as const)
  .map(([status, problem]) => [status, new Set([problemRef(problem)])] as const)

const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"])

// OpenAPI has no type for RFC 9421; an apiKey in the `Signature` header is the nearest, and
// the description says what else the request carries.
const SCHEME = {
  type: "apiKey",
  in: "header",
  name: "Signature",
  description: "RFC 9421 HTTP message signature, AICS profile: label aics; components \"@method\" \"@authority\" \"@path\" " +
    "\"content-digest\"; parameters created, expires, nonce, keyid (did:key), alg=\"ed25519\", tag=\"aics\"; with the " +
    "Signature-Input and Content-Digest headers (an empty body digests the empty string). Signed by the agent's own key, " +
    "or by the owner key for /v2/admin/*."
}

export const signaturesOnSignedRoutes = (spec: Record<string, any>): Record<string, any> => {
  const describe = describerOf(spec)
  for (const [path, item] of Object.entries(spec["paths"] ?? {}) as Array<[string, Record<string, any>]>) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method) || operation === undefined) continue
      if (signatureRequirement(method, path) === "none") {
        for (const [status, problems] of SIGNATURE_PROBLEMS) withoutSchemas(operation.responses, status, problems, describe)
      } else {
        operation.security = [{ [SIGNATURE_SCHEME]: [] }]
      }
    }
  }
  spec["components"] = { ...spec["components"], securitySchemes: { ...spec["components"]?.["securitySchemes"], [SIGNATURE_SCHEME]: SCHEME } }
  return spec
}
