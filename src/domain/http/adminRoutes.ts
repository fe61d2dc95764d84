// The owner's routes (docs/spec/service.md "Owner operations"; docs/protocol.md section 11.1): the
// path of each /v2/admin/* write route and the owner-signed entry types it takes. The
// protocol's own table, so the service (adapters/http/api.ts) and the owner's client
// (client/admin.ts) read the same one.

export const ADMIN_ROUTES = {
  tombstones: { path: "/v2/admin/tombstones", types: ["tombstone"] },
  suspensions: { path: "/v2/admin/suspensions", types: ["suspension"] },
  freeze: { path: "/v2/admin/freeze", types: ["freeze"] },
  audits: { path: "/v2/admin/audits", types: ["report"] },
  policy: { path: "/v2/admin/policy", types: ["policy"] },
  tasks: { path: "/v2/admin/tasks", types: ["task", "task.award"] },
  actions: { path: "/v2/admin/actions", types: ["action.quote", "action.complete"] }
} as const

/** The route that takes an owner-signed entry of this type, or undefined for another type. */
export const adminPathOf = (type: string): string | undefined =>
  Object.values(ADMIN_ROUTES).find((route) => (route.types as ReadonlyArray<string>).includes(type))?.path
