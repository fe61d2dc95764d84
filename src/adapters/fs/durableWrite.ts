// Writing a batch of whole files so that each one appears with all its bytes or not at all,
// and so that the batch is durable when the effect succeeds. The steps are in
// durableWriteSync.ts (temporary file, fsync, rename, fsync of the folder, new folders'
// names made durable first); they run on a thread of their own, one message per batch.
//
// Why a thread: done with node:fs/promises on the event loop, a batch of tiles was some
// twenty dependent calls (open, write, fsync, close, rename, the folders' fsyncs), and each
// waited for a turn of an event loop that is busy while writes pour in: 5 to 15 ms a turn
// under bench/write's load, against a fraction of a millisecond for the call itself. A
// publication took 150 to 450 ms and checkpoints fell 1 s behind the writes. On the thread
// the same calls run back to back, and the event loop pays one message each way.
//
// The thread is started with the writer and ended with its scope. If it dies, the batch it
// held fails with a StorageError, and the next batch starts a new thread.

import { resolve } from "node:path"
import { Worker } from "node:worker_threads"
import { Effect, type Scope } from "effect"
import { StorageError } from "../../ports/StorageError.js"
import type { FileToWrite } from "./durableWriteSync.js"
import type { BatchReply, WriteBatch } from "./fileWriterThread.js"
import { WORKER_RESOURCE_LIMITS } from "../os/workerHeap.js"

export type { FileToWrite }

export interface DurableWriter {
  /** The root, absolute: every file written lies inside it. */
  readonly root: string
  /** Writes every file atomically (skipping or refusing `immutable` ones that exist); durable when it succeeds. */
  readonly write: (files: ReadonlyArray<FileToWrite>) => Effect.Effect<void, StorageError>
}

const threadScript = (): URL =>
  import.meta.url.endsWith(".ts")
    ? new URL("../../../dist/src/adapters/fs/fileWriterThread.js", import.meta.url)
    : new URL("./fileWriterThread.js", import.meta.url)

interface Thread {
  readonly worker: Worker
  readonly pending: Map<number, (reply: BatchReply) => void>
}

/** A writer for files under `root` (created, with its name made durable, on start). */
export const makeDurableWriter = (root: string): Effect.Effect<DurableWriter, StorageError, Scope.Scope> =>
  Effect.gen(function*() {
    const absoluteRoot = resolve(root)
    let thread: Thread | undefined
    let nextId = 0

    const start = (): Promise<Thread> =>
      new Promise((ready, failed) => {
        const worker = new Worker(threadScript(), { workerData: { root: absoluteRoot }, resourceLimits: WORKER_RESOURCE_LIMITS })
        const started: Thread = { worker, pending: new Map() }
        let isReady = false
        worker.on("message", (message: "ready" | BatchReply) => {
          if (message === "ready") {
            isReady = true
            return ready(started)
          }
          if (!isReady) return failed(new StorageError({ operation: message.ok ? "start" : message.operation, detail: message.ok ? "" : message.detail }))
          const resume = started.pending.get(message.id)
          started.pending.delete(message.id)
          resume?.(message)
        })
        const stopped = (why: string) => {
          if (thread === started) thread = undefined
          for (const resume of started.pending.values()) resume({ id: -1, ok: false, operation: "write", detail: `the file-writer thread stopped: ${why}` })
          started.pending.clear()
          if (!isReady) failed(new StorageError({ operation: "start", detail: `the file-writer thread for ${absoluteRoot} did not start: ${why}` }))
        }
        worker.on("error", (error) => stopped(error.message))
        worker.on("exit", (code) => stopped(`exit code ${code}`))
      })

    const running = Effect.suspend(() =>
      thread !== undefined
        ? Effect.succeed(thread)
        : Effect.tryPromise({
          try: start,
          catch: (error) => error instanceof StorageError ? error : new StorageError({ operation: "start", detail: String(error) })
        }).pipe(Effect.tap((started) => Effect.sync(() => { thread = started }))))

    yield* running
    yield* Effect.addFinalizer(() => Effect.promise(async () => { await thread?.worker.terminate() }))

    const write = (files: ReadonlyArray<FileToWrite>) =>
      files.length === 0
        ? Effect.void
        : Effect.flatMap(running, (current) =>
          Effect.async<void, StorageError>((resume) => {
            const id = nextId++
            current.pending.set(id, (reply) =>
              resume(reply.ok ? Effect.void : Effect.fail(new StorageError({ operation: reply.operation, detail: reply.detail }))))
            current.worker.postMessage({ id, files } satisfies WriteBatch)
          }))

    return { root: absoluteRoot, write }
  })
