// `aics audit name` against services of other versions (src/client/audit.ts, comparable): a
// member the view gained later that an older service does not give, or a member a later
// service gives that this client does not fold, is reported as not checked, not as a view
// that differs from the log; a member every version gives that the service withholds, or a
// value that disagrees, is still a difference.

import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nobleCrypto } from "../../src/adapters/crypto/nobleCrypto.js"
import { claimName } from "../../src/client/agent.js"
import { generateAgentKey } from "../../src/client/agentKey.js"
import { auditName } from "../../src/client/audit.js"
import { serviceAt } from "../../src/client/http.js"
import { createAgentKeyFile } from "../../src/client/keyFile.js"
import type { LogClient } from "../../src/client/write.js"
import { parseVerifierKey } from "../../src/domain/note/verifierKey.js"
import { startCliWorld, type CliWorld } from "../support/aicsCli.js"

let world: CliWorld
let client: LogClient

beforeAll(async () => {
  world = await startCliWorld("aics-audit-versions-")
  client = { service: serviceAt(world.server.baseUrl), vkey: parseVerifierKey(nobleCrypto.sha256, world.vkey)! }
  const path = join(world.agentsDir, "ada.json")
  await createAgentKeyFile(path, generateAgentKey())
  expect((await claimName(client, path, "ada"))._tag).toBe("Accepted")
}, 60_000)

afterAll(async () => {
  await world?.stop()
})

/** The client, with the name views the service answers rewritten by `edit`, as a service of another version would answer. */
const through = (edit: (view: Record<string, unknown>) => void): LogClient => ({
  ...client,
  service: serviceAt(world.server.baseUrl, async (input, init) => {
    const response = await fetch(input, init)
    if (!String(input instanceof Request ? input.url : input).includes("/v2/names/")) return response
    const view = (await response.json()) as Record<string, unknown>
    edit(view)
    return new Response(JSON.stringify(view), { status: response.status, headers: response.headers })
  })
})

describe("audit name with services of other versions", () => {
  it("agrees with this version's service, with nothing unchecked", async () => {
    const report = await auditName(client, "ada")
    expect(report.differences).toEqual([])
    expect(report.unchecked).toEqual([])
    expect(report.ok).toBe(true)
  }, 60_000)

  it("agrees with an earlier service that lacks the later members, saying what it did not check", async () => {
    const report = await auditName(through((view) => {
      delete view["recovery_stands"]
      delete view["recovery_bound_index"]
    }), "ada")
    expect(report.differences).toEqual([])
    expect(report.unchecked).toEqual([{ member: "recovery_stands", side: "log_only" }, { member: "recovery_bound_index", side: "log_only" }])
    expect(report.ok).toBe(true)
  }, 60_000)

  it("agrees with a later service's members it does not fold, saying so", async () => {
    const report = await auditName(through((view) => void (view["reputation"] = 7)), "ada")
    expect(report.differences).toEqual([])
    expect(report.unchecked).toEqual([{ member: "reputation", side: "service_only" }])
    expect(report.ok).toBe(true)
  }, 60_000)

  it("still finds a member every version gives withheld, and a value that disagrees", async () => {
    const withheld = await auditName(through((view) => void delete view["claim_index"]), "ada")
    expect(withheld.differences.map((d) => d.path)).toEqual(["/claim_index"])
    expect(withheld.ok).toBe(false)
    const wrong = await auditName(through((view) => void (view["recovery_stands"] = false)), "ada")
    expect(wrong.differences).toEqual([{ path: "/recovery_stands", log: null, server: false }])
    expect(wrong.ok).toBe(false)
  }, 60_000)
})
