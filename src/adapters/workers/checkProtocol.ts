// The messages between WorkerWriteChecks and its worker threads (checkWorker.ts). Requests
// go in batches: one postMessage carries every request that arrived in the same turn.

import type { WriteCheck, WriteRequest } from "../../ports/WriteChecks.js"

export interface CheckRequest {
  readonly id: number
  readonly request: WriteRequest
  /** Unix seconds. */
  readonly now: number
}

export type CheckReply =
  | { readonly id: number; readonly result: WriteCheck }
  /** checkWrite threw: a bug, answered as a defect. */
  | { readonly id: number; readonly defect: string }

/** The worker's first message, once its modules are loaded. */
export const READY = "ready"
