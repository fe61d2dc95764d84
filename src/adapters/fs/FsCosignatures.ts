// Cosignatures on the filesystem: the latest cosignature of each witness in one JSON file,
// and the witnesses' another-history alarms in a second one beside it, each replaced
// atomically (atomicFile.ts: a temporary file fsynced, renamed over, the folder fsynced) on
// each change, and kept in memory for the reads that every /checkpoint and /healthz makes.
// One process serves the filesystem storage (main.ts), so the memory copy is the truth once
// loaded. The alarms have a file of their own, not a field of the cosignatures file, so a
// data folder written by this version still starts an older one (which reads the
// cosignatures file as a list and knows nothing of the alarms).

import { Effect, Layer, Option, Ref } from "effect"
import { fromUtf8, utf8 } from "../../domain/bytes.js"
import { Cosignatures, type AnotherHistoryAlarm, type CollectedCosignature } from "../../ports/Cosignatures.js"
import { StorageError } from "../../ports/StorageError.js"
import { writeFileAtomically } from "./atomicFile.js"
import { readOptionalFile } from "./readOptional.js"

const isRecord = (value: unknown): value is CollectedCosignature => {
  const v = value as Partial<CollectedCosignature> | null
  return typeof v?.witness === "string" && typeof v.line === "string" && Number.isSafeInteger(v.size) && Number.isSafeInteger(v.timestamp)
}

const isAlarm = (value: unknown): value is AnotherHistoryAlarm => {
  const v = value as Partial<AnotherHistoryAlarm> | null
  return typeof v?.witness === "string" && typeof v.detail === "string" && Number.isSafeInteger(v.raisedAt) &&
    (v.witnessSize === undefined || Number.isSafeInteger(v.witnessSize)) &&
    (v.refusedTree === undefined || (Number.isSafeInteger(v.refusedTree?.size) && typeof v.refusedTree?.root === "string"))
}

/** A JSON list in `path` whose every element passes `valid`; no file is the empty list. */
const readList = <A>(path: string, what: string, valid: (value: unknown) => value is A) =>
  Effect.gen(function*() {
    const stored = yield* readOptionalFile(`read ${what}`, path)
    if (Option.isNone(stored)) return [] as ReadonlyArray<A>
    const parsed: unknown = yield* Effect.try({
      try: () => JSON.parse(fromUtf8(stored.value)),
      catch: () => new StorageError({ operation: `read ${what}`, detail: `${path} is not JSON` })
    })
    if (!Array.isArray(parsed) || !parsed.every(valid)) {
      return yield* new StorageError({ operation: `read ${what}`, detail: `${path} is not a list of ${what}` })
    }
    return parsed as ReadonlyArray<A>
  })

/** The larger of two witness sizes, either of which may be unknown. */
const largestSize = (a: number | undefined, b: number | undefined) =>
  a === undefined ? b : b === undefined ? a : Math.max(a, b)

/** The alarm as the file holds it: no witnessSize or refusedTree member when there is none. */
const withoutUndefinedSize = ({ witnessSize, refusedTree, ...rest }: AnotherHistoryAlarm): AnotherHistoryAlarm => ({
  ...rest,
  ...(witnessSize === undefined ? {} : { witnessSize }),
  ...(refusedTree === undefined ? {} : { refusedTree: { size: refusedTree.size, root: refusedTree.root } })
})

/** `path` holds the cosignatures, `alarmsPath` the alarms (docs/operations.md names both). */
export const FsCosignaturesLive = (path: string, alarmsPath: string) =>
  Layer.effect(Cosignatures, Effect.gen(function*() {
    const current = yield* Ref.make(yield* readList(path, "cosignatures", isRecord))
    const raised = yield* Ref.make(yield* readList(alarmsPath, "witness alarms", isAlarm))
    // One writer at a time for both files: each change reads the memory copy, writes the
    // file and only then sets the copy, so a failed write leaves both as they were.
    const lock = yield* Effect.makeSemaphore(1)

    const record = (cosignature: CollectedCosignature) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const all = yield* Ref.get(current)
        const previous = all.find((c) => c.witness === cosignature.witness)
        if (previous !== undefined && previous.size > cosignature.size) return
        const next = [...all.filter((c) => c.witness !== cosignature.witness), cosignature]
        yield* writeFileAtomically(path, utf8(JSON.stringify(next) + "\n"), 0o644)
        yield* Ref.set(current, next)
      }))

    /** Replaces the alarms with `next`, unless it says what they say: a retried raise writes nothing. */
    const replaceAlarms = (all: ReadonlyArray<AnotherHistoryAlarm>, next: ReadonlyArray<AnotherHistoryAlarm>) =>
      JSON.stringify(next) === JSON.stringify(all)
        ? Effect.void
        : Effect.zipRight(writeFileAtomically(alarmsPath, utf8(JSON.stringify(next) + "\n"), 0o644), Ref.set(raised, next))

    const raiseAlarm = (alarm: AnotherHistoryAlarm) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const all = yield* Ref.get(raised)
        const previous = all.find((a) => a.witness === alarm.witness)
        const kept = previous === undefined ? withoutUndefinedSize(alarm) : withoutUndefinedSize({
          ...alarm,
          raisedAt: previous.raisedAt,
          witnessSize: largestSize(previous.witnessSize, alarm.witnessSize),
          refusedTree: alarm.refusedTree ?? previous.refusedTree
        })
        yield* replaceAlarms(all, all.map((a) => (a.witness === alarm.witness ? kept : a)).concat(previous === undefined ? [kept] : []))
      }))

    const clearAlarm = (witness: string) =>
      lock.withPermits(1)(Effect.flatMap(Ref.get(raised), (all) => replaceAlarms(all, all.filter((a) => a.witness !== witness))))

    return { record, list: Ref.get(current), raiseAlarm, clearAlarm, alarms: Ref.get(raised) }
  }))
