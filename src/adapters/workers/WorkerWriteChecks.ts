// WriteChecks on a pool of node:worker_threads (AICS_CHECK_WORKERS): the two Ed25519
// verifications, JSON, JCS and schema decoding of every write run beside the event loop,
// which keeps the HTTP handling, the nonce store and the sequencer.
//
// - Each worker runs the compiled checkWorker.js (dist/src/adapters/workers/), which calls
//   the same checkWrite as the in-process adapter. Run from the TypeScript sources (tests),
//   the pool still starts the compiled copy in dist/.
// - A request goes to the worker with the fewest requests outstanding. Requests that
//   arrive in the same turn of the event loop go to a worker in one message, and it
//   answers them in one message, so a burst costs one postMessage per worker each way.
//   The outbox is flushed with setImmediate, after every I/O callback of the turn: a
//   microtask would run after each socket's callback, and measured one message per
//   request (bench/write: about 22 requests per message with setImmediate; with the
//   route cut short after the checks, 90 µs less CPU per write across the two threads).
// - The layer is ready once every worker has loaded (a missing dist/ stops the service at
//   start, not at the first write). A worker that dies later is replaced; the requests it
//   held end as defects (500), like an exception of the in-process checks. If the
//   replacement cannot start either, its slot stays empty; with every slot empty, checks
//   end as defects at once rather than wait for a worker that will not come.
// - Closing the layer terminates the workers; requests still outstanding are interrupted.

import { Worker } from "node:worker_threads"
import { Data, Effect, Layer } from "effect"
import { checkBusySeconds, sampledOnScrape } from "../../app/Metrics.js"
import { type WriteCheck, WriteChecks, type WriteRequest } from "../../ports/WriteChecks.js"
import { READY, type CheckReply, type CheckRequest } from "./checkProtocol.js"
import type { WriteCheckSettings } from "./checkWrite.js"
import { WORKER_RESOURCE_LIMITS } from "../os/workerHeap.js"

export class WriteCheckWorkerError extends Data.TaggedError("WriteCheckWorkerError")<{
  readonly detail: string
}> {}

export interface WorkerWriteChecksOptions extends WriteCheckSettings {
  /** Number of worker threads, at least 1. */
  readonly workers: number
  /** The compiled worker script (default: checkWorker.js of dist/). */
  readonly script?: URL
}

const defaultScript = (): URL =>
  import.meta.url.endsWith(".ts")
    ? new URL("../../../dist/src/adapters/workers/checkWorker.js", import.meta.url)
    : new URL("./checkWorker.js", import.meta.url)

type Resume = (answer: Effect.Effect<WriteCheck>) => void

interface Slot {
  /** Undefined once a worker died and its replacement could not start. */
  worker: Worker | undefined
  /** Requests sent and not yet answered, by id. */
  readonly pending: Map<number, Resume>
  /** Requests of this turn of the event loop, not yet sent. */
  outbox: Array<CheckRequest>
}

export const WorkerWriteChecksLive = (options: WorkerWriteChecksOptions): Layer.Layer<WriteChecks, WriteCheckWorkerError> =>
  Layer.scoped(WriteChecks, Effect.gen(function*() {
    if (!Number.isSafeInteger(options.workers) || options.workers < 1) {
      return yield* new WriteCheckWorkerError({ detail: `a pool needs at least one worker, not ${options.workers}` })
    }
    const script = options.script ?? defaultScript()
    const settings: WriteCheckSettings = { origin: options.origin, authorities: [...options.authorities] }
    let closing = false
    let nextId = 0

    /** Starts a worker for the slot; resolves once it has loaded, or fails with why it could not. */
    const start = (slot: Slot): Promise<void> =>
      new Promise((resolve, reject) => {
        const worker = new Worker(script, { workerData: settings, resourceLimits: WORKER_RESOURCE_LIMITS })
        slot.worker = worker
        let ready = false
        worker.on("message", (message: typeof READY | ReadonlyArray<CheckReply>) => {
          if (message === READY) {
            ready = true
            resolve()
            return
          }
          for (const reply of message) {
            const resume = slot.pending.get(reply.id)
            if (resume === undefined) continue
            slot.pending.delete(reply.id)
            resume("result" in reply ? Effect.succeed(reply.result) : Effect.die(new Error(`write check failed: ${reply.defect}`)))
          }
        })
        const stopped = (why: string) => {
          if (slot.worker !== worker) return
          failPending(slot, `the write-check worker stopped: ${why}`)
          if (!ready) {
            slot.worker = undefined
            reject(new WriteCheckWorkerError({ detail: `a write-check worker (${script.href}) did not start: ${why}` }))
          } else if (!closing) {
            start(slot).catch(() => undefined)
          }
        }
        worker.on("error", (error) => stopped(error.message))
        worker.on("exit", (code) => stopped(`exit code ${code}`))
      })

    const failPending = (slot: Slot, why: string) => {
      const lost = [...slot.pending.values()]
      slot.pending.clear()
      for (const resume of lost) resume(Effect.die(new Error(why)))
    }

    const slots: Array<Slot> = Array.from({ length: options.workers }, () => ({ worker: undefined, pending: new Map(), outbox: [] }))
    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        closing = true
        for (const slot of slots) {
          const lost = [...slot.pending.values()]
          slot.pending.clear()
          for (const resume of lost) resume(Effect.interrupt)
        }
        await Promise.all(slots.map((slot) => slot.worker?.terminate()))
      })
    )
    yield* Effect.tryPromise({
      try: () => Promise.all(slots.map(start)),
      catch: (error) => error instanceof WriteCheckWorkerError ? error : new WriteCheckWorkerError({ detail: String(error) })
    })

    const flush = (slot: Slot) => () => {
      const batch = slot.outbox
      slot.outbox = []
      if (slot.worker === undefined) failPending(slot, "no write-check worker is running")
      else slot.worker.postMessage(batch)
    }

    const check = (request: WriteRequest, now: number) =>
      Effect.async<WriteCheck>((resume) => {
        let slot: Slot | undefined
        for (const other of slots) {
          if (other.worker !== undefined && (slot === undefined || other.pending.size < slot.pending.size)) slot = other
        }
        if (slot === undefined) return resume(Effect.die(new Error("no write-check worker is running")))
        const id = nextId++
        slot.pending.set(id, resume)
        if (slot.outbox.length === 0) setImmediate(flush(slot))
        slot.outbox.push({ id, request, now })
        return Effect.sync(() => {
          slot.pending.delete(id)
        })
      })

    // Busy time for /metrics: each worker's event loop utilisation, read from this thread
    // at each scrape, added as it grows (a replaced worker starts from zero again).
    const seen = new Map<Worker, number>()
    yield* sampledOnScrape(Effect.sync(() => {
      for (const slot of slots) {
        const worker = slot.worker
        if (worker === undefined) continue
        const active = worker.performance.eventLoopUtilization().active
        const before = seen.get(worker) ?? 0
        if (active > before) workerBusy.unsafeUpdate((active - before) / 1000, [])
        seen.set(worker, active)
      }
      for (const worker of seen.keys()) if (!slots.some((slot) => slot.worker === worker)) seen.delete(worker)
    }))
    return { check }
  }))

const workerBusy = checkBusySeconds.of(["thread", "worker"])
