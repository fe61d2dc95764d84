// The text gate's part of the owner statistics (docs/spec/service.md "Owner statistics": `lists`
// names `gate_events`; docs/protocol.md 12.4). Each event is reduced to three words, its
// UTC day, the transport it came over and what it was, and only the count of each
// combination is kept: a session started, a command line by its verb (never its
// arguments: no name, key, secret or text), a line that is no command, and a reply that
// ended in `err`. So the owner sees how the gate is used and over which door, and nothing
// of who used it.

import { isParseError, parseCommand } from "../gate/command.js"
import type { Transport } from "../gate/session.js"

/** The doors of the gate: GET /t, POST /t (HTTP or HTTPS), TCP plaintext, TCP TLS. */
export const GATE_TRANSPORTS = ["http_get", "http_post", "tcp_plain", "tcp_tls"] as const
export type GateTransport = typeof GATE_TRANSPORTS[number]

/** The verbs of the command language (command.ts), `claim ... secret` apart from a key's claim. */
const VERBS = [
  "help", "whoami", "quit", "checkpoint", "entry", "receipt", "proof", "name", "key", "posts", "directory", "governance",
  "identify", "prove", "claim", "claim_secret", "sig", "submit", "login", "upgrade", "post",
  "x25519", "grant", "revoke", "dm", "inbox", "capsules", "capsule", "poll", "poll_create", "vote"
] as const

/**
 * Every event counted: `session` a session started (its reply's first line `session <id>`),
 * one per command line by its verb, `invalid` a line that is no command (unknown, malformed,
 * too long), `refused` a line or request answered `err` (invalid ones included).
 */
export const GATE_EVENTS = ["session", ...VERBS, "invalid", "refused"] as const
export type GateEvent = typeof GATE_EVENTS[number]

export const gateTransportOf = (transport: Transport): GateTransport =>
  transport.method === "GET" ? "http_get" : transport.method === "POST" ? "http_post" : transport.tls ? "tcp_tls" : "tcp_plain"

/** What a line is, in one word of GATE_EVENTS: its verb, or `invalid`. */
export const gateLineEvent = (line: string): GateEvent => {
  const command = parseCommand(line)
  if (isParseError(command)) return "invalid"
  return command.verb === "claim-secret" ? "claim_secret" : command.verb === "poll-create" ? "poll_create" : command.verb
}

/** The counter a gate event adds one to: `<day> gate <transport> <event>` (a request's key has five words). */
export const gateCountKey = (day: string, transport: GateTransport, event: GateEvent): string => `${day} gate ${transport} ${event}`

/** Whether a counter is a gate event's (the second word of a request's key is an access class, never `gate`). */
export const isGateKey = (key: string): boolean => key.startsWith(" gate ", 10)

const zeros = (names: ReadonlyArray<string>): Record<string, number> => Object.fromEntries(names.map((n) => [n, 0]))

/**
 * The `gate` member of the document over the window's days (oldest first): per day the count
 * of each event, and over the window each event's count in total and per transport. Every
 * event and transport appears, with 0.
 */
export const gateStats = (counters: Iterable<readonly [string, number]>, window: ReadonlyArray<string>) => {
  const daily = new Map(window.map((day) => [day, zeros(GATE_EVENTS)]))
  const byEvent = zeros(GATE_EVENTS)
  const byTransport: Record<string, Record<string, number>> = Object.fromEntries(GATE_TRANSPORTS.map((t) => [t, zeros(GATE_EVENTS)]))
  for (const [key, n] of counters) {
    if (!isGateKey(key)) continue
    const [day, , transport, event] = key.split(" ") as [string, string, string, string]
    const counts = daily.get(day)
    if (counts === undefined) continue
    counts[event] = (counts[event] ?? 0) + n
    byEvent[event] = (byEvent[event] ?? 0) + n
    const row = byTransport[transport] ?? (byTransport[transport] = zeros(GATE_EVENTS))
    row[event] = (row[event] ?? 0) + n
  }
  return {
    daily: window.map((day) => ({ day, by_event: daily.get(day)! })),
    totals: { by_event: byEvent, by_transport: byTransport }
  }
}
