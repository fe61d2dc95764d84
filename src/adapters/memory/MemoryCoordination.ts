// Coordination within one process (the filesystem deployment, and tests of the app): the
// lease is a semaphore of one, never lost, and relayed submissions wait in memory. A
// process on the filesystem is its own sequencer, so nothing is relayed in practice; the
// adapter still keeps the whole contract, so the Sequencer has one code path: each lease
// carries a fence one higher than the last (the stores of one process take it unchecked,
// BodyStore.ts, but the numbers still mean what they mean on a database).

import { Deferred, Duration, Effect, Layer, Queue, Stream } from "effect"
import { Coordination, type ClaimedSubmission, type RelayedOutcome, type RelayedSubmission } from "../../ports/Coordination.js"
import { StorageError } from "../../ports/StorageError.js"

interface Relayed {
  readonly id: string
  readonly submission: RelayedSubmission
  claimedAt: number | undefined
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
        const entry: Relayed = { id: String(++nextId), submission, claimedAt: undefined, done: yield* Deferred.make<RelayedOutcome>() }
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

    const claimedOf = (entry: Relayed): ClaimedSubmission => ({ id: entry.id, submission: entry.submission, claimedAt: entry.claimedAt! })

    return Coordination.of({
      lease: Effect.map(
        Effect.acquireRelease(leaseLock.take(1), () => leaseLock.release(1)),
        () => ({ lost: Effect.never, fence: { epoch: ++epoch } })
      ),
      relay,
      submitted: Effect.asVoid(Queue.take(wake).pipe(Effect.timeoutOption(Duration.millis(200)))),
      claim: (max, logSize) =>
        Effect.sync(() => {
          const taken: Array<ClaimedSubmission> = []
          for (const entry of relayed.values()) {
            if (taken.length >= max) break
            if (entry.claimedAt !== undefined) continue
            entry.claimedAt = logSize
            taken.push(claimedOf(entry))
          }
          return taken
        }),
      answer: (answers) =>
        Effect.forEach(answers, ({ id, outcome }) => {
          const entry = relayed.get(id)
          relayed.delete(id)
          return entry === undefined ? Effect.void : Deferred.succeed(entry.done, outcome)
        }, { discard: true }),
      orphans: Effect.sync(() => [...relayed.values()].filter((e) => e.claimedAt !== undefined).map(claimedOf)),
      release: (ids) =>
        Effect.zipRight(
          Effect.sync(() => {
            for (const id of ids) {
              const entry = relayed.get(id)
              if (entry !== undefined) entry.claimedAt = undefined
            }
          }),
          Queue.offer(wake, undefined)
        ),
      announce: () => Effect.void,
      appended: Stream.never
    })
  }))
