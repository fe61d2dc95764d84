// The health report (app/ServiceHealth.ts) over stand-ins of the services it reads: a log
// whose witnesses have cosigned the latest checkpoint by fewer than the quorum for longer
// than the collector's grace is DEGRADED with the reason witnesses_below_quorum, naming the
// witnesses that did not and why; within the grace, or with the quorum met, it is OK. A
// sequencer that says the log's storage fails it, or that no process has held the lease for
// longer than a takeover takes, makes it DEGRADED with storage_unavailable or no_sequencer;
// so does one that waits for its witnesses' first answers (awaiting_witnesses), and a
// replay store that fails (signed requests are then refused 503).

import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { BodyLedger } from "../../src/app/BodyLedger.js"
import { CosignatureCollector, type WitnessingStatus } from "../../src/app/CosignatureCollector.js"
import { LogStatus, type LogState } from "../../src/app/LogStatus.js"
import { Projection } from "../../src/app/Projection.js"
import { ReplayStoreHealth } from "../../src/app/ReplayStoreHealth.js"
import { Sequencer, type SequencingHealth } from "../../src/app/Sequencer.js"
import { serviceHealth } from "../../src/app/ServiceHealth.js"
import { StateReader } from "../../src/app/StateReader.js"

const log: LogState = {
  size: 12, publishedSize: 12, lagEntries: 0, lagSeconds: 0, mmdSeconds: 1,
  publishError: undefined, diverged: undefined, tilesStalled: false
}

const witness = {
  name: "b.test/witness", url: "http://127.0.0.1:9/witness", vkey: "b.test/witness+01234567+AAAA",
  cosignedSize: 9, cosignedAt: 1_800_000_000, cosignedAgeSeconds: 95,
  error: "unreachable: fetch failed", sawAnotherHistory: false, anotherHistory: undefined
}

const sequencingWell: SequencingHealth = { storageFailure: undefined, withoutSequencerSeconds: undefined, awaitingWitnesses: undefined }

const healthWith = (witnessing: WitnessingStatus, sequencing: SequencingHealth = sequencingWell, replayFailure?: string) =>
  Effect.runPromise(Effect.flatten(serviceHealth).pipe(Effect.provide(Layer.mergeAll(
    Layer.succeed(Sequencer, { health: Effect.succeed(sequencing) } as unknown as Sequencer["Type"]),
    Layer.succeed(ReplayStoreHealth, { failure: Effect.succeed(replayFailure) }),
    Layer.succeed(LogStatus, { current: Effect.succeed(log) }),
    Layer.succeed(BodyLedger, { exhausted: Effect.succeed(false) } as unknown as BodyLedger["Type"]),
    Layer.succeed(StateReader, { resident: Effect.succeed({ governance: { freeze: { frozenIndex: null } } }) } as unknown as StateReader["Type"]),
    Layer.succeed(Projection, { foldError: Effect.succeed(undefined) } as unknown as Projection["Type"]),
    Layer.succeed(CosignatureCollector, { status: Effect.succeed(witnessing) } as unknown as CosignatureCollector["Type"])
  ))))

describe("serviceHealth", () => {
  it("says DEGRADED, witnesses_below_quorum, when the quorum has been short past the grace", async () => {
    const report = await healthWith({ quorum: 1, cosigningLatest: 0, latestSize: 12, belowQuorumSeconds: 95.4, belowQuorum: true, witnesses: [witness] })
    expect(report.status).toBe("DEGRADED")
    expect(report.reasons).toEqual([
      "witnesses_below_quorum: 0 of 1 witnesses cosigned the latest checkpoint (size 12); short of the quorum for 95 s; b.test/witness: unreachable: fetch failed"
    ])
  })

  it("stays OK within the grace, and once the quorum cosigns", async () => {
    const within = await healthWith({ quorum: 1, cosigningLatest: 0, latestSize: 12, belowQuorumSeconds: 30, belowQuorum: false, witnesses: [witness] })
    expect([within.status, within.reasons]).toEqual(["OK", []])
    const met = await healthWith({
      quorum: 1, cosigningLatest: 1, latestSize: 12, belowQuorumSeconds: 0, belowQuorum: false,
      witnesses: [{ ...witness, cosignedSize: 12, error: undefined }]
    })
    expect([met.status, met.reasons]).toEqual(["OK", []])
  })

  it("says DEGRADED, storage_unavailable and no_sequencer, while the sequencer says so, and OK once it does not", async () => {
    const quorumMet = { quorum: 0, cosigningLatest: 0, latestSize: 12, belowQuorumSeconds: 0, belowQuorum: false, witnesses: [] }
    const down = await healthWith(quorumMet, {
      storageFailure: "lease: cannot reach the database at 127.0.0.1:5432/aics: database \"aics\" does not exist",
      withoutSequencerSeconds: 12.7,
      awaitingWitnesses: undefined
    })
    expect(down.status).toBe("DEGRADED")
    expect(down.reasons).toEqual([
      "storage_unavailable: lease: cannot reach the database at 127.0.0.1:5432/aics: database \"aics\" does not exist",
      "no_sequencer: this process does not sequence the log, and has seen no process do so for 12 s"
    ])
    const back = await healthWith(quorumMet)
    expect([back.status, back.reasons]).toEqual(["OK", []])
  })

  it("says DEGRADED, awaiting_witnesses, while the sequencer waits for its witnesses' first answers, and OK once it does not", async () => {
    const quorumMet = { quorum: 0, cosigningLatest: 0, latestSize: 12, belowQuorumSeconds: 0, belowQuorum: false, witnesses: [] }
    const why = "writes are taken once every witness of AICS_WITNESSES has answered this node's first checkpoint submission, or failed to within its bound; waiting for b.test/witness (http://127.0.0.1:9/witness)"
    const waiting = await healthWith(quorumMet, { ...sequencingWell, awaitingWitnesses: why })
    expect(waiting.status).toBe("DEGRADED")
    expect(waiting.reasons).toEqual([`awaiting_witnesses: ${why}`])
    const heard = await healthWith(quorumMet)
    expect([heard.status, heard.reasons]).toEqual(["OK", []])
  })

  it("says DEGRADED, storage_unavailable, while the replay store fails, and OK once it does not", async () => {
    const quorumMet = { quorum: 0, cosigningLatest: 0, latestSize: 12, belowQuorumSeconds: 0, belowQuorum: false, witnesses: [] }
    const failing = await healthWith(quorumMet, sequencingWell, "remember: Failed to execute statement: relation \"aics_nonces\" does not exist")
    expect(failing.status).toBe("DEGRADED")
    expect(failing.reasons).toEqual([
      "storage_unavailable: the replay store failed (remember: Failed to execute statement: relation \"aics_nonces\" does not exist)"
    ])
    const back = await healthWith(quorumMet, sequencingWell, undefined)
    expect([back.status, back.reasons]).toEqual(["OK", []])
  })
})
