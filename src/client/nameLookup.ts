// Resolving a name to its current keys: GET /v2/names/{name} (the name view), then the leaf
// the view says set the X25519 key, fetched with its inclusion proof (read.ts) and checked to
// carry exactly that key for that name, signed by the name's key (or the name's claim). The
// view is a projection, not an authority (docs/spec/service.md "Projections"): a DM is only ever
// encrypted to a key a verified leaf of the log binds to the name.
//
// readNameView is the ONE place that knows the view's member names; adapt it there.

import { requireWitnessedCover } from "./witnesses.js"
import { decodeU64 } from "../domain/encoding.js"
import type { Checkpoint } from "../domain/note/checkpoint.js"
import { verifyCheckpointNote } from "./checkpoint.js"
import { protocolError, usageError, verificationError } from "./errors.js"
import { getJson } from "./http.js"
import { checkedName } from "./payloads.js"
import { getEntry } from "./read.js"
import type { LogClient } from "./write.js"

/** What the client needs from a name view. */
export interface NameView {
  readonly name: string
  /** did:key of the key that currently acts for the name. */
  readonly kid: string
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
  const x25519Index = json["x25519_index"] ?? (isRecord(x) ? x["index"] : undefined) ?? keys["x25519_index"]
  if (kid === undefined || x25519 === undefined || !isCount(x25519Index)) {
    throw protocolError(`GET /v2/names/${name}: the view lacks the current kid, x25519 key or x25519 leaf index`)
  }
  const recovery = json["recovery"]
  return {
    name: str(json["name"]) ?? name,
    kid,
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

/** A name's current keys, the X25519 key checked against the leaf that set it. */
export interface ResolvedName {
  readonly name: string
  readonly kid: string
  /** The X25519 public key (32 bytes) and its U64 form. */
  readonly x25519: Uint8Array
  readonly x25519U64: string
  readonly x25519Index: number
  /** The recovery key as the view says it (not checked against a leaf): see NameView. */
  readonly recovery: RecoveryKey | null | undefined
}

const X25519_SETTERS: ReadonlySet<string> = new Set(["claim", "key.x25519"])

/** Looks the name up and verifies its X25519 key against its leaf (inclusion proof included). */
export const lookupName = async (client: LogClient, name: string): Promise<ResolvedName> => {
  const { view } = await fetchNameView(client, name)
  const atView = viewCheckpoint(client, view)
  if (atView !== undefined && client.witnesses !== undefined) {
    await requireWitnessedCover(client.service, client.vkey, client.witnesses, atView, (note) => verifyCheckpointNote(note, client.vkey, "the checkpoint"))
  }
  const x25519 = decodeU64(view.x25519)
  if (x25519 === undefined || x25519.length !== 32) throw verificationError(`the name view of ${view.name}: x25519 is not U64 of 32 bytes`)
  const leaf = await getEntry(client, view.x25519Index)
  const { envelope } = leaf
  const where = `entry ${view.x25519Index}, which the view of ${view.name} says set its X25519 key`
  if (!X25519_SETTERS.has(envelope.type)) throw verificationError(`${where}, is a ${envelope.type}, not a claim or key.x25519`)
  if (envelope.payload["name"] !== view.name) throw verificationError(`${where}, is about the name ${String(envelope.payload["name"])}`)
  if (envelope.payload["x25519"] !== view.x25519) throw verificationError(`${where}, carries another X25519 key`)
  // A claim binds the key that signed it; a later key.x25519 must be the current key's.
  if (envelope.type !== "claim" && envelope.kid !== view.kid) {
    throw verificationError(`${where}, is signed by ${envelope.kid}, not by the name's key ${view.kid}`)
  }
  return { name: view.name, kid: view.kid, x25519, x25519U64: view.x25519, x25519Index: view.x25519Index, recovery: view.recovery }
}
