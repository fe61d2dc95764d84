// Resolving a name to its current keys: GET /v2/names/{name} (the name view), then the two
// leaves the view says set them, each fetched with its inclusion proof (read.ts) under the
// view's own log-signed checkpoint: the leaf at `kid_index` must establish `kid` for the
// name (a claim by it, or a key.rotate to it), the leaf at `x25519_index` must set that X25519
// key for it. The view's checkpoint must be consistent with the latest one. The view is a
// projection, not an authority (docs/spec/service.md "Projections"): a DM is only ever
// encrypted to a key a verified leaf of the log binds to the name. What no leaf can show is
// that a later one changed the keys (a view served stale): only a fold does (audit.ts).
//
// readNameView is the ONE place that knows the view's member names; adapt it there.

import { Option, Schema } from "effect"
import { decodeB64, decodeU64 } from "../domain/encoding.js"
import { ClaimPayload } from "../domain/entries/types/claim.js"
import { KeyRotatePayload } from "../domain/entries/types/keyRotate.js"
import type { Envelope } from "../domain/envelope/envelope.js"
import type { Checkpoint } from "../domain/note/checkpoint.js"
import { verifyInclusion } from "../domain/tlog/inclusion.js"
import { fetchCheckpoint, verifyCheckpointNote } from "./checkpoint.js"
import { hasher } from "./crypto.js"
import { protocolError, usageError, verificationError } from "./errors.js"
import { getJson } from "./http.js"
import { checkedName } from "./payloads.js"
import { getEntry, type EntryRead } from "./read.js"
import { checkConsistency } from "./witnesses.js"
import type { LogClient } from "./write.js"

/** What the client needs from a name view. */
export interface NameView {
  readonly name: string
  /** did:key of the key that currently acts for the name. */
  readonly kid: string
  /** The leaf that bound it (a claim or a key.rotate), when the view says. */
  readonly kidIndex: number | undefined
  /** U64 of the current X25519 key, and the leaf that set it. */
  readonly x25519: string
  readonly x25519Index: number
  /**
   * The smallest log size covering the view's leaves, and U64 of a signed checkpoint of a
   * size at least that (the service adds it), when given.
   */
  readonly size: number | undefined
  readonly checkpointNote: string | undefined
  /**
   * The recovery key the claim named and the claim's leaf, and whether it still stands
   * (docs/protocol.md 10.1: false once it took a name of its own, at `boundIndex`); null for
   * a name without one, undefined when the view does not say. `stands` is undefined from a
   * service that does not say it.
   */
  readonly recovery: RecoveryKey | null | undefined
}

/** A name's recovery key as its view tells it. */
export interface RecoveryKey {
  readonly kid: string
  readonly index: number | undefined
  readonly stands: boolean | undefined
  readonly boundIndex: number | undefined
}

/** The recovery key in the view's own members, for a JSON answer (none when the view did not say). */
export const recoveryMembers = (recovery: RecoveryKey | null | undefined): Record<string, unknown> =>
  recovery === undefined ? {} : {
    recovery: recovery?.kid ?? null,
    recovery_index: recovery?.index ?? null,
    recovery_stands: recovery === null ? null : recovery.stands ?? null,
    recovery_bound_index: recovery?.boundIndex ?? null
  }

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined)

/** The view's members the client uses, or a protocol error naming what is missing. */
export const readNameView = (json: unknown, name: string): NameView => {
  if (!isRecord(json)) throw protocolError(`GET /v2/names/${name}: the answer is not a JSON object`)
  const keys = isRecord(json["keys"]) ? json["keys"] : {}
  const x = json["x25519"]
  const kid = str(json["kid"]) ?? str(json["current_kid"]) ?? str(keys["kid"]) ?? str(keys["ed25519"])
  const x25519 = str(x) ?? (isRecord(x) ? str(x["key"]) ?? str(x["x25519"]) : undefined) ?? str(keys["x25519"])
  const kidIndex = json["kid_index"] ?? keys["kid_index"]
  const x25519Index = json["x25519_index"] ?? (isRecord(x) ? x["index"] : undefined) ?? keys["x25519_index"]
  if (kid === undefined || x25519 === undefined || !isCount(x25519Index)) {
    throw protocolError(`GET /v2/names/${name}: the view lacks the current kid, x25519 key or x25519 leaf index`)
  }
  const recovery = json["recovery"]
  return {
    name: str(json["name"]) ?? name,
    kid,
    kidIndex: isCount(kidIndex) ? kidIndex : undefined,
    x25519,
    x25519Index,
    size: isCount(json["size"]) ? json["size"] : undefined,
    checkpointNote: str(json["checkpoint_note"]),
    recovery: recovery === null ? null : typeof recovery !== "string" ? undefined : {
      kid: recovery,
      index: isCount(json["recovery_index"]) ? json["recovery_index"] : undefined,
      stands: typeof json["recovery_stands"] === "boolean" ? json["recovery_stands"] : undefined,
      boundIndex: isCount(json["recovery_bound_index"]) ? json["recovery_bound_index"] : undefined
    }
  }
}

/**
 * A name as given, the name_norm, "@name" or "@name.<instance_domain>" (docs/protocol.md:
 * a name path accepts the three): its name_norm, and the path segment to ask the service
 * for it. The instance domain is the service's to check (leaf 0's): a handle of another
 * instance is its 422 name_invalid.
 */
export const nameHandle = (given: string): { readonly norm: string; readonly segment: string } => {
  const dot = given.indexOf(".")
  if (given.startsWith("@") && dot > 1) {
    const domain = given.slice(dot + 1).toLowerCase()
    if (domain === "" || !/^[a-z0-9.-]+(:\d+)?$/.test(domain)) throw usageError(`${JSON.stringify(given)} is not a handle: @name or @name.<instance domain>`)
    const norm = checkedName(given.slice(0, dot))
    return { norm, segment: `@${norm}.${domain}` }
  }
  const norm = checkedName(given)
  return { norm, segment: norm }
}

/** The name view as the service answers it (raw JSON) with what the client reads of it. */
export const fetchNameView = async (client: LogClient, name: string): Promise<{ json: unknown; view: NameView }> => {
  const { norm, segment } = nameHandle(name)
  const { json } = await getJson(client.service, `/v2/names/${encodeURIComponent(segment)}`)
  const view = readNameView(json, norm)
  if (view.name !== norm) throw verificationError(`asked for the name ${norm}, the view is of ${view.name}`)
  return { json, view }
}

/** The view's checkpoint, verified with the log key, when the view carries one. */
export const viewCheckpoint = (client: LogClient, view: NameView): Checkpoint | undefined => {
  if (view.checkpointNote === undefined) return undefined
  const note = decodeU64(view.checkpointNote)
  if (note === undefined) throw protocolError(`the name view of ${view.name}: checkpoint_note is not U64`)
  const checkpoint = verifyCheckpointNote(note, client.vkey, `the name view's checkpoint of ${view.name}`)
  if (view.size !== undefined && checkpoint.size < view.size) {
    throw verificationError(`the name view of ${view.name} covers size ${view.size}, its checkpoint only ${checkpoint.size}`)
  }
  return checkpoint
}

/** A name's current keys, each checked against the leaf the view says set it. */
export interface ResolvedName {
  readonly name: string
  readonly kid: string
  /** The leaf that established `kid` for the name: a claim by it, or a key.rotate (a rotation or a recovery) to it. */
  readonly kidIndex: number
  readonly kidLeafType: "claim" | "key.rotate"
  /** The X25519 public key (32 bytes) and its U64 form. */
  readonly x25519: Uint8Array
  readonly x25519U64: string
  readonly x25519Index: number
  /** The recovery key as the view says it (not checked against a leaf): see NameView. */
  readonly recovery: RecoveryKey | null | undefined
  /**
   * The log-signed checkpoint both leaves were proved included under: the view's own
   * (`checkpoint_note`), or the latest when the view carried none (`fromView` false).
   */
  readonly checkpoint: { readonly size: number; readonly fromView: boolean }
  /** The size of the latest checkpoint fetched (/checkpoint), which the view's is consistent with. */
  readonly latestSize: number
}

/**
 * The name and the key a leaf establishes for it, read with the log's own payload schemas
 * (domain/entries/types): a claim binds the key that signed it (claim.ts), a key.rotate,
 * whether signed by the name's key or its recovery key, binds `new_kid` (keyRotate.ts).
 * Undefined for any other leaf.
 */
export const keyEstablishedBy = (envelope: Envelope): { readonly name: string; readonly kid: string; readonly type: "claim" | "key.rotate" } | undefined => {
  if (envelope.type === "claim") {
    const payload = Schema.decodeUnknownOption(ClaimPayload)(envelope.payload)
    return Option.isSome(payload) ? { name: payload.value.name, kid: envelope.kid, type: "claim" } : undefined
  }
  if (envelope.type === "key.rotate") {
    const payload = Schema.decodeUnknownOption(KeyRotatePayload)(envelope.payload)
    return Option.isSome(payload) ? { name: payload.value.name, kid: payload.value.new_kid, type: "key.rotate" } : undefined
  }
  return undefined
}

/**
 * Leaf `index` as getEntry reads it (signature, canonical bytes, inclusion under the
 * bundle's checkpoint), and included under `anchor` too, by the log's inclusion proof at
 * that size (docs/protocol.md 4), checked against the anchor's signed root.
 */
const entryUnder = async (client: LogClient, index: number, anchor: Checkpoint, what: string): Promise<EntryRead> => {
  if (index >= anchor.size) throw verificationError(`${what} is leaf ${index}, past the checkpoint of size ${anchor.size} it is checked under`)
  const entry = await getEntry(client, index)
  const { json } = await getJson(client.service, `/v2/tlog/inclusion?index=${index}&size=${anchor.size}`)
  const hashes = isRecord(json) && Array.isArray(json["hashes"]) ? json["hashes"] : undefined
  const proof = hashes?.map((h) => (typeof h === "string" ? decodeB64(h) : undefined))
  if (proof === undefined || proof.some((h) => h === undefined)) throw protocolError(`GET /v2/tlog/inclusion: the proof of leaf ${index} is not a list of B64 hashes`)
  if (!verifyInclusion(hasher, index, anchor.size, decodeU64(entry.leafHash)!, proof as Array<Uint8Array>, anchor.rootHash)) {
    throw verificationError(`${what}, leaf ${index}, is not included under the checkpoint of size ${anchor.size} by the proof given`)
  }
  return entry
}

/**
 * The view's checkpoint against the latest one (/checkpoint, cosigned by a quorum when the
 * client names witnesses): the older must be a prefix of the newer by a verified
 * consistency proof. With witnesses the latest must cover the view's (as
 * requireWitnessedCover). Answers the latest.
 */
const latestConsistentWith = async (client: LogClient, view: NameView, atView: Checkpoint | undefined): Promise<Checkpoint> => {
  const latest = await fetchCheckpoint(client.service, client.vkey, client.witnesses)
  if (atView === undefined) return latest
  const what = `the name view's checkpoint of ${view.name} (size ${atView.size})`
  if (atView.size > latest.size && client.witnesses !== undefined) {
    throw verificationError(`${what} is past the witnessed checkpoint of size ${latest.size}`)
  }
  const [older, newer] = atView.size <= latest.size ? [atView, latest] : [latest, atView]
  if (!(await checkConsistency(client.service, older, newer))) {
    throw verificationError(`${what} and the latest checkpoint (size ${latest.size}) are not one history: no consistency proof joins them`)
  }
  return latest
}

/**
 * Looks the name up and checks what its view says against the log: the leaf at `kid_index`
 * establishes `kid` for this name, the leaf at `x25519_index` sets that X25519 key for it,
 * both signed and included (inclusion proofs) under the view's signed checkpoint, which
 * must be consistent with the latest checkpoint. What this cannot show: that no later leaf
 * rotated the key or set another X25519 key (a stale view, with its own older checkpoint or
 * a newer one): only a fold of the log does (`aics audit name`, audit.ts laterKeyEvents).
 */
export const lookupName = async (client: LogClient, name: string): Promise<ResolvedName> => {
  const { view } = await fetchNameView(client, name)
  const atView = viewCheckpoint(client, view)
  const latest = await latestConsistentWith(client, view, atView)
  const anchor = atView ?? latest
  const x25519 = decodeU64(view.x25519)
  if (x25519 === undefined || x25519.length !== 32) throw verificationError(`the name view of ${view.name}: x25519 is not U64 of 32 bytes`)
  if (view.kidIndex === undefined) throw protocolError(`GET /v2/names/${view.name}: the view lacks kid_index, the leaf that set its key`)
  const kidIndex = view.kidIndex

  const keyWhere = `the leaf the view of ${view.name} says set its key ${view.kid}`
  const keyLeaf = await entryUnder(client, kidIndex, anchor, keyWhere)
  const established = keyEstablishedBy(keyLeaf.envelope)
  if (established === undefined) {
    throw verificationError(`${keyWhere}, entry ${kidIndex}, is a ${keyLeaf.envelope.type}, not a claim or a key.rotate`)
  }
  if (established.name !== view.name) throw verificationError(`${keyWhere}, entry ${kidIndex}, is about the name ${established.name}`)
  if (established.kid !== view.kid) {
    throw verificationError(`${keyWhere}, entry ${kidIndex}, is a ${established.type} that binds ${established.kid} to ${view.name}, not ${view.kid}`)
  }

  const x25519Leaf = view.x25519Index === kidIndex ? keyLeaf : await entryUnder(client, view.x25519Index, anchor, `the leaf the view of ${view.name} says set its X25519 key`)
  const { envelope } = x25519Leaf
  const where = `entry ${view.x25519Index}, which the view of ${view.name} says set its X25519 key`
  if (!X25519_SETTERS.has(envelope.type)) throw verificationError(`${where}, is a ${envelope.type}, not a claim or key.x25519`)
  if (envelope.payload["name"] !== view.name) throw verificationError(`${where}, is about the name ${String(envelope.payload["name"])}`)
  if (envelope.payload["x25519"] !== view.x25519) throw verificationError(`${where}, carries another X25519 key`)
  // A claim binds the key that signed it. A key.x25519 after the current key's leaf is that
  // key's (only the name's current key sets one, keyX25519.ts); one before it was an earlier
  // key's, whose standing then only a fold of the log shows.
  if (envelope.type !== "claim" && view.x25519Index > kidIndex && envelope.kid !== view.kid) {
    throw verificationError(`${where}, is signed by ${envelope.kid}, not by the name's key ${view.kid} (set at entry ${kidIndex})`)
  }
  return {
    name: view.name,
    kid: view.kid,
    kidIndex,
    kidLeafType: established.type,
    x25519,
    x25519U64: view.x25519,
    x25519Index: view.x25519Index,
    recovery: view.recovery,
    checkpoint: { size: anchor.size, fromView: atView !== undefined },
    latestSize: latest.size
  }
}

const X25519_SETTERS: ReadonlySet<string> = new Set(["claim", "key.x25519"])

const leaves = (n: number) => `${n} lea${n === 1 ? "f" : "ves"}`

/**
 * What lookupName checked, in one sentence (`aics name` and the MCP lookup_name tool say
 * it): the leaves, the checkpoint they are included under and how it stands to the latest.
 */
export const lookupChecked = (r: ResolvedName): string => {
  const at = r.kidIndex === r.x25519Index ? `leaf ${r.kidIndex}` : `leaves ${r.kidIndex} and ${r.x25519Index}`
  const under = r.checkpoint.fromView
    ? `the name view's log-signed checkpoint of size ${r.checkpoint.size}`
    : `the latest checkpoint of size ${r.checkpoint.size} (the view carried no checkpoint)`
  const behind = r.latestSize - r.checkpoint.size
  const latest = !r.checkpoint.fromView ? ""
    : behind === 0 ? ", which is the latest checkpoint"
    : behind > 0 ? `, ${leaves(behind)} behind the latest checkpoint (size ${r.latestSize}) and consistent with it`
    : `, ${leaves(-behind)} past the latest checkpoint served (size ${r.latestSize}) and consistent with it`
  return `checked: ${at} signed, included under ${under}${latest}, and binding this key and X25519 key to ${r.name}`
}

/** What lookupName cannot check, in one sentence: a later leaf that changed the keys; `audit` names what folds the log. */
export const lookupNotChecked = (r: ResolvedName, audit = `aics audit name ${r.name}`): string =>
  `not checked: a later rotation (after leaf ${r.kidIndex}) or X25519 key (after leaf ${r.x25519Index}) would show only in a fold of the whole log (${audit})`

/** A looked-up name as `aics name --json` prints it and the MCP lookup_name tool answers it. */
export const resolvedNameJson = (r: ResolvedName) => ({
  name: r.name,
  kid: r.kid,
  kid_index: r.kidIndex,
  kid_set_by: r.kidLeafType,
  x25519: r.x25519U64,
  x25519_index: r.x25519Index,
  checkpoint_size: r.checkpoint.size,
  checkpoint_from_view: r.checkpoint.fromView,
  latest_checkpoint_size: r.latestSize,
  ...recoveryMembers(r.recovery)
})
