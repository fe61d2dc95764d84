// A write-check worker thread (WorkerWriteChecks.ts): runs checkWrite with node:crypto on
// each batch of requests it is sent, and answers the batch in one message. It holds no
// state beyond node:crypto's public-key cache.

import { parentPort, workerData } from "node:worker_threads"
import { nodeCrypto } from "../crypto/nodeCrypto.js"
import { READY, type CheckReply, type CheckRequest } from "./checkProtocol.js"
import { checkWrite, type WriteCheckSettings } from "./checkWrite.js"

const settings = workerData as WriteCheckSettings
const port = parentPort!

const answer = ({ id, request, now }: CheckRequest): CheckReply => {
  try {
    return { id, result: checkWrite(request, now, settings, nodeCrypto) }
  } catch (error) {
    return { id, defect: error instanceof Error ? (error.stack ?? error.message) : String(error) }
  }
}

port.on("message", (batch: ReadonlyArray<CheckRequest>) => port.postMessage(batch.map(answer)))
port.postMessage(READY)
