// The service's health, as /healthz, /v2/stats (`status`) and the /stats page report it
// (docs/spec/service.md "Telemetry" /healthz): DIVERGED when the log diverged from what it
// published (LogHealth.ts: its tiles disagree with it, or a witness cosigned, or this node
// kept, a checkpoint of more leaves than it holds; it then refuses new leaves), DEGRADED
// when the tiles are not being written, the ciphertext budget is exhausted, agent writes
// are held, the projection store cannot be read or folded, a witness holds a tree of this
// origin the log does not extend (it saw another history: an alarm stored for the whole
// deployment, app/CosignatureCollector.ts; with DIVERGED when that tree is the larger), or
// fewer witnesses than the quorum cosigned the latest checkpoint for longer than
// cosignatures normally take (the collector's QUORUM_GRACE_SECONDS), else OK.
// From what the process holds, in constant time: whether agent writes are held is governance,
// a resident part (domain/write/stateAreas.ts) the projection holds whole; reading it first
// folds what the sequencer committed since the last read (usually nothing).
// DEGRADED too while this process cannot take writes, as its sequencer tells from memory
// (app/Sequencer.ts `health`): the log's storage fails its sequencing work
// (storage_unavailable: trying for the lease, reading new leaves, writing a batch; it ends
// when that work succeeds again; or a batch's write has gone on longer than
// BATCH_WRITE_STALLED_MILLIS, a storage that stopped answering), or it does not sequence and
// has seen no process hold the lease for longer than a takeover takes (no_sequencer), or it
// sequences and waits for its witnesses' first answers before it takes a write
// (awaiting_witnesses, app/CosignatureCollector.ts). storage_unavailable too while the
// replay store fails, so signed requests are refused (app/ReplayStoreHealth.ts, from memory
// as well).

import { Effect } from "effect"
import { agentWritesHeld } from "../domain/governance/freeze.js"
import { withoutServerPaths } from "../domain/http/serverPaths.js"
import { BodyLedger } from "./BodyLedger.js"
import { CosignatureCollector, type WitnessingStatus } from "./CosignatureCollector.js"
import { LogStatus, type LogState } from "./LogStatus.js"
import { Projection } from "./Projection.js"
import { ReplayStoreHealth } from "./ReplayStoreHealth.js"
import { Sequencer } from "./Sequencer.js"
import { damageFound } from "./StartupDamage.js"
import { StateReader } from "./StateReader.js"

export interface HealthReport {
  readonly status: "OK" | "DEGRADED" | "DIVERGED"
  readonly reasons: ReadonlyArray<string>
  readonly agentWritesHeld: boolean
  /** The log's state the report rests on (tree size, tiles). */
  readonly log: LogState
}

/**
 * `witnesses_below_quorum: 0 of 1 witnesses cosigned the latest checkpoint (size 12); short
 * of the quorum for 95 s; <name>: <why>` naming each witness that did not, with its last
 * error (or none yet).
 */
export const belowQuorumReason = (s: WitnessingStatus): string => {
  const behind = s.witnesses.filter((w) => s.latestSize === undefined || (w.cosignedSize ?? 0) < s.latestSize)
  const said = behind.map((w) => `${w.name}: ${w.error ?? (w.cosignedSize === undefined ? "no cosignature yet" : `cosigned size ${w.cosignedSize}`)}`)
  return `witnesses_below_quorum: ${s.cosigningLatest} of ${s.quorum} witnesses cosigned the latest checkpoint (size ${s.latestSize ?? 0}); ` +
    `short of the quorum for ${Math.floor(s.belowQuorumSeconds)} s${said.length === 0 ? "" : `; ${said.join("; ")}`}`
}

/** Builds the effect that reports health now (the services are read once, here). */
export const serviceHealth = Effect.gen(function*() {
  const status = yield* LogStatus
  const ledger = yield* BodyLedger
  const reader = yield* StateReader
  const projection = yield* Projection
  const witnessing = yield* CosignatureCollector
  const sequencer = yield* Sequencer
  const replayStore = yield* ReplayStoreHealth
  // The freeze as last read: what the report says while the projection store cannot be read.
  let lastHeld = false
  return Effect.gen(function*() {
    const log = yield* status.current
    const reasons: Array<string> = []
    if (log.diverged !== undefined) reasons.push(withoutServerPaths(`log_diverged: ${log.diverged}`))
    if (log.tilesStalled) reasons.push(log.publishError !== undefined ? withoutServerPaths(`tiles_not_written: ${log.publishError}`) : "tiles_lagging")
    if (yield* ledger.exhausted) reasons.push("ciphertext_budget_exhausted")
    for (const damage of yield* damageFound) reasons.push(withoutServerPaths(`damaged: ${damage}`))
    const read = yield* Effect.either(reader.resident)
    if (read._tag === "Right") lastHeld = agentWritesHeld(read.right)
    const unavailable = read._tag === "Left" ? read.left : yield* projection.foldError
    if (unavailable !== undefined) reasons.push(withoutServerPaths(`projection_unavailable: ${unavailable.message}`))
    // Writes cannot be taken: the sequencer's own account, held in memory (no storage read).
    const sequencing = yield* sequencer.health
    if (sequencing.storageFailure !== undefined) reasons.push(withoutServerPaths(`storage_unavailable: ${sequencing.storageFailure}`))
    const replayFailure = yield* replayStore.failure
    if (replayFailure !== undefined) reasons.push(withoutServerPaths(`storage_unavailable: the replay store failed (${replayFailure})`))
    if (sequencing.awaitingWitnesses !== undefined) reasons.push(withoutServerPaths(`awaiting_witnesses: ${sequencing.awaitingWitnesses}`))
    if (sequencing.withoutSequencerSeconds !== undefined) {
      reasons.push(`no_sequencer: this process does not sequence the log, and has seen no process do so for ${Math.floor(sequencing.withoutSequencerSeconds)} s`)
    }
    // The stored alarm (CosignatureCollector's copy, reloaded every second), so every node
    // of a deployment reports it, not only the one that submits checkpoints; its detail is
    // what showed the other history, not this process's latest failure (a witness down).
    const witnessed = yield* witnessing.status
    for (const w of witnessed.witnesses) {
      if (w.anotherHistory !== undefined) reasons.push(withoutServerPaths(`witness_saw_another_history: ${w.name}: ${w.anotherHistory.detail}`))
    }
    // The quorum short for longer than the delay cosignatures normally take (the
    // collector's grace): clients that require it (aics verify --witness) fail meanwhile.
    if (witnessed.belowQuorum) reasons.push(withoutServerPaths(belowQuorumReason(witnessed)))
    const held = lastHeld
    if (held) reasons.push("agent_writes_held")
    const report: HealthReport = {
      status: log.diverged !== undefined ? "DIVERGED" : reasons.length > 0 ? "DEGRADED" : "OK",
      reasons,
      agentWritesHeld: held,
      log
    }
    return report
  })
})
