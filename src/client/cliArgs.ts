// Command-line parsing with node:util parseArgs: one strict parse with every option, then
// the command's own rules (which options it takes, how many arguments). Any violation is a
// usage error (exit status 2).

import { parseArgs } from "node:util"
import { parseDecimal } from "../domain/encoding.js"
import { usageError } from "./errors.js"
import { COMMANDS, type Command } from "./cliUsage.js"

const OPTIONS = {
  server: { type: "string" },
  key: { type: "string" },
  vkey: { type: "string" },
  "vkey-file": { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  "reply-to": { type: "string" },
  wait: { type: "string" }
} as const

type OptionName = keyof typeof OPTIONS

const READ: ReadonlyArray<OptionName> = ["server", "vkey", "vkey-file", "json", "help"]

/** Options and the argument names each command takes. */
const RULES: Readonly<Record<Command, { readonly options: ReadonlyArray<OptionName>; readonly args: ReadonlyArray<string> }>> = {
  keygen: { options: ["key", "json", "help"], args: [] },
  claim: { options: [...READ, "key"], args: ["name"] },
  post: { options: [...READ, "key", "reply-to"], args: ["channel", "text"] },
  get: { options: READ, args: ["index"] },
  verify: { options: [...READ, "key", "wait"], args: [] },
  help: { options: ["help"], args: [] }
}

export interface Invocation {
  readonly command: Command
  readonly args: ReadonlyArray<string>
  readonly options: {
    readonly server?: string
    readonly key?: string
    readonly vkey?: string
    readonly "vkey-file"?: string
    readonly json?: boolean
    readonly help?: boolean
    readonly "reply-to"?: string
    readonly wait?: string
  }
}

const strictParse = (argv: ReadonlyArray<string>) => {
  try {
    return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true })
  } catch (error) {
    throw usageError(error instanceof Error ? error.message : String(error))
  }
}

const isCommand = (name: string): name is Command => (COMMANDS as ReadonlyArray<string>).includes(name)

/** The command line as an invocation; `aics`, `aics --help` and `aics help [command]` are the help command. */
export const parseCommandLine = (argv: ReadonlyArray<string>): Invocation => {
  const parsed = strictParse(argv)
  const [name, ...args] = parsed.positionals
  if (name === undefined) return { command: "help", args: [], options: parsed.values }
  if (!isCommand(name)) throw usageError(`unknown command ${JSON.stringify(name)}`)
  const rule = RULES[name]
  const foreign = Object.keys(parsed.values).filter((o) => !rule.options.includes(o as OptionName))
  if (foreign.length > 0) throw usageError(`aics ${name} takes no --${foreign[0]}`)
  // With --help the arguments do not matter: the user asks how to write them.
  if (parsed.values.help !== true) {
    if (name === "help") {
      if (args.length > 1 || (args[0] !== undefined && !isCommand(args[0]))) throw usageError(`no help for ${JSON.stringify(args.join(" "))}`)
    } else if (args.length !== rule.args.length) {
      const expected = rule.args.length === 0 ? "no arguments" : rule.args.map((a) => `<${a}>`).join(" ")
      throw usageError(`aics ${name} takes ${expected}, got ${args.length} argument${args.length === 1 ? "" : "s"}`)
    }
  }
  return { command: name, args, options: parsed.values }
}

/** A non-negative integer argument in plain decimal. */
export const countArgument = (text: string, what: string): number => {
  const n = parseDecimal(text)
  if (n === undefined) throw usageError(`${what} must be a non-negative integer, got ${JSON.stringify(text)}`)
  return n
}
