// Claims through the text gate pay the published proof of work (issue 13 item 4;
// docs/protocol.md 19.4), as claims over HTTP do: the real service with
// AICS_CLAIM_POW_BITS, its plaintext and TLS gates. A claim pasted whole carries the work
// when the library (workedGateLine) or `aics gate-line claim` made it, and is refused
// work_insufficient when it carries none; a secret-bound claim is told the recipe and
// refused without its work= argument, and taken with the one secretClaimWork or `aics
// gate-line work` made.

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { serviceAt } from "../../../src/client/http.js"
import type { AgentKey } from "../../../src/client/agentKey.js"
import { secretClaimWorkArgument, secretClaimWorkOf, workOf } from "../../../src/domain/admission/proofOfWork.js"
import type { UnsignedEnvelope } from "../../../src/domain/envelope/envelope.js"
import { claimDraft, gateLine, generateAgentKey, saveAgentKeyFile, secretClaimWork, workedGateLine } from "../../../src/client/index.js"
import { loadVkey } from "../../../src/client/vkey.js"
import type { LogClient } from "../../../src/client/write.js"
import { runAics } from "../../support/aicsCli.js"
import { GateConnection, lastLine, selfSignedCert } from "../../support/gateClient.js"
import { freePort, removeDir, type RunningServer, startServer, tempDataDir } from "../../support/server.js"

const POW_BITS = 8
const SECRET = "correct-horse-battery"

let dataDir: string
let server: RunningServer
let gatePort: number
let tlsPort: number
let client: LogClient
let vkey: string

beforeAll(async () => {
  dataDir = await tempDataDir()
  const { cert, key } = selfSignedCert(dataDir)
  gatePort = await freePort()
  tlsPort = await freePort()
  server = await startServer({
    dataDir,
    env: {
      AICS_GATE_PORT: String(gatePort), AICS_GATE_TLS_PORT: String(tlsPort), AICS_GATE_TLS_CERT: cert, AICS_GATE_TLS_KEY: key,
      AICS_CLAIM_POW_BITS: String(POW_BITS)
    }
  })
  for (let i = 0; i < 100 && (server.output().match(/Text gate listening/g) ?? []).length < 2; i++) await new Promise((r) => setTimeout(r, 50))
  vkey = (await readFile(join(dataDir, "log.vkey"), "utf8")).trim()
  client = { service: serviceAt(server.baseUrl), vkey: await loadVkey({ vkeyFile: join(dataDir, "log.vkey") }) }
}, 60_000)

afterAll(async () => {
  await server?.stop()
  await removeDir(dataDir)
})

const unique = (prefix: string) => `${prefix}${Date.now().toString(36).slice(-5)}`

// A claim made without grinding meets POW_BITS by chance once in 256: these make sure the
// work they carry falls short, so the refusal is certain.

/** A gate line of a claim whose envelope carries less than POW_BITS of work. */
const unworkedLine = (key: AgentKey, name: string): string => {
  for (;;) {
    const line = gateLine(key, "localhost/aics", claimDraft(key, name))
    if (workOf(JSON.parse(line).envelope as UnsignedEnvelope, nodeCrypto.sha256) < POW_BITS) return line
  }
}

/** A `work=` argument for a secret-bound claim of `name` that carries less than POW_BITS. */
const unworkedSecretClaim = (name: string): string => {
  const created = Math.floor(Date.now() / 1000)
  for (let i = 0; ; i++) {
    const nonce = `AAAA${i}`
    if (secretClaimWorkOf("localhost/aics", name, created, nonce, nodeCrypto.sha256) < POW_BITS) return secretClaimWorkArgument(created, nonce)
  }
}

describe("a claim pasted into the gate", () => {
  it("carries the card's proof of work when the library makes it, and is refused without", async () => {
    const key = generateAgentKey()
    const gate = await GateConnection.open(gatePort, false)
    try {
      const name = unique("paste")
      expect(lastLine(await gate.send(unworkedLine(key, name)))).toMatch(/^err work_insufficient /)
      const told: Array<[number, number]> = []
      const line = await workedGateLine(client, key, claimDraft(key, name), (bits, tries) => told.push([bits, tries]))
      expect(told[0]).toEqual([POW_BITS, 0])
      expect(lastLine(await gate.send(line))).toMatch(/^ok accepted \d+ /)
    } finally {
      gate.close()
    }
  })

  it("is made with its work by aics gate-line claim", async () => {
    const cwd = await tempDataDir()
    try {
      await saveAgentKeyFile(join(cwd, "key.json"), generateAgentKey())
      const made = await runAics(["gate-line", "claim", unique("cli"), "--key", "key.json"], { cwd, env: { AICS_SERVER: server.baseUrl, AICS_LOG_VKEY: vkey } })
      expect(made.code, made.err).toBe(0)
      expect(made.err).toContain(`proof of work: ${POW_BITS} bits asked for a claim here`)
      const gate = await GateConnection.open(gatePort, false)
      try {
        expect(lastLine(await gate.send(made.out.trim()))).toMatch(/^ok accepted \d+ /)
      } finally {
        gate.close()
      }
    } finally {
      await removeDir(cwd)
    }
  }, 60_000)
})

describe("a secret-bound claim through the TLS gate", () => {
  it("is told the recipe and refused without its work, and taken with the work the library makes", async () => {
    const name = unique("secret")
    const gate = await GateConnection.open(tlsPort, true)
    try {
      const asked = await gate.send(`claim ${name} secret ${SECRET}`)
      expect(lastLine(asked)).toMatch(/^err work_required /)
      expect(asked.join("\n")).toContain(`AICS-1 secret claim work\\nlocalhost/aics\\n${name}\\n<created>\\n<nonce>`)
      expect(lastLine(await gate.send(`claim ${name} secret ${SECRET} ${unworkedSecretClaim(name)}`))).toMatch(/^err work_insufficient /)
      const work = await secretClaimWork(client, name)
      expect(work).toMatch(/^work=\d+\.[A-Za-z0-9_-]+$/)
      expect(lastLine(await gate.send(`claim ${name} secret ${SECRET} ${work}`))).toMatch(/^ok accepted \d+ /)
    } finally {
      gate.close()
    }
  })

  it("takes the work aics gate-line work prints, which needs no key", async () => {
    const name = unique("cliwork")
    const cwd = await tempDataDir()
    try {
      const made = await runAics(["gate-line", "work", name], { cwd, env: { AICS_SERVER: server.baseUrl, AICS_LOG_VKEY: vkey } })
      expect(made.code, made.err).toBe(0)
      const gate = await GateConnection.open(tlsPort, true)
      try {
        expect(lastLine(await gate.send(`claim ${name} secret ${SECRET} ${made.out.trim()}`))).toMatch(/^ok accepted \d+ /)
      } finally {
        gate.close()
      }
    } finally {
      await removeDir(cwd)
    }
  }, 60_000)
})
