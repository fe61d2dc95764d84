// The Coordination contract (src/ports/Coordination.ts), as tests every adapter must pass.
// The suite only talks to the port, through layers the adapter's test file supplies. A wait
// for the lease is told when a try finds the lease held, and only then: not when it is free,
// nor (where the storage can fail) when a try cannot be made, which fails the wait instead.

import { describe, expect } from "vitest"
import { it } from "@effect/vitest"
import { Context, Duration, Effect, Exit, Fiber, Layer, Option, Schedule, Scope, type Duration as D } from "effect"
import { toHex, utf8 } from "../../src/domain/bytes.js"
import { Coordination, type RelayedOutcome } from "../../src/ports/Coordination.js"
import type { LeaseFence } from "../../src/ports/LeaseFence.js"

export interface CoordinationUnderTest {
  /**
   * A new deployment. Each build of the layer it answers is one process of it; relayed
   * submissions wait at most `unclaimedTimeout` to be claimed.
   */
  readonly fresh: (unclaimedTimeout: D.DurationInput) => Effect.Effect<Layer.Layer<Coordination, unknown>, unknown, Scope.Scope>
  /** Whether two builds are two processes sharing one deployment (a real database server). */
  readonly severalProcesses: boolean
  /**
   * Where the adapter's storage can fail: a new deployment (one process) and what silences its
   * storage from then on (a network that drops everything), so a try for the lease cannot be
   * made. Omitted where there is no storage to fail (one process's memory). With several
   * processes, `unsilenced` is another process of the same deployment whose storage stays
   * reachable (it holds the lease while the silenced one waits for it).
   */
  readonly silenced?: Effect.Effect<{
    readonly layer: Layer.Layer<Coordination, unknown>
    readonly silence: Effect.Effect<void>
    readonly unsilenced?: Layer.Layer<Coordination, unknown>
  }, unknown, Scope.Scope>
}

type Port = typeof Coordination.Service

const build = (layer: Layer.Layer<Coordination, unknown>) => Effect.map(Layer.build(layer), (ctx) => Context.get(ctx, Coordination))

const accepted: RelayedOutcome = { _tag: "Accepted", index: 7, logged: 1_700_000_000_123, leafHash: new Uint8Array(32).fill(9) }
const refused: RelayedOutcome = { _tag: "Refused", code: "seq_mismatch", detail: "seq 3 is taken", at: 1_700_000_000_456 }

const submission = (n: number) => ({ envelopeJcs: `{"n":${n}}`, body: n % 2 === 0 ? null : utf8(`body ${n}`) })

const comparable = (outcome: RelayedOutcome) =>
  outcome._tag === "Accepted" ? { ...outcome, leafHash: toHex(outcome.leafHash) } : outcome

/** Claims under `fence` until `count` submissions are taken (the relays race with the claims). */
const claimAll = (port: Port, count: number, logSize: number, fence: LeaseFence) =>
  Effect.gen(function*() {
    const taken = []
    while (taken.length < count) {
      taken.push(...(yield* port.claim(count - taken.length, logSize, fence)))
      if (taken.length < count) yield* Effect.sleep(Duration.millis(20))
    }
    return taken
  })

export const coordinationContract = (name: string, adapter: CoordinationUnderTest): void => {
  describe(`Coordination contract: ${name}`, () => {
    it.scopedLive("relays a submission to the claimer and its answer back", () =>
      Effect.gen(function*() {
        const port = yield* build(yield* adapter.fresh("10 seconds"))
        const { fence } = yield* port.lease()
        const first = yield* Effect.fork(port.relay(submission(1)))
        const [claimed] = yield* claimAll(port, 1, 42, fence)
        expect(claimed!.claimedAt).toBe(42)
        expect(claimed!.submission.envelopeJcs).toBe(submission(1).envelopeJcs)
        expect(toHex(claimed!.submission.body!)).toBe(toHex(submission(1).body!))
        yield* port.answer([{ id: claimed!.id, outcome: accepted }], fence)
        expect(comparable(yield* Fiber.join(first))).toEqual(comparable(accepted))

        const second = yield* Effect.fork(port.relay(submission(2)))
        const [again] = yield* claimAll(port, 1, 43, fence)
        expect(again!.submission.body).toBeNull()
        yield* port.answer([{ id: again!.id, outcome: refused }], fence)
        expect(yield* Fiber.join(second)).toEqual(refused)
      }))

    it.scopedLive("claims each submission once, oldest first", () =>
      Effect.gen(function*() {
        const port = yield* build(yield* adapter.fresh("10 seconds"))
        const { fence } = yield* port.lease()
        const relays = []
        for (let n = 1; n <= 3; n++) {
          relays.push(yield* Effect.fork(port.relay(submission(n))))
          // Relayed one after the other: each is stored before the next starts.
          yield* Effect.sleep(Duration.millis(50))
        }
        const firstTwo = yield* claimAll(port, 2, 0, fence)
        const third = yield* claimAll(port, 1, 5, fence)
        expect([...firstTwo, ...third].map((c) => c.submission.envelopeJcs)).toEqual([1, 2, 3].map((n) => submission(n).envelopeJcs))
        expect(yield* port.claim(10, 6, fence)).toEqual([])
        yield* port.answer([...firstTwo, ...third].map((c) => ({ id: c.id, outcome: refused })), fence)
        for (const relay of relays) expect(yield* Fiber.join(relay)).toEqual(refused)
      }))

    it.scopedLive("lists claimed submissions without an answer until they are released and answered", () =>
      Effect.gen(function*() {
        const port = yield* build(yield* adapter.fresh("10 seconds"))
        const { fence } = yield* port.lease()
        const relay = yield* Effect.fork(port.relay(submission(3)))
        const [claimed] = yield* claimAll(port, 1, 10, fence)
        expect((yield* port.orphans(fence)).map((o) => [o.id, o.claimedAt])).toEqual([[claimed!.id, 10]])
        yield* port.release([claimed!.id], fence)
        expect(yield* port.orphans(fence)).toEqual([])
        const [again] = yield* claimAll(port, 1, 11, fence)
        expect([again!.id, again!.claimedAt]).toEqual([claimed!.id, 11])
        yield* port.answer([{ id: again!.id, outcome: accepted }], fence)
        expect(comparable(yield* Fiber.join(relay))).toEqual(comparable(accepted))
        expect(yield* port.orphans(fence)).toEqual([])
      }))

    it.scopedLive("withdraws a submission nobody claims in time, but waits on for a claimed one", () =>
      Effect.gen(function*() {
        const port = yield* build(yield* adapter.fresh("300 millis"))
        const { fence } = yield* port.lease()
        const failed = yield* Effect.exit(port.relay(submission(4)))
        expect(Exit.isFailure(failed) && failed.cause._tag === "Fail" && failed.cause.error._tag).toBe("StorageError")
        expect(yield* port.claim(10, 0, fence)).toEqual([])

        const relay = yield* Effect.fork(port.relay(submission(5)))
        const [claimed] = yield* claimAll(port, 1, 0, fence)
        yield* Effect.sleep(Duration.millis(600))
        expect(Option.isNone(yield* Fiber.poll(relay))).toBe(true)
        yield* port.answer([{ id: claimed!.id, outcome: refused }], fence)
        expect(yield* Fiber.join(relay)).toEqual(refused)
      }))

    it.scopedLive("claims, lists, releases and answers nothing under a superseded fence", () =>
      Effect.gen(function*() {
        const port = yield* build(yield* adapter.fresh("10 seconds"))
        const deposed = yield* Scope.make()
        const { fence: old } = yield* Scope.extend(port.lease(), deposed)
        const first = yield* Effect.fork(port.relay(submission(6)))
        const [claimed] = yield* claimAll(port, 1, 3, old)
        yield* Scope.close(deposed, Exit.void)
        const { fence } = yield* port.lease()

        // The new holder makes the old claim its own; the old fence then takes nothing.
        expect(yield* port.orphans(old)).toEqual([])
        expect((yield* port.orphans(fence)).map((o) => [o.id, o.claimedAt])).toEqual([[claimed!.id, 3]])
        const second = yield* Effect.fork(port.relay(submission(7)))
        yield* Effect.sleep(Duration.millis(100))
        expect(yield* port.claim(10, 4, old)).toEqual([])

        // The old holder hands back and answers: the new holder's claim stays claimed, unanswered.
        yield* port.release([claimed!.id], old)
        yield* port.answer([{ id: claimed!.id, outcome: refused }], old)
        expect(Option.isNone(yield* Fiber.poll(first))).toBe(true)
        expect((yield* port.orphans(fence)).map((o) => o.id)).toEqual([claimed!.id])

        const [waiting] = yield* claimAll(port, 1, 4, fence)
        expect(waiting!.submission.envelopeJcs).toBe(submission(7).envelopeJcs)
        yield* port.answer([{ id: claimed!.id, outcome: accepted }, { id: waiting!.id, outcome: refused }], fence)
        expect(comparable(yield* Fiber.join(first))).toEqual(comparable(accepted))
        expect(yield* Fiber.join(second)).toEqual(refused)
      }))

    it.scopedLive("holds one lease at a time and frees it when the holder's scope closes", () =>
      Effect.gen(function*() {
        const fresh = yield* adapter.fresh("10 seconds")
        const first = yield* build(fresh)
        // A second process where the adapter has them, else a second holder in this one.
        const second = adapter.severalProcesses ? yield* build(fresh) : first
        const holder = yield* Scope.make()
        const lease = yield* Scope.extend(first.lease(), holder)
        const waiter = yield* Effect.fork(Effect.scoped(Effect.as(second.lease(), "taken")))
        yield* Effect.sleep(Duration.millis(1000))
        expect(Option.isNone(yield* Fiber.poll(waiter))).toBe(true)
        expect(Option.isNone(yield* Fiber.poll(yield* Effect.fork(lease.lost)))).toBe(true)
        yield* Scope.close(holder, Exit.void)
        expect(yield* Fiber.join(waiter).pipe(Effect.timeout("5 seconds"))).toBe("taken")
      }))

    it.scopedLive("tells a wait when a try finds the lease held, and not when it is free", () =>
      Effect.gen(function*() {
        const fresh = yield* adapter.fresh("10 seconds")
        const first = yield* build(fresh)
        const second = adapter.severalProcesses ? yield* build(fresh) : first
        const told = { first: 0, second: 0 }
        // Free: taken, and the wait is told nothing.
        const holder = yield* Scope.make()
        yield* Scope.extend(first.lease(Effect.sync(() => void told.first++)), holder)
        expect(told.first).toBe(0)
        // Held: the wait is told, once however many tries, and takes the lease once it is freed.
        const waiter = yield* Effect.fork(Effect.scoped(Effect.as(second.lease(Effect.sync(() => void told.second++)), "taken")))
        yield* Effect.repeat(Effect.sync(() => told.second), { until: (n) => n > 0, schedule: Schedule.spaced(Duration.millis(20)) }).pipe(
          Effect.timeoutFail({ duration: Duration.seconds(5), onTimeout: () => "the wait is never told the lease is held" })
        )
        yield* Effect.sleep(Duration.millis(600))
        expect(Option.isNone(yield* Fiber.poll(waiter))).toBe(true)
        yield* Scope.close(holder, Exit.void)
        expect(yield* Fiber.join(waiter).pipe(Effect.timeout("5 seconds"))).toBe("taken")
        expect(told).toEqual({ first: 0, second: 1 })
      }))

    if (adapter.silenced !== undefined) {
      const silenced = adapter.silenced
      it.scopedLive("fails a wait whose tries cannot be made with a StorageError, never telling it the lease is held", () =>
        Effect.gen(function*() {
          const { layer, silence } = yield* silenced
          const port = yield* build(layer)
          let told = 0
          yield* silence
          const exit = yield* Effect.exit(Effect.scoped(port.lease(Effect.sync(() => void told++))).pipe(
            Effect.timeoutFail({ duration: Duration.seconds(30), onTimeout: () => "the wait neither fails nor ends" })
          ))
          expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && (exit.cause.error as { _tag?: string })._tag, String(exit)).toBe("StorageError")
          expect(told).toBe(0)
        }))

      // Told held, a wait goes on trying: a later try that cannot be made ends it like a
      // first one, and is not taken for the holder still holding it.
      it.scopedLive.runIf(adapter.severalProcesses)("fails a wait told the lease is held once a later try cannot be made", () =>
        Effect.gen(function*() {
          const { layer, silence, unsilenced } = yield* silenced
          if (unsilenced === undefined) return expect.fail("an adapter of several processes gives the unsilenced one")
          const holder = yield* build(unsilenced)
          const port = yield* build(layer)
          yield* holder.lease()
          let told = 0
          const waiter = yield* Effect.fork(Effect.exit(Effect.scoped(port.lease(Effect.sync(() => void told++)))))
          yield* Effect.repeat(Effect.sync(() => told), { until: (n) => n > 0, schedule: Schedule.spaced(Duration.millis(20)) }).pipe(
            Effect.timeoutFail({ duration: Duration.seconds(10), onTimeout: () => "the wait is never told the lease is held" })
          )
          yield* silence
          const exit = yield* Fiber.join(waiter).pipe(
            Effect.timeoutFail({ duration: Duration.seconds(30), onTimeout: () => "the wait neither fails nor ends" })
          )
          expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && (exit.cause.error as { _tag?: string })._tag, String(exit)).toBe("StorageError")
          expect(told).toBe(1)
        }))
    }

    it.scopedLive("gives each new lease a higher fence than the one before, whichever process takes it", () =>
      Effect.gen(function*() {
        const fresh = yield* adapter.fresh("10 seconds")
        const first = yield* build(fresh)
        const second = adapter.severalProcesses ? yield* build(fresh) : first
        const epochs: Array<number> = []
        for (const port of [first, first, second, first]) {
          epochs.push(yield* Effect.scoped(Effect.map(port.lease(), (lease) => lease.fence.epoch)))
        }
        for (let i = 1; i < epochs.length; i++) expect(epochs[i]!).toBeGreaterThan(epochs[i - 1]!)
      }))

    if (adapter.severalProcesses) {
      it.scopedLive("relays between processes", () =>
        Effect.gen(function*() {
          const fresh = yield* adapter.fresh("10 seconds")
          const sequencer = yield* build(fresh)
          const other = yield* build(fresh)
          const { fence } = yield* sequencer.lease()
          const relays = yield* Effect.forEach([1, 2, 3, 4], (n) => Effect.fork(other.relay(submission(n))))
          const claimed = yield* claimAll(sequencer, 4, 0, fence)
          yield* sequencer.answer(claimed.map((c) => ({ id: c.id, outcome: { ...refused, detail: c.submission.envelopeJcs } })), fence)
          for (const [i, relay] of relays.entries()) {
            expect(yield* Fiber.join(relay)).toEqual({ ...refused, detail: submission(i + 1).envelopeJcs })
          }
        }))
    }
  })
}
