// POST /t behind a TLS-terminating proxy (docs/protocol.md 17.4): with AICS_PUBLIC_URL
// https, a POST counts as HTTPS only when the nearest proxy says so, so a secret-bound name
// can be claimed, used and logged in to over HTTPS POST, and never over a request the proxy
// marks http, one without the header, or one whose forged first value says https. A
// secret-bound session's id seen over plain HTTP or GET ends that session.

import { afterAll, beforeAll, expect, it } from "vitest"
import { field, getGate, lastLine, postGate, sessionOf } from "../../support/gateClient.js"
import { removeDir, type RunningServer, startServer, tempDataDir } from "../../support/server.js"

let server: RunningServer
let dataDir: string
const SECRET = "a-long-enough-secret-for-https"
const HTTPS = { "x-forwarded-proto": "https" }
const HTTP = { "x-forwarded-proto": "http" }
const FORGED = { "x-forwarded-proto": "https, http" }

beforeAll(async () => {
  dataDir = await tempDataDir()
  server = await startServer({ dataDir, env: { AICS_PUBLIC_URL: "https://gate.test" } })
}, 30_000)

afterAll(async () => {
  await server?.stop()
  await removeDir(dataDir)
})

it("claims, posts and logs in over HTTPS POST, and refuses the same over plain HTTP, no header or a forged one", async () => {
  for (const headers of [HTTP, {}, FORGED]) {
    expect(lastLine((await postGate(server.baseUrl, [`claim https-carol secret ${SECRET}`], undefined, headers)).lines)).toMatch(/^err tls_required /)
  }

  const claimed = await postGate(server.baseUrl, [`claim https-carol secret ${SECRET}`], undefined, HTTPS)
  expect(lastLine(claimed.lines)).toMatch(/^ok accepted \d+ claim$/)
  // The claim renewed the session id: the anonymous one speaks for nothing.
  const anonymous = field(claimed.lines, "session")
  const session = sessionOf(claimed.lines)
  expect(session).not.toBe(anonymous)
  expect(lastLine((await postGate(server.baseUrl, ["whoami"], anonymous, HTTPS)).lines)).toBe("ok anonymous")
  expect(lastLine((await postGate(server.baseUrl, ["post general over https"], session, HTTPS)).lines)).toMatch(/^ok accepted \d+ post$/)

  expect(lastLine((await postGate(server.baseUrl, [`login https-carol ${SECRET}`], undefined, HTTP)).lines)).toMatch(/^err tls_required /)
  const login = await postGate(server.baseUrl, [`login https-carol ${SECRET}`, "whoami"], undefined, HTTPS)
  expect(login.lines.slice(2)).toEqual(["expect post <channel> <text>  |  upgrade <your did:key> <secret>", "ok secret https-carol", "ok secret https-carol"])
  expect(sessionOf(login.lines)).not.toBe(field(login.lines, "session"))
})

it("ends a secret-bound session whose id arrives over plain HTTP or GET", async () => {
  const claimed = await postGate(server.baseUrl, [`claim https-dave secret ${SECRET}`], undefined, HTTPS)
  expect(lastLine(claimed.lines)).toMatch(/^ok accepted \d+ claim$/)
  const exposed = sessionOf(claimed.lines)
  const overHttp = await postGate(server.baseUrl, ["post general over http"], exposed, HTTP)
  expect(lastLine(overHttp.lines)).toMatch(/^err session_revoked /)
  // Gone for good: the same id over HTTPS is an unknown session now.
  const after = await postGate(server.baseUrl, ["whoami"], exposed, HTTPS)
  expect(after.lines).toContain("# that session is unknown or expired; this is a new one")
  expect(lastLine(after.lines)).toBe("ok anonymous")

  const login = await postGate(server.baseUrl, [`login https-dave ${SECRET}`], undefined, HTTPS)
  const overGet = await getGate(server.baseUrl, "whoami", sessionOf(login.lines))
  expect(overGet.text).toMatch(/\nerr session_revoked /)
  expect(lastLine((await postGate(server.baseUrl, ["whoami"], sessionOf(login.lines), HTTPS)).lines)).toBe("ok anonymous")
})

it("checks at most one secret per request", async () => {
  const twice = await postGate(server.baseUrl, [`login https-carol wrong-secret-but-long`, `login https-carol ${SECRET}`], undefined, HTTPS)
  expect(twice.lines.filter((l) => l.startsWith("err ") || l.startsWith("ok "))).toEqual([
    "err login_failed no secret-bound name with that secret",
    "err busy one secret command per request"
  ])
})
