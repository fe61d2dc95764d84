// A write-check worker thread (WorkerWriteChecks.ts): runs checkWrite with node:crypto on
// each batch of requests it is sent. It holds no state beyond node:crypto's public-key cache.
//
// Answers go back in small chunks, not once per batch: a batch of 40 writes takes ~12 ms
// here, and answering it whole made the event loop wait idle for the first answers, then
// receive 40 at once while this thread waited for more work: the two threads took turns
// instead of working side by side (bench/write: each thread under half busy). A chunk is
// sent once it holds REPLY_CHUNK answers or has waited REPLY_WAIT_MS, so the main thread
// starts on the first writes of a batch while the rest are checked, and a message still
// carries several answers (one postMessage costs about as much as a few µs of checks).

import { parentPort, workerData } from "node:worker_threads"
import { nodeCrypto } from "../crypto/nodeCryptoPrimitives.js"
import { READY, type CheckReply, type CheckRequest } from "./checkProtocol.js"
import { checkWrite, type WriteCheckSettings } from "./checkWrite.js"

const settings = workerData as WriteCheckSettings
const port = parentPort!

/** Answers per message, at most. */
const REPLY_CHUNK = 4
/** A chunk waits at most this long for more answers. */
const REPLY_WAIT_MS = 1

const answer = ({ id, request, now }: CheckRequest): CheckReply => {
  try {
    return { id, result: checkWrite(request, now, settings, nodeCrypto) }
  } catch (error) {
    return { id, defect: error instanceof Error ? (error.stack ?? error.message) : String(error) }
  }
}

port.on("message", (batch: ReadonlyArray<CheckRequest>) => {
  let chunk: Array<CheckReply> = []
  let since = performance.now()
  for (const request of batch) {
    chunk.push(answer(request))
    if (chunk.length >= REPLY_CHUNK || performance.now() - since >= REPLY_WAIT_MS) {
      port.postMessage(chunk)
      chunk = []
      since = performance.now()
    }
  }
  if (chunk.length > 0) port.postMessage(chunk)
})
port.postMessage(READY)
