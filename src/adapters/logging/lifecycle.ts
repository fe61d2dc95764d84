// The two lines that frame a process's log (issue 13 item 8; docs/operations.md "Logs"):
// at start, what this process is (service, pid, Node, storage, where it listens, origin);
// when it stops, why: the signal it received the moment it arrives (before the layers
// close, which can take the drain's grace), or the failure that ended it, and a last line
// once everything has closed. Lines of the process's report: written whatever AICS_LOG_LEVEL
// says (logging.ts reportLine). A log read months later then says which process wrote each
// stretch and whether it was told to stop or fell over.

import { Cause, Effect, Exit, Layer, Runtime } from "effect"
import { ServiceConfig } from "../../app/ServiceConfig.js"
import { reportLine } from "./logging.js"

const SIGNALS: ReadonlyArray<NodeJS.Signals> = ["SIGTERM", "SIGINT"]

export const ProcessLifecycleLive = Layer.scopedDiscard(Effect.gen(function*() {
  const config = yield* ServiceConfig
  const runtime = yield* Effect.runtime<never>()
  const process_ = { service: "aics", pid: process.pid }
  let reason: string | undefined
  // Effect's NodeRuntime.runMain interrupts the service on SIGINT and SIGTERM; this only
  // records and reports the signal.
  const onSignal = (signal: NodeJS.Signals) => {
    if (reason !== undefined) return
    reason = `signal ${signal}`
    Runtime.runSync(runtime)(reportLine("aics stopping", { ...process_, reason }))
  }
  yield* Effect.acquireRelease(
    Effect.sync(() => { for (const signal of SIGNALS) process.on(signal, onSignal) }),
    () => Effect.sync(() => { for (const signal of SIGNALS) process.off(signal, onSignal) })
  )
  yield* reportLine("aics starting", {
    ...process_,
    node: process.version,
    storage: config.databaseUrl === undefined ? "filesystem" : "postgresql",
    listen: `${config.host}:${config.port}`,
    public_url: config.publicUrl,
    origin: config.origin
  })
  yield* Effect.addFinalizer((exit) =>
    reportLine("aics stopped", {
      ...process_,
      reason: reason ?? (Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause) ? `failure: ${Cause.pretty(exit.cause).split("\n")[0]}` : "the service ended")
    }))
}))
