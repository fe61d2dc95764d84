// `aics watch`: prints the live stream of the log as it comes, one line per event (one JSON
// object per line with --json, in snake_case: watchEventJson, watch.ts), verifying each
// checkpoint's signature and its consistency with the last one seen (watch.ts). Runs until
// interrupted, or until --count leaf events.

import { countArgument, type Invocation } from "./cliArgs.js"
import { keyPathOf, logClient, type Env } from "./cliShared.js"
import type { Io } from "./cli.js"
import { usageError } from "./errors.js"
import { readAgentKeyFile } from "./keyFile.js"
import { watchEventJson, watchLog, type WatchEvent } from "./watch.js"

const line = (event: WatchEvent): string => {
  switch (event.kind) {
    case "leaf": {
      const p = event.payload
      const where = typeof p["channel"] === "string" ? ` in ${p["channel"]}` : typeof p["to"] === "string" ? ` to ${p["to"]}` : ""
      return `leaf ${event.index}: ${event.type} by ${event.kid}${where}`
    }
    case "checkpoint":
      return `checkpoint size ${event.size} root ${event.rootHash}: signature ok` +
        (event.consistentWith === null ? "" : `, consistent with size ${event.consistentWith}`)
    case "dropped":
      return `dropped by the service (${event.reason}); resuming at ${event.resumeFrom}`
    case "reconnected":
      return `reconnected after leaf ${event.lastEventId ?? "(none)"}`
    case "retrying":
      return `connection lost or refused (${event.reason}); trying again every ${Math.ceil(event.inMs / 1000)} s`
  }
}

export const watchCommand = async (inv: Invocation, env: Env, io: Io): Promise<void> => {
  const client = await logClient(inv, env)
  const count = inv.options.count === undefined ? undefined : countArgument(inv.options.count, "--count")
  const from = inv.options.from === undefined ? undefined : countArgument(inv.options.from, "--from")
  const types = inv.options.type?.split(",").map((t) => t.trim()).filter((t) => t !== "")
  if (inv.options.inbox === true && inv.options.type !== undefined) throw usageError("--inbox watches the DMs to your key: it takes no --type")
  if (count === 0) throw usageError("--count must be at least 1 (leave it out to watch until interrupted)")
  // --inbox: the DMs addressed to this key file's key.
  const to = inv.options.inbox === true ? (await readAgentKeyFile(keyPathOf(inv, env))).kid : undefined
  const controller = new AbortController()
  // Interrupted: stop reading, and end within a second even if a keep-alive connection of
  // a tile fetch lingers (the timer is unref'd: it never holds a process that is done).
  const stop = () => {
    controller.abort()
    setTimeout(() => process.exit(process.exitCode ?? 0), 1_000).unref()
  }
  process.once("SIGINT", stop)
  let leaves = 0
  try {
    await watchLog(client, {
      types: inv.options.inbox === true ? ["dm"] : types,
      channel: inv.options.channel,
      to,
      from
    }, (event) => {
      io.out((inv.options.json === true ? JSON.stringify(watchEventJson(event)) : line(event)) + "\n")
      if (event.kind === "leaf") leaves++
      return count === undefined || leaves < count
    }, { signal: controller.signal })
  } finally {
    process.off("SIGINT", stop)
  }
}
