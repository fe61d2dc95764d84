// The `aics` command (bin/aics.js runs this). Output: short lines on stdout, or one JSON
// value with --json. A refusal or any failure is one line on stderr (and with --json, an
// {"error": {kind, message, exit}} value on stdout); exit status 2 for usage errors, 1 for
// refusals and failures, an Outcome's own `exit` when it gives one (aics monitor's 3 for an
// older checkpoint), 0 otherwise.

import { realpathSync } from "node:fs"
import { pathToFileURL } from "node:url"
import { parseCommandLine, type Invocation } from "./cliArgs.js"
import { runCommand, type Env } from "./cliCommands.js"
import { COMMAND_USAGE, COMMANDS, USAGE } from "./cliUsage.js"
import { ClientError } from "./errors.js"
import { mcpCommand } from "./mcp/command.js"
import { watchCommand } from "./cliWatch.js"

export interface Io {
  readonly out: (text: string) => void
  readonly err: (text: string) => void
}

const help = (inv: Invocation): string => {
  const topic = inv.command === "help" ? inv.args[0] : inv.command
  return topic === undefined || topic === "help" ? USAGE : COMMAND_USAGE[topic as keyof typeof COMMAND_USAGE]
}

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, " ")

/** Runs one command line; resolves to the exit status. */
export const main = async (argv: ReadonlyArray<string>, env: Env, io: Io): Promise<number> => {
  let inv: Invocation | undefined
  try {
    inv = parseCommandLine(argv)
    if (inv.command === "help" || inv.options.help === true) {
      // Bare `aics` is a mistake, not a request for help: usage on stderr, status 2.
      if (argv.length === 0) {
        io.err(USAGE)
        return 2
      }
      io.out(help(inv))
      return 0
    }
    // These two run until stopped and write as they go, rather than answer one Outcome.
    if (inv.command === "watch") {
      await watchCommand(inv, env, io)
      return 0
    }
    if (inv.command === "mcp") {
      await mcpCommand(inv, env)
      return 0
    }
    const outcome = await runCommand(inv, env, inv.options.json === true ? () => undefined : io.err)
    if (inv.options.json === true) io.out(JSON.stringify(outcome.json, null, 2) + "\n")
    else if (outcome.lines.length > 0) io.out(outcome.lines.join("\n") + "\n")
    if (outcome.failure !== undefined) {
      io.err(oneLine(outcome.failure) + "\n")
      return outcome.exit ?? 1
    }
    return 0
  } catch (error) {
    // --json covers errors too: a program reading stdout gets a value either way.
    const json = inv?.options.json === true || (inv === undefined && argv.includes("--json"))
    const fail = (kind: string, message: string, exit: number, line: string): number => {
      if (json) io.out(JSON.stringify({ error: { kind, message, exit } }, null, 2) + "\n")
      io.err(line)
      return exit
    }
    if (error instanceof ClientError && error.kind === "usage") {
      const command = inv?.command ?? argv.find((a) => (COMMANDS as ReadonlyArray<string>).includes(a))
      const where = command === undefined || command === "help" ? "aics help" : `aics ${command} --help`
      return fail("usage", oneLine(error.message), 2, `usage error: ${oneLine(error.message)} (see ${where})\n`)
    }
    const message = error instanceof Error ? error.message : String(error)
    const kind = error instanceof ClientError ? error.kind.replace("_", " ") : "internal"
    return fail(error instanceof ClientError ? error.kind : "internal", oneLine(message), 1, `error (${kind}): ${oneLine(message)}\n`)
  }
}

/** Runs the process's command line and sets its exit status (bin/aics.js calls this). */
export const run = async (): Promise<void> => {
  process.exitCode = await main(process.argv.slice(2), process.env, {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text)
  })
}

// `node dist/src/client/cli.js ...` runs it too; an import (tests, the bin shim) does not.
const isMainModule = (): boolean => {
  try {
    return process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href
  } catch {
    return false
  }
}
if (isMainModule()) await run()
