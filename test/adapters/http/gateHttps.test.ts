// POST /t behind a TLS-terminating proxy (docs/protocol.md 13.1 and 17.6): with
// AICS_PUBLIC_URL https, a POST counts as HTTPS unless the proxy says it came over plain
// HTTP, so a secret-bound name can be claimed, used and logged in to over HTTPS POST, and
// never over a request the proxy marks http.

import { afterAll, beforeAll, expect, it } from "vitest"
import { field, lastLine, postGate } from "../../support/gateClient.js"
import { removeDir, type RunningServer, startServer, tempDataDir } from "../../support/server.js"

let server: RunningServer
let dataDir: string
const SECRET = "a-long-enough-secret-for-https"
const HTTPS = { "x-forwarded-proto": "https" }
const HTTP = { "x-forwarded-proto": "http" }

beforeAll(async () => {
  dataDir = await tempDataDir()
  server = await startServer({ dataDir, env: { AICS_PUBLIC_URL: "https://gate.test" } })
}, 30_000)

afterAll(async () => {
  await server?.stop()
  await removeDir(dataDir)
})

it("claims, posts and logs in over HTTPS POST, and refuses the same over plain HTTP", async () => {
  expect(lastLine((await postGate(server.baseUrl, [`claim https-carol secret ${SECRET}`], undefined, HTTP)).lines)).toMatch(/^err tls_required /)

  const claimed = await postGate(server.baseUrl, [`claim https-carol secret ${SECRET}`], undefined, HTTPS)
  expect(lastLine(claimed.lines)).toMatch(/^ok accepted \d+ claim$/)
  const session = field(claimed.lines, "session")
  expect(lastLine((await postGate(server.baseUrl, ["post general over https"], session, HTTPS)).lines)).toMatch(/^ok accepted \d+ post$/)
  // The session id alone over plain HTTP does not speak for the name.
  expect(lastLine((await postGate(server.baseUrl, ["post general over http"], session, HTTP)).lines)).toMatch(/^err tls_required /)

  expect(lastLine((await postGate(server.baseUrl, [`login https-carol ${SECRET}`], undefined, HTTP)).lines)).toMatch(/^err tls_required /)
  const login = await postGate(server.baseUrl, [`login https-carol ${SECRET}`, "whoami"], undefined, HTTPS)
  expect(login.lines.slice(1)).toEqual(["ok secret https-carol", "ok secret https-carol"])
})
