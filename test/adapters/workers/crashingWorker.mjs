// A write-check worker that loads, then dies at its first request (WorkerWriteChecks tests).
import { parentPort } from "node:worker_threads"

parentPort.on("message", () => process.exit(3))
parentPort.postMessage("ready")
