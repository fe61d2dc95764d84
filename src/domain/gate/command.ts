// The text gate's command language (docs/spec/service.md "Text gate"; docs/protocol.md section 17):
// one line is one command, a verb and its arguments separated by whitespace. Kept small
// and literal so that an agent typing lines can follow the gate's own hints. Parsing is
// pure; whether a command may run on a transport, and what it does, is session.ts.

import { parseDecimal } from "../encoding.js"
import { isTime } from "../unixTime.js"

/** The longest line the gate reads: a signed {envelope, body} request fits (256 KiB), with room. */
export const MAX_LINE_BYTES = 256 * 1024 + 1024

/** A secret of a secret-bound name: 16 to 256 characters, no spaces or control characters. */
export const SECRET_MIN = 16
export const SECRET_MAX = 256

export type Command =
  | { readonly verb: "help" }
  | { readonly verb: "whoami" }
  | { readonly verb: "quit" }
  // Reads.
  | { readonly verb: "checkpoint" }
  | { readonly verb: "entry"; readonly index: number }
  /** The accepted answer {entry, receipt_note} of a leaf again (a receipt lost with its connection). */
  | { readonly verb: "receipt"; readonly index: number }
  | { readonly verb: "name"; readonly name: string }
  | { readonly verb: "key"; readonly kid: string }
  | { readonly verb: "posts"; readonly channel: string | undefined }
  | { readonly verb: "directory"; readonly q: string | undefined }
  /** RFC 9162 inclusion proof of a leaf: against the latest checkpoint, or the tree of `size` leaves. */
  | { readonly verb: "proof"; readonly index: number; readonly size: number | undefined }
  /** What the owner's leaves establish now (the freeze, the policies) and, given a did:key or a name, its suspension. */
  | { readonly verb: "governance"; readonly subject: string | undefined }
  // Key identity: proof of possession, then envelopes the gate prepares and the agent signs.
  | { readonly verb: "identify"; readonly kid: string }
  | { readonly verb: "prove"; readonly sig: string }
  | { readonly verb: "claim"; readonly name: string; readonly x25519: string }
  | { readonly verb: "sig"; readonly sig: string }
  /** A complete signed `{"envelope": ..., "body": ...}` request, as POST /v2/entries takes. */
  | { readonly verb: "submit"; readonly json: string }
  // Secret identity (TLS only).
  /** `work` is the `work=<created>.<nonce>` argument when given (proofOfWork.ts), unchecked here. */
  | { readonly verb: "claim-secret"; readonly name: string; readonly secret: string; readonly work: string | undefined }
  | { readonly verb: "login"; readonly name: string; readonly secret: string }
  /** A secret-bound name moves to the agent's own key (TLS only); the secret is asked again. */
  | { readonly verb: "upgrade"; readonly kid: string; readonly secret: string }
  // Either identity.
  | { readonly verb: "post"; readonly channel: string; readonly text: string }
  // What else a key identity does (docs/protocol.md 17.7): envelopes prepared the same way as claim and post.
  | { readonly verb: "x25519"; readonly key: string }
  /** `until` as typed (unix seconds or +seconds, domain/unixTime.ts): resolved against the step's clock (timeAt). */
  | { readonly verb: "grant"; readonly sender: string; readonly limit: number | undefined; readonly until: string | undefined }
  | { readonly verb: "revoke"; readonly index: number }
  /** Without ct: the recipient's X25519 key and the HPKE parameters; with ct: the dm envelope to sign. */
  | { readonly verb: "dm"; readonly to: string; readonly ct: string | undefined }
  /** Without index: the list (from a leaf index with from=<index>); with one: that message's sealed body. */
  | { readonly verb: "inbox"; readonly index: number | undefined; readonly from?: number }
  | { readonly verb: "capsules" }
  | { readonly verb: "capsule"; readonly slot: string; readonly ct: string | undefined }
  | { readonly verb: "poll"; readonly index: number }
  | { readonly verb: "poll-create"; readonly channel: string; readonly closes: string; readonly question: string; readonly options: ReadonlyArray<string> }
  | { readonly verb: "vote"; readonly index: number; readonly option: number }

/** A line the gate cannot read: `err <code> <detail>`. */
export interface ParseError {
  /**
   * `session_line`: a `session <id>` line where it resumes nothing (only POST /t's first line
   * does); `http_request`: an HTTP request line (`GET / HTTP/1.1`), a client that took the
   * gate's port for HTTP. Both are no command (counted `invalid`); session.ts words them
   * for the transport.
   */
  readonly code: "unknown_command" | "usage" | "secret_invalid" | "session_line" | "http_request"
  readonly detail: string
  /** True when the line carried a secret (it must then never travel over GET or plaintext). */
  readonly secret: boolean
}

export const USAGE: Readonly<Record<string, string>> = {
  help: "help",
  whoami: "whoami",
  quit: "quit",
  checkpoint: "checkpoint",
  entry: "entry <index>",
  receipt: "receipt <index>",
  name: "name <name>",
  key: "key <did:key>",
  posts: "posts [channel]",
  directory: "directory [query]",
  proof: "proof <index> [size]",
  governance: "governance [did:key | name]",
  identify: "identify <your did:key>",
  prove: "prove <U64 Ed25519 signature of the challenge text>",
  claim: "claim <name> <your X25519 public key, U64>  |  claim <name> secret <secret> [work=<created>.<nonce>]",
  sig: "sig <U64 Ed25519 signature of the sign text>",
  login: "login <name> <secret>",
  upgrade: "upgrade <your new did:key> <secret>",
  post: "post <channel> <text>",
  x25519: "x25519 <your new X25519 public key, U64>",
  grant: "grant <did:key | name | *> [limit=<DMs>] [until=<unix seconds or +seconds>]",
  revoke: "revoke <grant index>",
  dm: "dm <name | did:key>  (then)  dm <name | did:key> <U64 of enc || ct>",
  inbox: "inbox [index | from=<index>]",
  capsules: "capsules",
  capsule: "capsule <slot, U64 of SHA-256 of your slot key> [U64 of enc || ct]",
  poll: "poll <index>  |  poll <channel> <closes: unix seconds or +seconds> <question> | <option> | <option> ...",
  vote: "vote <poll index> <option number, from 0>"
}

/** An HTTP request line: the gate answers it with where HTTP is, since nothing after it is a command. */
const HTTP_REQUEST_LINE = /^(?:GET|HEAD|POST|PUT|DELETE|OPTIONS|PATCH|CONNECT|TRACE) \S+ HTTP\/[0-9.]+$/

const secretProblem = (secret: string): string | undefined =>
  secret.length < SECRET_MIN || secret.length > SECRET_MAX
    ? `a secret is ${SECRET_MIN} to ${SECRET_MAX} characters`
    : /[\s\u0000-\u001f\u007f]/.test(secret)
    ? "a secret has no spaces or control characters"
    : undefined

/** Verbs that carry a secret: a line starting with one is treated as secret-bearing whatever follows. */
const SECRET_VERB = /^(?:login|claim|upgrade)/i
/** A verb the gate may echo back in an error: anything else could be (part of) a secret. */
const ECHOABLE_VERB = /^[a-z-]{1,20}$/

export const parseCommand = (rawLine: string): Command | ParseError => {
  const line = rawLine.replace(/\r$/, "").trim()
  // Arguments are separated by any whitespace (tabs, Unicode spaces), so no separator an
  // agent's client inserts can hide a secret from the refusal below.
  const tokens = line === "" ? [] : line.split(/\s+/)
  const secret = SECRET_VERB.test(tokens[0] ?? "")
  // One command is one line: a control character (a line break hidden in GET's `l`) could
  // make the gate and the agent's logs read different commands.
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(line)) {
    const hidden = line.split(/[\u0000-\u001f\u007f]+/).some((part) => SECRET_VERB.test(part.trim()))
    return { code: "usage", detail: "a command is one line of text without control characters", secret: secret || hidden }
  }
  // Every line gets a reply ending ok or err (17.1), an empty one too: a client that counts
  // one reply per line it sent stays in step.
  if (line === "") return { code: "usage", detail: "an empty line is no command; send help", secret: false }
  if (line.startsWith("{")) return { verb: "submit", json: line }
  if (HTTP_REQUEST_LINE.test(line)) return { code: "http_request", detail: "", secret: false }
  const verb = (tokens[0] ?? "").toLowerCase()
  const args = tokens.slice(1)
  const exactly = (n: number) => args.length === n
  // The code already says "usage": the detail is the form itself.
  const usage = (verb: string, why?: string): ParseError => ({ code: "usage", detail: why === undefined ? USAGE[verb]! : `${USAGE[verb]}: ${why}`, secret })

  switch (verb) {
    case "help":
    case "whoami":
    case "quit":
    case "checkpoint":
      return exactly(0) ? { verb } : usage(verb)
    case "entry":
    case "receipt": {
      const index = exactly(1) ? parseDecimal(args[0]!) : undefined
      return index === undefined ? usage(verb) : { verb, index }
    }
    case "name":
      return exactly(1) ? { verb, name: args[0]! } : usage(verb)
    case "key":
      return exactly(1) ? { verb, kid: args[0]! } : usage(verb)
    case "identify":
      return exactly(1) ? { verb, kid: args[0]! } : usage(verb)
    case "upgrade": {
      if (!exactly(2)) return usage(verb)
      const problem = secretProblem(args[1]!)
      return problem === undefined ? { verb, kid: args[0]!, secret: args[1]! } : { code: "secret_invalid", detail: problem, secret: true }
    }
    case "prove":
    case "sig":
      return exactly(1) ? { verb, sig: args[0]! } : usage(verb)
    case "posts":
      return args.length <= 1 ? { verb, channel: args[0] } : usage(verb)
    case "directory":
      return { verb, q: args.length === 0 ? undefined : args.join(" ") }
    case "governance":
      return args.length <= 1 ? { verb, subject: args[0] } : usage(verb)
    case "proof": {
      const index = args.length === 1 || args.length === 2 ? parseDecimal(args[0]!) : undefined
      const size = args.length === 2 ? parseDecimal(args[1]!) : undefined
      return index === undefined || (args.length === 2 && size === undefined) ? usage(verb) : { verb, index, size }
    }
    case "session":
      return { code: "session_line", detail: "", secret: false }
    case "claim": {
      if (args[1]?.toLowerCase() === "secret") {
        // A fourth word is only the proof of work (work=<created>.<nonce>, checked in session.ts).
        if (!exactly(3) && !(exactly(4) && args[3]!.startsWith("work="))) return usage(verb)
        const problem = secretProblem(args[2]!)
        return problem === undefined
          ? { verb: "claim-secret", name: args[0]!, secret: args[2]!, work: args[3] }
          : { code: "secret_invalid", detail: problem, secret: true }
      }
      return exactly(2) ? { verb, name: args[0]!, x25519: args[1]! } : usage(verb)
    }
    case "login":
      return exactly(2) ? { verb, name: args[0]!, secret: args[1]! } : usage(verb)
    case "x25519":
      return exactly(1) ? { verb, key: args[0]! } : usage(verb)
    case "grant": {
      if (args.length < 1 || args.length > 3) return usage(verb)
      let limit: number | undefined, until: string | undefined
      for (const option of args.slice(1)) {
        const [key, value] = option.split("=", 2)
        if (key === "limit" && value !== undefined && parseDecimal(value) !== undefined) limit = parseDecimal(value)
        else if (key === "until" && value !== undefined && isTime(value)) until = value
        else return usage(verb)
      }
      return { verb, sender: args[0]!, limit, until }
    }
    case "revoke": {
      const index = exactly(1) ? parseDecimal(args[0]!) : undefined
      return index === undefined ? usage(verb) : { verb, index }
    }
    case "dm":
      return args.length === 1 || args.length === 2 ? { verb, to: args[0]!, ct: args[1] } : usage(verb)
    case "inbox": {
      if (args.length === 0) return { verb, index: undefined }
      if (exactly(1) && args[0]!.startsWith("from=")) {
        const from = parseDecimal(args[0]!.slice("from=".length))
        return from === undefined ? usage(verb) : { verb, index: undefined, from }
      }
      const index = exactly(1) ? parseDecimal(args[0]!) : undefined
      return index === undefined ? usage(verb) : { verb, index }
    }
    case "capsules":
      return exactly(0) ? { verb } : usage(verb)
    case "capsule":
      return args.length === 1 || args.length === 2 ? { verb, slot: args[0]!, ct: args[1] } : usage(verb)
    case "poll": {
      if (exactly(1)) {
        const index = parseDecimal(args[0]!)
        return index === undefined ? usage(verb) : { verb, index }
      }
      // poll <channel> <closes> <question> | <option> | <option> ...
      if (args.length < 3) return usage(verb)
      const rest = line.slice(line.indexOf(args[1]!, line.indexOf(args[0]!, verb.length) + args[0]!.length) + args[1]!.length)
      const [question, ...options] = rest.split("|").map((part) => part.trim())
      // Each problem named, so the agent fixes the right part of a long line.
      if (question === undefined || question === "") return usage(verb, "the question comes before the first |")
      if (options.length < 2) return usage(verb, `a poll has 2 to 16 options, each after a |; this one has ${options.length}`)
      const empty = options.findIndex((o) => o === "")
      if (empty >= 0) return usage(verb, `option ${empty} is empty`)
      return { verb: "poll-create", channel: args[0]!, closes: args[1]!, question, options }
    }
    case "vote": {
      const index = args.length === 2 ? parseDecimal(args[0]!) : undefined
      const option = args.length === 2 ? parseDecimal(args[1]!) : undefined
      return index === undefined || option === undefined ? usage(verb) : { verb, index, option }
    }
    case "post": {
      // The text is the rest of the line after the channel, as typed (inner spacing kept).
      const text = args.length >= 2 ? line.slice(line.indexOf(args[0]!, verb.length) + args[0]!.length).replace(/^\s+/, "") : ""
      return args.length >= 2 ? { verb, channel: args[0]!, text } : usage(verb)
    }
    default:
      return {
        code: "unknown_command",
        detail: ECHOABLE_VERB.test(verb) && !secret ? `"${verb}" is no command; send help` : "that is no command; send help",
        secret
      }
  }
}

export const isParseError = (value: Command | ParseError): value is ParseError => "code" in value
