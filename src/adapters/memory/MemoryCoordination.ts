// Coordination within one process (the filesystem deployment, and tests of the app): the
// lease is a semaphore of one, never lost (a wait is told it is held when another holder in
// the process has it; no try fails), and relayed submissions wait in memory. A
// process on the filesystem is its own sequencer, so nothing is relayed in practice; the
// adapter still keeps the whole contract, so the Sequencer has one code path: each lease
// carries a fence one higher than the last (the stores of one process take it unchecked,
// BodyStore.ts, but the numbers still mean what they mean on a database).
//
// The relay's fence (Coordination.ts) is kept too, and cheaply: one process has one
// Sequencer, whose lease ends only when its scope closes, so no call here can race a later
// lease; but a caller may still present the fence of a lease already closed, and then it
// gets what a database would give it (claims and orphans nothing; releases and answers only
// what was claimed under that fence), so the contract tests run the same on both.

import { Deferred, Duration, Effect, Layer, Queue, Stream } from "effect"
import { Coordination, type ClaimedSubmission, type RelayedOutcome, type RelayedSubmission } from "../../ports/Coordination.js"
import type { LeaseFence } from "../../ports/LeaseFence.js"
import { StorageError } from "../../ports/StorageError.js"

interface Relayed {
  readonly id: string
  readonly submission: RelayedSubmission
  claimedAt: number | undefined
  /** The epoch of the lease it was claimed under (see the header); undefined while waiting. */
  claimedEpoch: number | undefined
  readonly done: Deferred.Deferred<RelayedOutcome>
}

export interface MemoryCoordinationOptions {
  /** How long a relayed submission waits to be claimed before it is withdrawn. */
  readonly unclaimedTimeout?: Duration.DurationInput
}

export const MemoryCoordinationLive = (options: MemoryCoordinationOptions = {}): Layer.Layer<Coordination> =>
  Layer.effect(Coordination, Effect.gen(function*() {
    const leaseLock = yield* Effect.makeSemaphore(1)
    const wake = yield* Queue.sliding<void>(1)
    // In relay order: Map keeps insertion order.
    const relayed = new Map<string, Relayed>()
    let nextId = 0
    let epoch = 0
    const unclaimedTimeout = options.unclaimedTimeout ?? Duration.seconds(10)

    const relay = (submission: RelayedSubmission) =>
      Effect.gen(function*() {
        const entry: Relayed = { id: String(++nextId), submission, claimedAt: undefined, claimedEpoch: undefined, done: yield* Deferred.make<RelayedOutcome>() }
        relayed.set(entry.id, entry)
        yield* Queue.offer(wake, undefined)
        const answered = yield* Deferred.await(entry.done).pipe(Effect.timeoutOption(unclaimedTimeout))
        if (answered._tag === "Some") return answered.value
        if (entry.claimedAt === undefined) {
          relayed.delete(entry.id)
          return yield* new StorageError({ operation: "relay", detail: "no sequencer took the submission" })
        }
        return yield* Deferred.await(entry.done)
      })

    const latest = (fence: LeaseFence) => fence.epoch === epoch
    /** The entry `id` if it is claimed under `fence` and unanswered. */
    const claimedUnder = (id: string, fence: LeaseFence) => {
      const entry = relayed.get(id)
      return entry !== undefined && entry.claimedAt !== undefined && entry.claimedEpoch === fence.epoch ? entry : undefined
    }
    const claimedOf = (entry: Relayed): ClaimedSubmission => ({ id: entry.id, submission: entry.submission, claimedAt: entry.claimedAt! })

    // Whether a holder has the lease: a wait that finds it so is told (there is no storage to fail).
    let held = false
    const seekLease = (heldElsewhere: Effect.Effect<void> = Effect.void) =>
      Effect.zipRight(
        Effect.suspend(() => (held ? heldElsewhere : Effect.void)),
        Effect.map(
          Effect.acquireRelease(
            Effect.zipRight(leaseLock.take(1), Effect.sync(() => void (held = true))),
            () => Effect.zipRight(Effect.sync(() => void (held = false)), leaseLock.release(1))
          ),
          () => ({ lost: Effect.never, fence: { epoch: ++epoch } })
        )
      )

    return Coordination.of({
      lease: seekLease,
      relay,
      submitted: Effect.asVoid(Queue.take(wake).pipe(Effect.timeoutOption(Duration.millis(200)))),
      claim: (max, logSize, fence) =>
        Effect.sync(() => {
          const taken: Array<ClaimedSubmission> = []
          if (!latest(fence)) return taken
          for (const entry of relayed.values()) {
            if (taken.length >= max) break
            if (entry.claimedAt !== undefined) continue
            entry.claimedAt = logSize
            entry.claimedEpoch = fence.epoch
            taken.push(claimedOf(entry))
          }
          return taken
        }),
      answer: (answers, fence) =>
        Effect.forEach(answers, ({ id, outcome }) => {
          const entry = claimedUnder(id, fence)
          if (entry === undefined) return Effect.void
          relayed.delete(id)
          return Deferred.succeed(entry.done, outcome)
        }, { discard: true }),
      orphans: (fence) =>
        Effect.sync(() => {
          if (!latest(fence)) return []
          const claimed = [...relayed.values()].filter((e) => e.claimedAt !== undefined)
          for (const entry of claimed) entry.claimedEpoch = fence.epoch
          return claimed.map(claimedOf)
        }),
      release: (ids, fence) =>
        Effect.zipRight(
          Effect.sync(() => {
            for (const id of ids) {
              const entry = claimedUnder(id, fence)
              if (entry === undefined) continue
              entry.claimedAt = undefined
              entry.claimedEpoch = undefined
            }
          }),
          Queue.offer(wake, undefined)
        ),
      announce: () => Effect.void,
      appended: Stream.never
    })
  }))
