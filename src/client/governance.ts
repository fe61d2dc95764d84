// The governance views from an agent's or the owner's seat (docs/protocol.md 12.6): whether
// agent writes are frozen (and by which leaf: the index `aics admin open` names), the
// policies in force and those announced for later, and whether a key or a name is
// suspended. Each view's log-signed checkpoint note is verified, and every leaf it names as
// the current state (the freeze in force, each policy shown, the suspension's start and end)
// is read with its inclusion proof and checked: a leaf of that type, signed by the owner key
// leaf 0 names, saying what the view says. Not checked: that no later leaf changed the
// state, or an earlier one the view leaves out; `aics audit log` replays the whole log and compares these views with it.

import { decodeU64 } from "../domain/encoding.js"
import { verifyCheckpointNote } from "./checkpoint.js"
import { protocolError, refusedError, verificationError } from "./errors.js"
import { getJson } from "./http.js"
import { nameHandle } from "./nameLookup.js"
import { type EntryRead, getEntry } from "./read.js"
import type { LogClient } from "./write.js"

export interface FreezeView {
  readonly state: "open" | "frozen"
  readonly frozen_index: number | null
  readonly indices: ReadonlyArray<number>
  readonly size: number
}

export interface PolicyItem {
  readonly index: number
  readonly logged: number
  readonly kind: "change" | "card"
  readonly document_hash: string
  readonly size: number
  readonly not_before: number
  readonly order_hash: string | null
  readonly effective_at: number
}

export interface PolicyView {
  readonly change: PolicyItem | null
  readonly card: PolicyItem | null
  readonly pending: ReadonlyArray<PolicyItem>
  readonly size: number
}

export interface SuspensionView {
  readonly subject: string
  readonly suspended: boolean
  readonly index: number | null
  readonly order: string | null
  readonly until: number | null
  readonly ended_index: number | null
  readonly size: number
}

/** A view as the service answered it, with what was verified of it. */
export interface CheckedView<V> {
  readonly view: V
  /** The size of the view's log-signed checkpoint (at least the view's size). */
  readonly checkpointSize: number
  /** The leaves read with their inclusion proofs and checked against the view, ascending. */
  readonly checkedLeaves: ReadonlyArray<number>
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)
const isIndex = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0
const isIndexOrNull = (v: unknown): v is number | null => v === null || isIndex(v)
const isTextOrNull = (v: unknown): v is string | null => v === null || typeof v === "string"

const viewOf = async (client: LogClient, path: string): Promise<Record<string, unknown>> => {
  const { json } = await getJson(client.service, path)
  if (!isRecord(json)) throw protocolError(`GET ${path}: the answer is not a JSON object`)
  return json
}

/** The view's checkpoint note, verified with the log key, and its size: at least the view's (`size`). */
export const viewCheckpointSize = (client: LogClient, path: string, json: Record<string, unknown>, size: number): number => {
  const note = typeof json["checkpoint_note"] === "string" ? decodeU64(json["checkpoint_note"]) : undefined
  if (note === undefined) throw protocolError(`GET ${path}: the view lacks its checkpoint_note (U64)`)
  const checkpoint = verifyCheckpointNote(note, client.vkey, `GET ${path}: the view's checkpoint`)
  if (checkpoint.size < size) throw verificationError(`GET ${path}: the view's checkpoint (size ${checkpoint.size}) does not cover its size ${size}`)
  return checkpoint.size
}

/** The owner key leaf 0 names (read with its inclusion proof), once per client. */
const owners = new WeakMap<LogClient, Promise<string>>()
export const ownerKidOf = (client: LogClient): Promise<string> => {
  const known = owners.get(client)
  if (known !== undefined) return known
  const reading = getEntry(client, 0).then((charter) => {
    const owner = charter.envelope.payload["owner_kid"]
    if (charter.envelope.type !== "charter" || typeof owner !== "string") throw verificationError("entry 0 is not a charter naming owner_kid")
    return owner
  })
  owners.set(client, reading)
  reading.catch(() => owners.delete(client))
  return reading
}

/** Reads the leaves the view names, each checked to be the owner's and to say what `check` expects. */
const checkLeaves = async (
  client: LogClient,
  path: string,
  leaves: ReadonlyArray<{ readonly index: number; readonly check: (entry: EntryRead) => string | undefined }>
): Promise<ReadonlyArray<number>> => {
  if (leaves.length === 0) return []
  const owner = await ownerKidOf(client)
  for (const { index, check } of leaves) {
    const entry = await getEntry(client, index)
    if (entry.envelope.kid !== owner) throw verificationError(`GET ${path}: entry ${index} is not signed by the owner key ${owner}`)
    const problem = check(entry)
    if (problem !== undefined) throw verificationError(`GET ${path}: entry ${index} ${problem}`)
  }
  return [...new Set(leaves.map((l) => l.index))].sort((a, b) => a - b)
}

/** GET /v2/governance/freeze, the freeze leaf in force checked. */
export const readFreeze = async (client: LogClient): Promise<CheckedView<FreezeView>> => {
  const path = "/v2/governance/freeze"
  const json = await viewOf(client, path)
  const { state, frozen_index, indices, size } = json
  if ((state !== "open" && state !== "frozen") || !isIndexOrNull(frozen_index) || !Array.isArray(indices) || !indices.every(isIndex) || !isIndex(size)) {
    throw protocolError(`GET ${path}: not a freeze view {state, frozen_index, indices, size}`)
  }
  if ((state === "frozen") !== (frozen_index !== null) || (frozen_index !== null && !indices.includes(frozen_index))) {
    throw protocolError(`GET ${path}: state ${state} with frozen_index ${String(frozen_index)} does not hold together`)
  }
  const view: FreezeView = { state, frozen_index, indices, size }
  const checkpointSize = viewCheckpointSize(client, path, json, size)
  const checkedLeaves = await checkLeaves(client, path, frozen_index === null ? [] : [{
    index: frozen_index,
    check: (e) => (e.envelope.type === "freeze" && e.envelope.payload["state"] === "frozen" ? undefined : "is not a freeze {state: \"frozen\"}")
  }])
  return { view, checkpointSize, checkedLeaves }
}

const policyItem = (path: string, v: unknown): PolicyItem => {
  if (
    !isRecord(v) || !isIndex(v["index"]) || !isIndex(v["logged"]) || (v["kind"] !== "change" && v["kind"] !== "card") ||
    typeof v["document_hash"] !== "string" || !isIndex(v["size"]) || !isIndex(v["not_before"]) || !isTextOrNull(v["order_hash"]) ||
    !isIndex(v["effective_at"])
  ) {
    throw protocolError(`GET ${path}: not a policy {index, logged, kind, document_hash, size, not_before, order_hash, effective_at}`)
  }
  return v as unknown as PolicyItem
}

/** Whether the policy leaf says what the view's item says, its effective time included (policyTiming.ts). */
const policyProblem = (item: PolicyItem) => (e: EntryRead): string | undefined => {
  const p = e.envelope.payload
  const orderHash = p["order_hash"] ?? null
  const notBefore = p["not_before"]
  if (e.envelope.type !== "policy" || p["kind"] !== item.kind || p["document_hash"] !== item.document_hash || p["size"] !== item.size || notBefore !== item.not_before || orderHash !== item.order_hash) {
    return `is not the policy the view shows (${item.kind}, document ${item.document_hash})`
  }
  if (e.logged !== item.logged) return `was logged at ${e.logged}, not ${item.logged}`
  const effective = orderHash === null ? item.not_before * 1000 : Math.max(item.not_before * 1000, e.logged)
  return effective === item.effective_at ? undefined : `takes effect at ${effective}, not ${item.effective_at}`
}

/** GET /v2/governance/policy, every policy shown checked against its leaf. */
export const readPolicy = async (client: LogClient): Promise<CheckedView<PolicyView>> => {
  const path = "/v2/governance/policy"
  const json = await viewOf(client, path)
  if (!Array.isArray(json["pending"]) || !isIndex(json["size"])) throw protocolError(`GET ${path}: not a policy view {change, card, pending, size}`)
  const view: PolicyView = {
    change: json["change"] === null ? null : policyItem(path, json["change"]),
    card: json["card"] === null ? null : policyItem(path, json["card"]),
    pending: json["pending"].map((p) => policyItem(path, p)),
    size: json["size"]
  }
  if (view.change?.kind === "card" || view.card?.kind === "change") throw protocolError(`GET ${path}: a policy of one kind shown as the other's`)
  const shown = [view.change, view.card, ...view.pending].filter((p): p is PolicyItem => p !== null)
  const checkpointSize = viewCheckpointSize(client, path, json, view.size)
  const checkedLeaves = await checkLeaves(client, path, shown.map((item) => ({ index: item.index, check: policyProblem(item) })))
  return { view, checkpointSize, checkedLeaves }
}

/** GET /v2/governance/suspensions/{subject}: a did:key, a name, @name or @name.<instance domain>; its leaves checked. */
export const readSuspension = async (client: LogClient, subject: string): Promise<CheckedView<SuspensionView>> => {
  const path = `/v2/governance/suspensions/${encodeURIComponent(subject)}`
  const json = await viewOf(client, path)
  const { subject: named, suspended, index, order, until, ended_index, size } = json
  if (
    typeof named !== "string" || typeof suspended !== "boolean" || !isIndexOrNull(index) || !isTextOrNull(order) ||
    !isIndexOrNull(until) || !isIndexOrNull(ended_index) || !isIndex(size)
  ) {
    throw protocolError(`GET ${path}: not a suspension view {subject, suspended, index, order, until, ended_index, size}`)
  }
  if ((index === null && (suspended || order !== null || ended_index !== null)) || (ended_index !== null && (suspended || index === null || ended_index <= index))) {
    throw protocolError(`GET ${path}: the view does not hold together (suspended ${suspended}, index ${String(index)}, ended_index ${String(ended_index)})`)
  }
  // A key is its own subject; a name may be asked as @name or @name.<domain>, and the view names its name_norm.
  const asked = subject.startsWith("did:key:") ? subject : nameHandle(subject).norm
  if (named !== asked) throw verificationError(`GET ${path}: the view is of ${named}, not the ${subject.startsWith("did:key:") ? "key" : "name"} asked for (${asked})`)
  const view: SuspensionView = { subject: named, suspended, index, order, until, ended_index, size }
  const checkpointSize = viewCheckpointSize(client, path, json, size)
  const leaves: Array<{ index: number; check: (e: EntryRead) => string | undefined }> = []
  if (index !== null) {
    leaves.push({
      index,
      check: (e) => e.envelope.type === "suspension" && e.envelope.payload["subject"] === named && e.envelope.payload["order"] === order &&
          (e.envelope.payload["until"] ?? null) === until
        ? undefined
        : `is not the suspension of ${named} the view shows (order ${String(order)}, until ${String(until)})`
    })
  }
  if (ended_index !== null) {
    leaves.push({
      index: ended_index,
      check: (e) => e.envelope.type === "suspension" && e.envelope.payload["subject"] === named && e.envelope.payload["order"] === undefined
        ? undefined
        : `is not an end of the suspension of ${named}`
    })
  }
  return { view, checkpointSize, checkedLeaves: await checkLeaves(client, path, leaves) }
}

/**
 * The freeze leaf in force, checked (readFreeze): the `resume` an open must name, for
 * `aics admin open` without an index. While the log is open it would refuse the open
 * (`not_frozen`), so nothing is sent.
 */
export const freezeInForce = async (client: LogClient): Promise<number> => {
  const { view } = await readFreeze(client)
  if (view.frozen_index === null) {
    throw refusedError("no freeze is in force: agent writes are open, there is nothing to reopen (GET /v2/governance/freeze)", { code: "not_frozen", status: 409 })
  }
  return view.frozen_index
}

/** The freeze, the policies and, given a subject, its suspension, each checked; and every leaf checked, ascending. */
export const readGovernance = async (client: LogClient, subject: string | undefined) => {
  const [freeze, policy, suspension] = await Promise.all([
    readFreeze(client),
    readPolicy(client),
    subject === undefined ? undefined : readSuspension(client, subject)
  ])
  const checkedLeaves = [...new Set([freeze, policy, ...(suspension === undefined ? [] : [suspension])].flatMap((c) => c.checkedLeaves))].sort((a, b) => a - b)
  return { freeze, policy, suspension, checkedLeaves }
}
