// The service's health, as /healthz, /v2/stats (`status`) and the /stats page report it
// (docs/spec/service.md "Telemetry" /healthz): DIVERGED when the log diverged from its tiles (it then
// refuses new leaves), DEGRADED when the tiles are not being written, the ciphertext budget
// is exhausted, agent writes are held, the projection store cannot be read or folded, or a
// witness holds a larger tree of this origin than the log (it saw another history: an alarm
// stored for the whole deployment, app/CosignatureCollector.ts), else OK.
// From what the process holds, in constant time: whether agent writes are held is governance,
// a resident part (domain/write/stateAreas.ts) the projection holds whole; reading it first
// folds what the sequencer committed since the last read (usually nothing).

import { Effect } from "effect"
import { agentWritesHeld } from "../domain/governance/freeze.js"
import { withoutServerPaths } from "../domain/http/serverPaths.js"
import { BodyLedger } from "./BodyLedger.js"
import { CosignatureCollector } from "./CosignatureCollector.js"
import { LogStatus, type LogState } from "./LogStatus.js"
import { Projection } from "./Projection.js"
import { damageFound } from "./StartupDamage.js"
import { StateReader } from "./StateReader.js"

export interface HealthReport {
  readonly status: "OK" | "DEGRADED" | "DIVERGED"
  readonly reasons: ReadonlyArray<string>
  readonly agentWritesHeld: boolean
  /** The log's state the report rests on (tree size, tiles). */
  readonly log: LogState
}

/** Builds the effect that reports health now (the services are read once, here). */
export const serviceHealth = Effect.gen(function*() {
  const status = yield* LogStatus
  const ledger = yield* BodyLedger
  const reader = yield* StateReader
  const projection = yield* Projection
  const witnessing = yield* CosignatureCollector
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
    // The stored alarm (CosignatureCollector's copy, reloaded every second), so every node
    // of a deployment reports it, not only the one that submits checkpoints; its detail is
    // what showed the other history, not this process's latest failure (a witness down).
    for (const w of (yield* witnessing.status).witnesses) {
      if (w.anotherHistory !== undefined) reasons.push(withoutServerPaths(`witness_saw_another_history: ${w.name}: ${w.anotherHistory.detail}`))
    }
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
