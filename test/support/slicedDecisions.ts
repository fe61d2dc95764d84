// Every decision of the pure test logs (identityAgents.ts PureLog, governanceAgents.ts
// GovLog) is taken twice: on the whole state, and on a slice loaded from a projection store
// (issue 12: src/app/stateSlices.ts, the way the sequencer decides), which the accepted
// leaves are then committed to. The two must give the same answer, byte for byte: a rule
// that reads a row stateReads.ts does not load would decide differently on the slice, and
// every test that uses these logs would fail here, naming the entry.
//
// `storeMatches` compares the store with the whole state, row by row: the store a log's
// slices built must hold what splitting the whole state into rows gives, and the counters
// its steps kept (the usage tallies too, stats/usageTallies.ts) those of the whole state.

import { recentActivity } from "../../src/domain/telemetry/activity.js"
import { Chunk, Effect, Either, HashMap } from "effect"
import { makeMemoryProjectionStore } from "../../src/adapters/memory/MemoryProjectionStore.js"
import { applyOnSlice, decideOnSlice, SliceRun } from "../../src/app/stateSlices.js"
import type { AcceptedEntry } from "../../src/domain/write/applyEntry.js"
import type { Decision } from "../../src/domain/write/decide.js"
import type { LogState } from "../../src/domain/write/logState.js"
import type { Refusal } from "../../src/domain/write/refusal.js"
import { changesOf, residentOf, sliceOfResident } from "../../src/domain/write/stateSlice.js"
import type { Submission } from "../../src/domain/write/submission.js"
import type { ProjectionStore } from "../../src/ports/ProjectionStore.js"

const NO_LEAF = new Uint8Array(32)

export class SlicedDecisions {
  readonly store: typeof ProjectionStore.Service = makeMemoryProjectionStore()

  private commit(run: SliceRun, size: number): void {
    const applied = Effect.runSync(this.store.commit({ from: size, upTo: size + 1, lastLeaf: NO_LEAF, changes: run.changes() }))
    if (!applied) throw new Error(`the sliced store refused the step from ${size}`)
  }

  /** Folds a leaf the log starts with (the charter) into the store. */
  apply(entry: AcceptedEntry): void {
    const run = new SliceRun(this.store, Effect.runSync(this.store.resident))
    Effect.runSync(applyOnSlice(run, entry))
    this.commit(run, entry.index)
  }

  /** The decision on the slice, checked against the one on the whole state. */
  check(whole: Either.Either<Decision, Refusal>, submission: Submission, now: number): void {
    const run = new SliceRun(this.store, Effect.runSync(this.store.resident))
    const sliced = Effect.runSync(decideOnSlice(run, submission, now))
    const what = `${submission.rule.type} by ${submission.envelope.kid} seq ${submission.envelope.seq}`
    if (Either.isLeft(whole) || Either.isLeft(sliced)) {
      const a = Either.isLeft(whole) ? `refused ${whole.left.code}: ${whole.left.detail}` : `accepted at ${whole.right.index}`
      const b = Either.isLeft(sliced) ? `refused ${sliced.left.code}: ${sliced.left.detail}` : `accepted at ${sliced.right.index}`
      if (a !== b) throw new Error(`the slice decides ${what} otherwise: whole state ${a}, slice ${b}`)
      return
    }
    if (Buffer.compare(whole.right.entryBytes, sliced.right.entryBytes) !== 0 || whole.right.index !== sliced.right.index) {
      throw new Error(`the slice accepts ${what} as another leaf`)
    }
    this.commit(run, whole.right.index)
  }

  /** Differences between the store and the whole state, as readable lines (none when they agree). */
  storeMatches(state: LogState): ReadonlyArray<string> {
    return storeMatches(this.store, state)
  }
}

/** Differences between a projection store and the whole state, as readable lines (none when they agree). */
export const storeMatches = (store: typeof ProjectionStore.Service, state: LogState): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const expected = changesOf(sliceOfResident(residentOf(state)), state)
  const keys = expected.upserts.map(({ area, key }) => ({ area, key }))
  const stored = Effect.runSync(store.rows([...keys, ...expected.names.map((n) => ({ area: "names" as const, key: n.name }))]))
  const json = (v: unknown) => JSON.stringify(v, (_k, x) => (x instanceof Uint8Array ? Buffer.from(x).toString("hex") : Chunk.isChunk(x) ? Chunk.toReadonlyArray(x) : HashMap.isHashMap(x) ? [...x] : x))
  const byId = new Map(stored.rows.map((row) => [`${row.area} ${row.key}`, row.value]))
  for (const row of expected.upserts) {
    if (json(byId.get(`${row.area} ${row.key}`)) !== json(row.value)) problems.push(`row ${row.area} ${row.key} differs`)
  }
  const storedNames = new Map(stored.names.map((n) => [n.name, n]))
  for (const record of expected.names) if (json(storedNames.get(record.name)) !== json(record)) problems.push(`name ${record.name} differs`)
  for (const append of expected.appends) {
    const page = Effect.runSync(store.list(append.area, append.key, { limit: append.elements.length + 1 }))
    const elements = page.elements.map((e) => e.value).reverse()
    if (page.length !== append.elements.length || json(elements) !== json(append.elements)) problems.push(`list ${append.area} ${append.key} differs`)
  }
  const resident = Effect.runSync(store.resident)
  if (json(resident.counters) !== json(expected.resident.counters)) problems.push("counters differ")
  if (json(resident.governance) !== json(state.governance)) problems.push("governance differs")
  if (json(resident.tasks) !== json(state.tasks)) problems.push("tasks differ")
  if (json(resident.service) !== json(state.service)) problems.push("service differs")
  // Every agent's latest public leaf, and no other row (a bare key's goes when it acts for a name).
  const everyAgent = Number.MAX_SAFE_INTEGER
  if (json(Effect.runSync(store.recentActivity(0, everyAgent))) !== json(recentActivity(state.activity, 0, everyAgent))) problems.push("activity differs")
  return problems
}
