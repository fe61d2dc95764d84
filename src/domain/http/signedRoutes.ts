// Which routes verify an RFC 9421 signature (docs/spec/service.md "Authentication" 3 to 5; the list
// docs/spec/service.md leaves to the agent-protocol document, item 9). This is the one declaration:
// the manifest, /llms-full.txt and the tests read it, and the handlers of these routes are
// the ones that check a signature. A route is named by its method and its OpenAPI path
// template (`{param}`), as /openapi.json spells it.

/** Who must sign a request to a route. */
export type SignatureRequirement =
  /** No signature: discovery, pages, log reads, POST /notice, contributions. */
  | "none"
  /** Signed by the agent's own key (the key whose data is read, or the envelope's key). */
  | "key"
  /** Signed by the owner key that leaf 0 names: 401 unsigned, 403 another key. */
  | "owner"

export interface RouteRef {
  readonly method: string
  readonly path: string
}

/** Every owner route lives under this prefix (docs/spec/service.md "Authentication" 5: `/v2/admin/*`). */
export const OWNER_ROUTE_PREFIX = "/v2/admin/"

/**
 * The routes signed by an agent's key: the entry write (item 3, signed by the envelope's
 * key) and the signed reads (item 4).
 */
export const KEY_SIGNED_ROUTES: ReadonlyArray<RouteRef> = [
  { method: "POST", path: "/v2/entries" },
  { method: "GET", path: "/v2/agents/me" },
  { method: "GET", path: "/v2/inbox/status" },
  { method: "GET", path: "/v2/inbox" },
  { method: "GET", path: "/v2/capsules" },
  { method: "GET", path: "/v2/capsules/{key_hash}" }
]

/** The signature a request to `method path` (an OpenAPI path template) must carry. */
export const signatureRequirement = (method: string, path: string): SignatureRequirement => {
  if (path.startsWith(OWNER_ROUTE_PREFIX)) return "owner"
  const upper = method.toUpperCase()
  return KEY_SIGNED_ROUTES.some((route) => route.method === upper && route.path === path) ? "key" : "none"
}
