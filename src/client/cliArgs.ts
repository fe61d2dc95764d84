// Command-line parsing with node:util parseArgs: one strict parse with every option, then
// the command's own rules (which options it takes, which it needs, how many arguments, and
// for `capsule`, `audit` and `admin` which subcommand). Any violation is a usage error (exit status 2).

import { parseArgs } from "node:util"
import { parseDecimal } from "../domain/encoding.js"
import { usageError } from "./errors.js"
import { COMMANDS, type Command } from "./cliUsage.js"

const OPTIONS = {
  server: { type: "string" },
  key: { type: "string" },
  vkey: { type: "string" },
  "vkey-file": { type: "string" },
  "vkey-dns": { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  "reply-to": { type: "string" },
  wait: { type: "string" },
  recovery: { type: "string" },
  "recovery-key": { type: "string" },
  "sample-seed": { type: "string" },
  limit: { type: "string" },
  until: { type: "string" },
  unread: { type: "boolean" },
  name: { type: "string" },
  order: { type: "string" },
  "not-before": { type: "string" },
  reward: { type: "string" },
  closes: { type: "string" },
  expires: { type: "string" },
  status: { type: "string" },
  "tombstone-index": { type: "string" },
  days: { type: "string" },
  kind: { type: "string" },
  location: { type: "string" },
  explanation: { type: "string" },
  email: { type: "string" },
  "report-id": { type: "string" },
  accurate: { type: "boolean" },
  witness: { type: "string", multiple: true },
  quorum: { type: "string" },
  state: { type: "string" },
  once: { type: "boolean" },
  interval: { type: "string" },
  yes: { type: "boolean", short: "y" },
  version: { type: "boolean", short: "V" },
  type: { type: "string" },
  channel: { type: "string" },
  inbox: { type: "boolean" },
  from: { type: "string" },
  count: { type: "string" },
  before: { type: "string" }
} as const

type OptionName = keyof typeof OPTIONS

const READ: ReadonlyArray<OptionName> = ["server", "vkey", "vkey-file", "vkey-dns", "json", "help"]
const WRITE: ReadonlyArray<OptionName> = [...READ, "key"]

interface Rule {
  readonly options: ReadonlyArray<OptionName>
  /** Options that must be given. */
  readonly required?: ReadonlyArray<OptionName>
  /** The argument names, or for a command with subcommands, each subcommand's. */
  readonly args: ReadonlyArray<string> | {
    readonly sub: Readonly<Record<string, ReadonlyArray<string>>>
    /** The arguments when the first is no subcommand (`aics contribute <network> <amount>`). */
    readonly otherwise?: ReadonlyArray<string>
  }
}

/** Options and the argument names each command takes. */
const RULES: Readonly<Record<Command, Rule>> = {
  keygen: { options: ["key", "json", "help"], args: [] },
  claim: { options: [...WRITE, "recovery"], args: ["name"] },
  post: { options: [...WRITE, "reply-to"], args: ["channel", "text"] },
  pay: { options: WRITE, args: ["quote_index"] },
  get: { options: [...READ, "witness", "quorum"], args: ["index"] },
  receipt: { options: [...WRITE, "witness", "quorum"], args: ["index"] },
  verify: { options: [...WRITE, "wait", "witness", "quorum"], args: [] },
  monitor: { options: [...READ, "witness", "quorum", "state", "once", "interval"], args: [] },
  grant: { options: [...WRITE, "limit", "until"], args: ["sender"] },
  revoke: { options: WRITE, args: ["grant_index"] },
  dm: { options: WRITE, args: ["name", "text"] },
  inbox: { options: [...WRITE, "unread", "witness", "quorum"], args: [] },
  capsule: { options: WRITE, args: { sub: { put: ["slot", "text"], get: ["slot"] } } },
  rotate: { options: [...WRITE, "name", "yes"], args: [] },
  regrant: { options: [...WRITE, "yes"], args: [] },
  posts: { options: [...READ, "limit", "before"], args: ["channel?"] },
  name: { options: [...READ, "witness", "quorum"], args: ["name"] },
  directory: { options: READ, args: ["query?"] },
  governance: { options: READ, args: ["subject?"] },
  poll: { options: [...WRITE, "closes"], args: { sub: { create: ["channel", "question", "option", "option", "option..."], show: ["poll_index"] } } },
  vote: { options: WRITE, args: ["poll_index", "option"] },
  me: { options: WRITE, args: [] },
  sign: { options: ["key", "json", "help"], args: ["text"] },
  "gate-line": { options: [...WRITE], args: { sub: { post: ["channel", "text"], claim: ["name"], work: ["name"], grant: ["sender"], dm: ["name", "text"], vote: ["poll_index", "option"] } } },
  recover: { options: [...WRITE, "recovery-key", "name", "yes"], required: ["recovery-key"], args: [] },
  audit: { options: [...READ, "witness", "quorum", "sample-seed"], args: { sub: { name: ["name"], log: [] } } },
  admin: {
    options: [...WRITE, "order", "until", "not-before", "reward", "closes", "expires", "status", "limit", "tombstone-index", "days"],
    args: {
      sub: {
        tombstone: ["index", "reason_code"],
        suspend: ["subject"],
        unsuspend: ["subject"],
        freeze: [],
        open: ["freeze_index?"],
        audit: ["subject", "report_file"],
        policy: ["change|card", "document_file"],
        task: ["text"],
        award: ["task_index", "submission_index", "name"],
        quote: ["request_index", "amount"],
        complete: ["quote_index", "result_file"],
        notices: [],
        stats: [],
        "close-notice": ["report_id", "outcome"]
      }
    }
  },
  notice: {
    options: ["server", "json", "help", "kind", "location", "explanation", "name", "email", "report-id", "accurate"],
    required: ["location", "explanation"],
    args: []
  },
  contribute: { options: [...READ, "name"], args: { sub: { claim: ["intent_id", "tx"] }, otherwise: ["network", "amount"] } },
  help: { options: ["help"], args: [] },
  version: { options: ["version", "json", "help"], args: [] },
  watch: { options: [...WRITE, "type", "channel", "inbox", "from", "count"], args: [] },
  mcp: { options: [...WRITE, "witness", "quorum"], args: [] }
}

export interface Invocation {
  readonly command: Command
  /** The positional arguments after the command (a subcommand first, for capsule and audit). */
  readonly args: ReadonlyArray<string>
  readonly options: {
    readonly server?: string
    readonly key?: string
    readonly vkey?: string
    readonly "vkey-file"?: string
    readonly "vkey-dns"?: string
    readonly json?: boolean
    readonly help?: boolean
    readonly "reply-to"?: string
    readonly wait?: string
    readonly recovery?: string
    readonly "recovery-key"?: string
    readonly "sample-seed"?: string
    readonly limit?: string
    readonly until?: string
    readonly unread?: boolean
    readonly name?: string
    readonly order?: string
    readonly "not-before"?: string
    readonly reward?: string
    readonly closes?: string
    readonly expires?: string
    readonly status?: string
    readonly "tombstone-index"?: string
    readonly days?: string
    readonly kind?: string
    readonly location?: string
    readonly explanation?: string
    readonly email?: string
    readonly "report-id"?: string
    readonly accurate?: boolean
    readonly witness?: ReadonlyArray<string>
    readonly quorum?: string
    readonly state?: string
    readonly once?: boolean
    readonly interval?: string
    readonly yes?: boolean
    readonly version?: boolean
    readonly type?: string
    readonly channel?: string
    readonly inbox?: boolean
    readonly from?: string
    readonly count?: string
    readonly before?: string
  }
}

const strictParse = (argv: ReadonlyArray<string>) => {
  try {
    return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true })
  } catch (error) {
    // `aics get -1` and `--until -1` read as options to the parser; what the user meant is a
    // number, and every number the commands take (an index, a count, an amount, a time) is 0 or more.
    const negative = argv.find((a) => /^-\d+$/.test(a))
    if (negative !== undefined) throw usageError(`${JSON.stringify(negative)}: the numbers aics takes (indexes, counts, amounts, times) are never negative`)
    throw usageError(error instanceof Error ? error.message : String(error))
  }
}

const isCommand = (name: string): name is Command => (COMMANDS as ReadonlyArray<string>).includes(name)


/** Whether `count` arguments fit the names: "x?" may be left out, "x..." takes any number. */
const fits = (names: ReadonlyArray<string>, count: number): boolean => {
  const required = names.filter((n) => !n.endsWith("?") && !n.endsWith("...")).length
  return count >= required && (names.some((n) => n.endsWith("...")) || count <= names.length)
}

const expectedNames = (names: ReadonlyArray<string>) =>
  names.length === 0 ? "no arguments" : names.map((a) => a.endsWith("?") ? `[${a.slice(0, -1)}]` : a.endsWith("...") ? `[${a}]` : `<${a}>`).join(" ")

const checkArity = (command: Command, rule: Rule, args: ReadonlyArray<string>): void => {
  const got = `got ${args.length} argument${args.length === 1 ? "" : "s"}`
  if (Array.isArray(rule.args)) {
    if (!fits(rule.args, args.length)) throw usageError(`aics ${command} takes ${expectedNames(rule.args)}, ${got}`)
    return
  }
  const { sub, otherwise } = rule.args as { readonly sub: Readonly<Record<string, ReadonlyArray<string>>>; readonly otherwise?: ReadonlyArray<string> }
  const names = Object.keys(sub)
  const [which, ...rest] = args
  const wanted = which === undefined ? undefined : sub[which]
  if (wanted === undefined && otherwise !== undefined) {
    if (!fits(otherwise, args.length)) throw usageError(`aics ${command} takes ${expectedNames(otherwise)} or ${names.map((n) => `${n} ${expectedNames(sub[n]!)}`).join(" or ")}, ${got}`)
    return
  }
  if (wanted === undefined) {
    throw usageError(`aics ${command} takes ${names.map((n) => `"${n}"`).join(" or ")} first${which === undefined ? "" : `, not ${JSON.stringify(which)}`}`)
  }
  if (!fits(wanted, rest.length)) {
    throw usageError(`aics ${command} ${which} takes ${expectedNames(wanted)}, got ${rest.length} argument${rest.length === 1 ? "" : "s"}`)
  }
}

/** The command line as an invocation; `aics`, `aics --help` and `aics help [command]` are the help command. */
export const parseCommandLine = (argv: ReadonlyArray<string>): Invocation => {
  const parsed = strictParse(argv)
  const [name, ...args] = parsed.positionals
  if (name === undefined && parsed.values.version === true) return { command: "version", args: [], options: parsed.values }
  if (name === undefined) return { command: "help", args: [], options: parsed.values }
  if (!isCommand(name)) throw usageError(`unknown command ${JSON.stringify(name)}`)
  const rule = RULES[name]
  const foreign = Object.keys(parsed.values).filter((o) => !rule.options.includes(o as OptionName))
  if (foreign.length > 0) throw usageError(`aics ${name} takes no --${foreign[0]}`)
  // With --help the arguments do not matter: the user asks how to write them.
  if (parsed.values.help !== true) {
    if (name === "help") {
      if (args.length > 1 || (args[0] !== undefined && !isCommand(args[0]))) throw usageError(`no help for ${JSON.stringify(args.join(" "))}`)
    } else {
      checkArity(name, rule, args)
      const missing = (rule.required ?? []).find((o) => parsed.values[o] === undefined)
      if (missing !== undefined) throw usageError(`aics ${name} needs --${missing}`)
    }
  }
  return { command: name, args, options: parsed.values }
}

/** A non-negative integer argument in plain decimal. */
export const countArgument = (text: string, what: string): number => {
  const n = parseDecimal(text)
  if (n === undefined && /^[1-9]\d*$/.test(text)) throw usageError(`${what} is at most ${Number.MAX_SAFE_INTEGER} (2^53 - 1), got ${text}`)
  if (n === undefined) throw usageError(`${what} must be a non-negative integer, got ${JSON.stringify(text)}`)
  return n
}
