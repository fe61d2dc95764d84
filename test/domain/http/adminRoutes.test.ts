// The owner's route table (domain/http/adminRoutes.ts), shared by the service and the client.

import { describe, expect, it } from "vitest"
import { ADMIN_ROUTES, adminPathOf } from "../../../src/domain/http/adminRoutes.js"

describe("admin routes", () => {
  it("give each owner-signed type the one route that takes it, and no route to other types", () => {
    for (const route of Object.values(ADMIN_ROUTES)) for (const type of route.types) expect(adminPathOf(type)).toBe(route.path)
    expect(adminPathOf("task.award")).toBe("/v2/admin/tasks")
    expect(adminPathOf("report")).toBe("/v2/admin/audits")
    for (const type of ["post", "claim", "sup.credit", "action.pay"]) expect(adminPathOf(type)).toBeUndefined()
  })
})
