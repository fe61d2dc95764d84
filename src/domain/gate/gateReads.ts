// What the text gate reads of the log's state (issue 12, "The domain stays pure"): the rows a
// slice (domain/write/stateSlice.ts) must hold for `step` (session.ts) to answer a line
// exactly as on the whole state, so the app loads only those (app/StateReader.ts sliceFor:
// asked again with what was found, as a key's name is read after its binding). The session
// key's chain head, binding and name are read by every write it prepares; the rest is what
// each verb names. The resident parts (the service's keys) are whole in every slice.
//
// One list is read too: a dm's governing grant walks the recipient's grants newest first
// (messaging/grants.ts governingGrant). `gateGrantsRead` says whose, and the app puts their
// newest part, as far as the grant naming the sender (or all of them), into the slice.

import * as Chunk from "effect/Chunk"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import type { BodyEntry } from "../bodyStatus.js"
import { entryRuleOf } from "../entries/registry.js"
import { voteKey } from "../forum/polls.js"
import { isDidKey } from "../identity/didKey.js"
import { currentNameOf } from "../identity/bindings.js"
import { normalizeName } from "../identity/names.js"
import type { GrantRecord, LogState } from "../write/logState.js"
import type { RowKey } from "../write/stateReads.js"
import { recipientOf } from "./agentVerbs.js"
import { type Command, isParseError, parseCommand } from "./command.js"
import type { GateSession } from "./session.js"

const row = (area: RowKey["area"], key: string | number): RowKey => ({ area, key: String(key) })

/** A did:key's binding and then its name, or a name's record: what recipientOf reads. */
const recipientReads = (slice: LogState, to: string): ReadonlyArray<RowKey> => {
  if (!isDidKey(to)) return [row("names", normalizeName(to))]
  const name = currentNameOf(slice, to)
  return [row("keyNames", to), ...(name === undefined ? [] : [row("names", name)])]
}

/** The rows the verb itself names. */
const commandReads = (slice: LogState, command: Command, session: GateSession): ReadonlyArray<RowKey> => {
  switch (command.verb) {
    case "prove":
      // Its expect line offers claim only to a key that acts for no name yet.
      return session.challenge === null ? [] : [row("keyNames", session.challenge.kid)]
    case "claim":
    case "claim-secret":
      return [row("names", command.name)]
    case "grant":
      return command.sender === "*" ? [] : recipientReads(slice, command.sender)
    case "dm":
      return recipientReads(slice, command.to)
    case "revoke":
      return [row("grants", command.index)]
    case "capsule":
      return [row("capsules", command.slot)]
    case "vote":
      // voteRefusal: the poll, and this key's earlier vote in it.
      return session.identity?.tier === "key" ? [row("polls", command.index), row("votes", voteKey(command.index, session.identity.kid))] : [row("polls", command.index)]
    default:
      return []
  }
}

/** Every row `step` reads for this line in this session, given what the slice holds so far. */
export const gateReads = (session: GateSession, line: string) => (slice: LogState): ReadonlyArray<RowKey> => {
  const command = parseCommand(line)
  if (isParseError(command)) return []
  const identity = session.identity
  const own: Array<RowKey> = []
  if (identity?.tier === "key") {
    const name = currentNameOf(slice, identity.kid)
    own.push(row("chains", identity.kid), row("keyNames", identity.kid), ...(name === undefined ? [] : [row("names", name)]))
  } else if (identity?.tier === "secret") {
    own.push(row("names", identity.name))
  }
  return [...own, ...commandReads(slice, command, session)]
}

/**
 * For a dm line of a key identity whose recipient is claimed: the recipient's key, whose
 * grants the governing grant is searched among, and the sender it governs.
 */
export const gateGrantsRead = (session: GateSession, line: string, slice: LogState): { readonly recipient: string; readonly sender: string } | undefined => {
  if (session.identity?.tier !== "key") return undefined
  const command = parseCommand(line)
  if (isParseError(command) || command.verb !== "dm") return undefined
  const record = recipientOf(slice, command.to)
  return record === undefined ? undefined : { recipient: record.kid, sender: session.identity.kid }
}

/**
 * The slice with the recipient's grants read newest first as far as the governing search
 * went (app/messagingViews.ts governingGrantsFrom): their rows, and that newest part of
 * the recipient's list of grants, which is all governingGrant walks.
 */
export const withRecipientGrants = (slice: LogState, recipient: string, newestFirst: ReadonlyArray<GrantRecord>): LogState => {
  let grants = slice.grants
  for (const grant of newestFirst) grants = HashMap.set(grants, grant.index, grant)
  const indexes = Chunk.reverse(Chunk.fromIterable(newestFirst.map((grant) => grant.index)))
  return { ...slice, grants, grantsBySigner: HashMap.set(slice.grantsBySigner, recipient, indexes) }
}

/** The rows the gate's `posts` read shows of each post (views/agoraPosts.ts postItem): its metadata and body hash, then its author's key. */
export const postItemsReads = (indexes: ReadonlyArray<number>) => (slice: LogState): ReadonlyArray<RowKey> =>
  indexes.flatMap((index) => {
    const author = Option.getOrUndefined(HashMap.get(slice.forum.postMeta, index))?.author
    return [row("postMeta", index), row("bodies", index), ...(author === undefined ? [] : [row("keys", author)])]
  })

/**
 * The text body a leaf names (a post's, a poll's question, a task's, a policy or charter
 * document), for `entry`: its hash and what its status reads (bodyStatus.ts), or undefined
 * for a leaf without one. The leaf is JCS({envelope, index, logged}) as the log stores it.
 */
export const leafTextBody = (leaf: string): { readonly hash: string; readonly entry: BodyEntry } | undefined => {
  let parsed: { envelope?: { type?: unknown; payload?: Record<string, unknown> }; index?: unknown; logged?: unknown }
  try {
    parsed = JSON.parse(leaf) as typeof parsed
  } catch {
    return undefined
  }
  const type = parsed.envelope?.type
  const rule = typeof type === "string" ? entryRuleOf(type) : undefined
  if (rule === undefined || rule.body.kind !== "text") return undefined
  const hash = parsed.envelope?.payload?.[rule.body.hashMember]
  const { index, logged } = parsed
  return typeof hash === "string" && typeof index === "number" && typeof logged === "number" ? { hash, entry: { index, type: type as string, logged } } : undefined
}
