// Two services on loopback witness each other (docs/operations.md "Two operators witness
// each other"): each submits its checkpoints to the other (AICS_WITNESSES) and witnesses the
// other's log (AICS_WITNESS_LOGS). Every checkpoint of each ends up served with the other's
// cosignature beside its own signature; a witness that is down stops nothing and is caught
// up when it returns, having kept the size it last cosigned across the restart. And a log
// restored from an older copy of its data folder, whose witness cosigned more leaves than
// it now holds, is diverged: it refuses every write (signed 503 log_unavailable) and signs
// no checkpoint of another history.

import { cp, readFile, rm } from "node:fs/promises"
import { join } from "node:path"
import { Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../../../src/domain/bytes.js"
import { parseCheckpoint } from "../../../src/domain/note/checkpoint.js"
import { cosignaturesOf, parseCosignerKey, type CosignerKey } from "../../../src/domain/note/cosignature.js"
import { openNote } from "../../../src/domain/note/signedNote.js"
import { parseVerifierKey, type VerifierKey } from "../../../src/domain/note/verifierKey.js"
import { makeAgent } from "../../support/agents.js"
import { ok, runAics } from "../../support/aicsCli.js"
import { postAddCheckpoint } from "../../support/harnessLog.js"
import { callTool, connectAicsMcp } from "../../support/mcpClient.js"
import { freePort, removeDir, startServer, tempDataDir, untilWitnessesHeard, type RunningServer } from "../../support/server.js"
import { sendEntry } from "../../support/signedHttp.js"
import { pollUntil } from "../../support/poll.js"

interface Operator {
  readonly domain: string
  readonly dataDir: string
  readonly port: number
  server: RunningServer
  logKey: VerifierKey
  logVkey: string
  witnessVkey: string
  witnessKey: CosignerKey
}

const operators: Array<Operator> = []
const otherDirs: Array<string> = []
const [a, b] = [0, 1] as const
const origin = (o: Operator) => `${o.domain}/aics`

const configuredEnv = (self: Operator, other: Operator) => ({
  AICS_DOMAIN: self.domain,
  AICS_WITNESS_LOGS: other.logVkey,
  AICS_WITNESSES: `http://127.0.0.1:${other.port} ${other.witnessVkey}`,
  AICS_WITNESS_QUORUM: "1"
})

/** Started with its witness, and taking writes: each service waits for its witness's first answer. */
const restart = async (self: Operator, other: Operator) => {
  self.server = await startServer({ dataDir: self.dataDir, port: self.port, env: configuredEnv(self, other) })
  await untilWitnessesHeard(self.server)
}

// Four starts of the service: on a loaded machine each has taken 20 s (test/support/server.ts).
beforeAll(async () => {
  for (const domain of ["a.test", "b.test"]) {
    const dataDir = await tempDataDir()
    const port = await freePort()
    // A first start makes the keys; the operators then exchange their verifier keys.
    const server = await startServer({ dataDir, port, env: { AICS_DOMAIN: domain } })
    const logVkey = (await readFile(join(dataDir, "log.vkey"), "utf8")).trim()
    const witnessVkey = (await readFile(join(dataDir, "witness.vkey"), "utf8")).trim()
    await server.stop()
    operators.push({
      domain, dataDir, port, server, logVkey, witnessVkey,
      logKey: parseVerifierKey(nodeCrypto.sha256, logVkey)!,
      witnessKey: parseCosignerKey(nodeCrypto.sha256, witnessVkey)!
    })
  }
  await Promise.all([restart(operators[a]!, operators[b]!), restart(operators[b]!, operators[a]!)])
}, 200_000)

afterAll(async () => {
  for (const o of operators) {
    await o.server.stop()
    await removeDir(o.dataDir)
  }
  for (const d of otherDirs) await removeDir(d)
})

/** The checkpoint the operator serves: its size and the witnesses whose cosignature it carries. */
const served = async (o: Operator, witnesses: ReadonlyArray<CosignerKey>, path = "/checkpoint") => {
  const response = await fetch(`${o.server.baseUrl}${path}`)
  if (response.status !== 200) return undefined
  const note = new Uint8Array(await response.arrayBuffer())
  // A client that knows only the log key opens it.
  const opened = Either.getOrThrow(openNote(note, [o.logKey], nodeCrypto.ed25519))
  const checkpoint = parseCheckpoint(opened.text)!
  const cosignatures = Either.getOrThrow(cosignaturesOf(opened, witnesses, nodeCrypto.ed25519))
  return { size: checkpoint.size, note, cosigners: cosignatures.map((c) => c.witness.name) }
}

const cosignedAtLeast = (o: Operator, by: Operator, size: number, path = "/checkpoint") =>
  pollUntil(`${o.domain}'s checkpoint of ${size} leaves cosigned by ${by.domain}`, async () => {
    const s = await served(o, [by.witnessKey], path)
    return s !== undefined && s.size >= size && s.cosigners.includes(by.witnessKey.name) ? s : undefined
  })

let writes = 0
/** A new leaf in the operator's log: a name claimed by a new key (one name per key). */
const write = async (o: Operator, label: string) => {
  const agent = makeAgent(`witnessing ${o.domain} ${writes}`)
  const sent = await sendEntry(o.server, origin(o), "/v2/entries", agent, "claim", { name: `${label}-${writes++}`, x25519: agent.x25519 })
  expect(sent.status, JSON.stringify(sent.json)).toBe(202)
  return sent.index
}

describe("two services witnessing each other", { timeout: 150_000 }, () => {
  it("serves every new checkpoint of each with the other's cosignature, at /checkpoint and /tiles/checkpoint", async () => {
    const [A, B] = [operators[a]!, operators[b]!]
    for (let round = 0; round < 3; round++) {
      const ia = await write(A, "alpha")
      const ib = await write(B, "bravo")
      const sa = await cosignedAtLeast(A, B, ia + 1)
      const sb = await cosignedAtLeast(B, A, ib + 1)
      // Exactly the other's cosignature: a witness never cosigns its own log here.
      expect(sa.cosigners).toEqual([B.witnessKey.name])
      expect(sb.cosigners).toEqual([A.witnessKey.name])
    }
    await cosignedAtLeast(A, B, 1, "/tiles/checkpoint")
    const health = await (await fetch(`${A.server.baseUrl}/healthz`)).json() as Record<string, any>
    const tree = (await served(A, []))!.size
    expect(health["witnesses"]).toMatchObject({ quorum: 1, cosigning_latest: 1 })
    expect(health["witnesses"].witnesses[0]).toMatchObject({ name: B.witnessKey.name, vkey: B.witnessVkey, cosigned_size: tree, error: null })
    expect(health["witnesses"].witnesses[0].cosigned_age_seconds).toBeLessThan(120)
    const card = await (await fetch(`${A.server.baseUrl}/.well-known/aics-card.json`)).json() as Record<string, any>
    expect(card["witnessing"]).toEqual({
      witness: { vkey: A.witnessVkey, add_checkpoint: `${A.server.baseUrl}/add-checkpoint`, logs: [origin(B)] },
      witnesses: [{ url: B.server.baseUrl, vkey: B.witnessVkey }],
      quorum: 1
    })
    const stats = await (await fetch(`${A.server.baseUrl}/v2/stats`)).json() as Record<string, any>
    expect(stats["witnesses"].witnesses[0]).toMatchObject({ name: B.witnessKey.name, cosigned_size: tree })
    expect(stats["tlog"].signed_checkpoint).toContain(`— ${B.witnessKey.name} `)
  })

  it("lets `aics verify`, `aics get` and `aics audit log` require the witness's cosignature", async () => {
    const [A, B] = [operators[a]!, operators[b]!]
    const args = ["--server", A.server.baseUrl, "--vkey", A.logVkey]
    const verified = ok(await runAics(["verify", ...args, "--witness", B.witnessVkey, "--quorum", "1"], { cwd: A.dataDir }))
    expect(verified.out).toContain("cosigned by at least 1 of the 1 witnesses given")
    ok(await runAics(["get", "1", ...args, "--witness", B.witnessVkey], { cwd: A.dataDir }))
    // An audit's conclusion rests on a checkpoint the witness cosigned, not on the log's word alone.
    const audited = ok(await runAics(["audit", "log", ...args, "--witness", B.witnessVkey], { cwd: A.dataDir }))
    expect(audited.out).toContain("cosigned by at least 1 of the 1 witnesses given")
    expect(audited.out).toMatch(/every leaf of the log at size \d+ is one the sequencer had to write/)
    // A's own witness does not witness A: a client trusting only it refuses A's checkpoint.
    for (const command of [["verify"], ["audit", "log"]]) {
      const refused = await runAics([...command, ...args, "--witness", A.witnessVkey], { cwd: A.dataDir })
      expect(refused.code).toBe(1)
      expect(refused.err).toContain("is cosigned by 0 of the known witnesses, not the 1 required")
    }
    // aics mcp takes the same options: every checkpoint its tools read must be cosigned so.
    const keyPath = join(A.dataDir, "witnessed-agent.json")
    ok(await runAics(["keygen", "--key", keyPath], { cwd: A.dataDir }))
    for (const [witness, cosigned] of [[B.witnessVkey, true], [A.witnessVkey, false]] as const) {
      const mcp = await connectAicsMcp(keyPath, { server: A.server.baseUrl, vkey: A.logVkey }, "aics-witnessed", ["--witness", witness])
      try {
        const checkpoint = await callTool(mcp, "checkpoint")
        expect(checkpoint.isError, checkpoint.summary).toBe(!cosigned)
        if (!cosigned) expect(checkpoint.summary).toContain("is cosigned by 0 of the known witnesses, not the 1 required")
      } finally {
        await mcp.close()
      }
    }
  })

  it("keeps writing while its witness is down, and is cosigned again once the witness, restarted, catches up from the size it kept", async () => {
    const [A, B] = [operators[a]!, operators[b]!]
    const before = (await served(A, [B.witnessKey]))!
    await B.server.stop()
    const index = await write(A, "while-down")
    const uncosigned = await pollUntil("A's checkpoint past the write", async () => {
      const s = await served(A, [B.witnessKey])
      return s !== undefined && s.size > index ? s : undefined
    })
    expect(uncosigned.cosigners).toEqual([])
    const health = await pollUntil("A's health naming the witness's failure", async () => {
      const h = await (await fetch(`${A.server.baseUrl}/healthz`)).json() as Record<string, any>
      return h["witnesses"].witnesses[0].error !== null ? h : undefined
    })
    // Within the collector's grace (QUORUM_GRACE_SECONDS): a witness just gone is not yet DEGRADED.
    expect(health["status"]).toBe("OK")

    await restart(B, A)
    // The restarted witness still knows the size it cosigned before it stopped.
    const body = utf8(`old 0\n\n${new TextDecoder().decode(before.note)}`)
    const stale = await postAddCheckpoint(B.server.baseUrl, body)
    expect(stale.status).toBe(409)
    expect(Number(stale.text.trim())).toBeGreaterThanOrEqual(before.size)
    await cosignedAtLeast(A, B, index + 1)
  })

  // Last: it leaves A diverged.
  it("refuses writes and signs nothing once its witness shows it cosigned more leaves of this origin than the restored log holds", async () => {
    const [A, B] = [operators[a]!, operators[b]!]
    // A copy of A's data folder, taken with A stopped; A then goes on, and B cosigns more.
    await A.server.stop()
    const backup = await tempDataDir()
    otherDirs.push(backup)
    await cp(A.dataDir, backup, { recursive: true })
    await restart(A, B)
    const older = (await served(A, []))!.size
    await write(A, "after-backup")
    const newer = (await cosignedAtLeast(A, B, older + 1)).size
    expect(newer).toBeGreaterThan(older)

    // The copy restored in place of A's folder: the log, its tiles and the checkpoint A kept
    // are all the older ones; only the witness knows better.
    await A.server.stop()
    await rm(A.dataDir, { recursive: true, force: true })
    await cp(backup, A.dataDir, { recursive: true })
    await restart(A, B)
    const health = await pollUntil("A's /healthz saying DIVERGED", async () => {
      const response = await fetch(`${A.server.baseUrl}/healthz`)
      return response.status === 503 ? await response.json() as Record<string, any> : undefined
    })
    expect(health["status"]).toBe("DIVERGED")
    const reasons = health["reasons"] as Array<string>
    expect(reasons).toContain(
      `log_diverged: witness ${B.witnessKey.name} (${B.server.baseUrl}) cosigned size ${newer} of this origin, above this log's ${older}: the log went back (restored from a copy older than what was published); restore the database or data folder that holds those leaves`)
    expect(reasons.some((r) => r.startsWith(`witness_saw_another_history: ${B.witnessKey.name}: `))).toBe(true)
    expect(A.server.output()).toContain("the log diverged from what its witnesses cosigned (")

    // A write is refused, with the signed refusal, and nothing is logged or published.
    const agent = makeAgent(`witnessing ${A.domain} after the restore`)
    const refused = await sendEntry(A.server, origin(A), "/v2/entries", agent, "claim", { name: `restored-${writes++}`, x25519: agent.x25519 })
    expect(refused.status).toBe(503)
    expect(refused.json.entry["refused"]).toBe("log_unavailable")
    expect(refused.json.entry["detail"]).toContain(`cosigned size ${newer} of this origin, above this log's ${older}`)
    expect(typeof refused.json.receipt_note).toBe("string")
    expect((await served(A, []))!.size).toBe(older)
    expect(health["tree_size"]).toBe(older)
  })
})
