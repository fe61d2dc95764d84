// The file-writer thread (durableWrite.ts): runs durable batch writes with synchronous calls
// (durableWriteSync.ts), one batch per message, and answers each in one message. It keeps
// the set of folders it has made durable for its writer's root.

import { parentPort, workerData } from "node:worker_threads"
import { DurableFolderSet } from "./durableFolders.js"
import { DurableWriteFailure, writeFilesDurablySync, type FileToWrite } from "./durableWriteSync.js"

export interface WriteBatch {
  readonly id: number
  readonly files: ReadonlyArray<FileToWrite>
}

export type BatchReply =
  | { readonly id: number; readonly ok: true }
  | { readonly id: number; readonly ok: false; readonly operation: string; readonly detail: string }

const port = parentPort!
const failureOf = (id: number, error: unknown): BatchReply =>
  error instanceof DurableWriteFailure
    ? { id, ok: false, operation: error.operation, detail: error.detail }
    : { id, ok: false, operation: "write", detail: error instanceof Error ? error.message : String(error) }

let folders: DurableFolderSet | undefined
try {
  folders = new DurableFolderSet((workerData as { root: string }).root)
  port.postMessage("ready")
} catch (error) {
  port.postMessage(failureOf(-1, error))
}

port.on("message", ({ id, files }: WriteBatch) => {
  try {
    writeFilesDurablySync(folders!, files)
    port.postMessage({ id, ok: true } satisfies BatchReply)
  } catch (error) {
    port.postMessage(failureOf(id, error))
  }
})
