// Resolving a name to its current keys: GET /v2/names/{name} (the name view), then the two
// leaves the view says set them, each fetched with its inclusion proof (read.ts) under the
// view's own log-signed checkpoint: the leaf at `kid_index` must establish `kid` for the
// name (a claim by it, or a key.rotate to it), the leaf at `x25519_index` must set that X25519
// key for it. The view's checkpoint must be consistent with the latest one. The view is a
// projection, not an authority (docs/spec/service.md "Projections"): a DM is only ever
// encrypted to a key a verified leaf of the log binds to the name. What no leaf can show is
// that a later one changed the keys (a view served stale): only a fold does (audit.ts).
//
// A name may have no X25519 key (docs/protocol.md 10.2, 17.5: `x25519` "" and `x25519_index`
// null): a secret-bound name, whose claim the policy key signed with `as` (its `kid` is the
// policy key, `kid_index` that claim), and a name upgraded from one before its new key sent
// a key.x25519. Such a name is looked up all the same, its key leaf checked, and said to
// receive no DMs; a DM to it is refused before anything is written (messaging.ts).
//
// readNameView is the ONE place that knows the view's member names; adapt it there.

import { Either, Option, Schema } from "effect"
import { decodeB64, decodeU64 } from "../domain/encoding.js"
import { signerOf, type Signer } from "../domain/entries/entryRule.js"
import { claim, ClaimPayload, claimPayloadRefusal, isSecretClaim } from "../domain/entries/types/claim.js"
import { keyRotate, KeyRotatePayload } from "../domain/entries/types/keyRotate.js"
import type { Envelope } from "../domain/envelope/envelope.js"
import type { Checkpoint } from "../domain/note/checkpoint.js"
import { verifyInclusion } from "../domain/tlog/inclusion.js"
import { fetchCheckpoint, verifyCheckpointNote } from "./checkpoint.js"
import { hasher } from "./crypto.js"
import { ClientError, protocolError, usageError, verificationError } from "./errors.js"
import { getJson } from "./http.js"
import { checkedName } from "./payloads.js"
import { getEntry, type EntryRead } from "./read.js"
import { checkConsistency } from "./witnesses.js"
import type { LogClient } from "./write.js"

/** What the client needs from a name view. */
export interface NameView {
  readonly name: string
  /** `key` or `secret` (docs/protocol.md 10.1), when the view says. */
  readonly tier: "key" | "secret" | undefined
  /** did:key of the key that currently acts for the name (the policy key for a secret-bound name). */
  readonly kid: string
  /** The leaf that bound it (a claim or a key.rotate), when the view says. */
  readonly kidIndex: number | undefined
  /**
   * U64 of the current X25519 key, and the leaf that set it; "" and null for a name without
   * one (secret-bound, or upgraded before its key sent a key.x25519).
   */
  readonly x25519: string
  readonly x25519Index: number | null
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
  /** The leaves of the name's key events, in log order, the claim first (`indices`), when the view says. */
  readonly keyEvents: ReadonlyArray<number> | undefined
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
  // No X25519 key: `x25519` "" with `x25519_index` null, both said (docs/protocol.md 10.2).
  const none = x25519 === "" && json["x25519_index"] === null
  if (kid === undefined || x25519 === undefined || !(none || (x25519 !== "" && isCount(x25519Index)))) {
    throw protocolError(`GET /v2/names/${name}: the view lacks the current kid, x25519 key or x25519 leaf index (a name without an X25519 key has x25519 "" and x25519_index null)`)
  }
  const recovery = json["recovery"]
  const tier = json["tier"]
  return {
    name: str(json["name"]) ?? name,
    tier: tier === "key" || tier === "secret" ? tier : undefined,
    kid,
    kidIndex: isCount(kidIndex) ? kidIndex : undefined,
    x25519,
    x25519Index: none ? null : x25519Index as number,
    size: isCount(json["size"]) ? json["size"] : undefined,
    checkpointNote: str(json["checkpoint_note"]),
    keyEvents: Array.isArray(json["indices"]) && json["indices"].every(isCount) ? json["indices"] as Array<number> : undefined,
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

/**
 * A name the service says is not claimed (404 name_not_found), said as the service's answer:
 * a look-up has no leaf to check, and only a replay of every leaf shows every claim.
 */
const notClaimedSaid = (error: unknown): unknown => {
  if (!(error instanceof ClientError) || error.kind !== "not_found" || error.code !== "name_not_found") return error
  const said = (audit: string) => `${error.message} (the service's answer, which no single leaf can show: ${audit} replays every leaf of the log)`
  return new ClientError(error.kind, said("aics audit log"), { code: error.code, status: error.status, mcpMessage: said("the audit_log tool") })
}

/** The name view as the service answers it (raw JSON) with what the client reads of it. */
export const fetchNameView = async (client: LogClient, name: string): Promise<{ json: unknown; view: NameView }> => {
  const { norm, segment } = nameHandle(name)
  const { json } = await getJson(client.service, `/v2/names/${encodeURIComponent(segment)}`).catch((error: unknown) => {
    throw notClaimedSaid(error)
  })
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
  /**
   * `secret` when the leaf that set the key is a secret-bound claim (the policy key's, with
   * `as`: the name rests on the service's word), else `key`.
   */
  readonly tier: "key" | "secret"
  /** The key that acts for the name: its own, or the policy key for a secret-bound name. */
  readonly kid: string
  /** The leaf that established `kid` for the name: a claim by it (or the policy key's secret-bound claim), or a key.rotate (a rotation, a recovery or an upgrade) to it. */
  readonly kidIndex: number
  readonly kidLeafType: "claim" | "key.rotate"
  /**
   * The X25519 public key (32 bytes), its U64 form and the leaf that set it; null, "" and
   * null when the view says the name has none: it receives no DMs.
   */
  readonly x25519: Uint8Array | null
  readonly x25519U64: string
  readonly x25519Index: number | null
  /** The recovery key as the view says it (not checked against a leaf): see NameView. */
  readonly recovery: RecoveryKey | null | undefined
  /**
   * The log-signed checkpoint both leaves were proved included under: the view's own
   * (`checkpoint_note`), or the latest when the view carried none (`fromView` false).
   */
  readonly checkpoint: { readonly size: number; readonly fromView: boolean }
  /** The size of the latest checkpoint fetched (/checkpoint), which the view's is consistent with. */
  readonly latestSize: number
  /** The key events replayed from the claim (checkKeyChain), or 0 when the view listed none. */
  readonly keyEventsReplayed: number
}

/** What a leaf establishes: the key that acts for the name from it on, and the name's tier. */
export interface KeyEstablished {
  readonly name: string
  readonly kid: string
  readonly type: "claim" | "key.rotate"
  readonly tier: "key" | "secret"
}

/** The log reads a payload with no member beyond its schema's (domain/write/submission.ts). */
const strictly = { onExcessProperty: "error" } as const

/**
 * The party whose signature the leaf's own rule requires, read with the log's payload
 * schemas as strictly as the log reads them (domain/entries/types, entryRule.ts signerOf):
 * `policy` for a secret-bound claim and for the upgrade of one (a key.rotate with `as`),
 * `agent` for any other claim or key.rotate. Undefined for any other leaf, or a payload the
 * log would not read.
 */
export const keyLeafSigner = (envelope: Envelope): Signer | undefined => {
  if (envelope.type === "claim") {
    const payload = Schema.decodeUnknownOption(ClaimPayload, strictly)(envelope.payload)
    return Option.isSome(payload) ? signerOf(claim, payload.value) : undefined
  }
  if (envelope.type === "key.rotate") {
    const payload = Schema.decodeUnknownOption(KeyRotatePayload, strictly)(envelope.payload)
    return Option.isSome(payload) ? signerOf(keyRotate, payload.value) : undefined
  }
  return undefined
}

/**
 * The name and the key a leaf establishes for it, read with the log's own payload schemas
 * and rules (domain/entries/types), as far as the leaf alone decides them:
 *   - a claim by an agent's key binds that key (claim.ts), tier `key`;
 *   - a secret-bound claim `{name, as}` binds nothing of its own: the policy key speaks for
 *     the name (its view's `kid` is the policy key, `kid_index` the claim, docs/protocol.md
 *     17.5). It stands only when signed by the policy key leaf 0 names (decide.ts, the
 *     rule's signerOf) with `as` equal to the name (claimPayloadRefusal), tier `secret`;
 *   - a key.rotate binds `new_kid` (keyRotate.ts), whether signed by the name's key, its
 *     recovery key, or, for the upgrade of a secret-bound name (`as`, equal to the name), the
 *     policy key; tier `key`. Which key may sign an agent's rotation is the state's to say:
 *     only a fold checks it.
 * `policyKid` is the policy key leaf 0 names, needed when keyLeafSigner says `policy`. Left:
 * why the leaf establishes no key for a name.
 */
export const keyEstablishedBy = (envelope: Envelope, policyKid: string | undefined): Either.Either<KeyEstablished, string> => {
  const signer = keyLeafSigner(envelope)
  if (signer === undefined) {
    return Either.left(envelope.type === "claim" || envelope.type === "key.rotate"
      ? `a ${envelope.type} whose payload the log does not read`
      : `a ${envelope.type}, not a claim or a key.rotate`)
  }
  if (signer === "policy" && envelope.kid !== policyKid) {
    return Either.left(`a ${envelope.type} with as, signed by ${envelope.kid}, not by the policy key leaf 0 names${policyKid === undefined ? "" : ` (${policyKid})`}`)
  }
  if (envelope.type === "claim") {
    const payload = Schema.decodeUnknownSync(ClaimPayload, strictly)(envelope.payload)
    const refusal = claimPayloadRefusal(payload)
    if (refusal !== undefined) return Either.left(`a claim the log refuses: ${refusal.detail}`)
    return Either.right({ name: payload.name, kid: envelope.kid, type: "claim", tier: isSecretClaim(payload) ? "secret" : "key" })
  }
  const payload = Schema.decodeUnknownSync(KeyRotatePayload, strictly)(envelope.payload)
  // keyRotate.ts: a policy-signed rotation upgrades the secret-bound name its `as` names.
  if (payload.as !== undefined && payload.as !== payload.name) return Either.left(`a key.rotate whose as (${payload.as}) is not its name`)
  return Either.right({ name: payload.name, kid: payload.new_kid, type: "key.rotate", tier: "key" })
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

/** The policy key leaf 0 (the charter, signed by the key it names: charter.ts) names, the leaf included under `anchor`. */
const charterPolicyKid = async (client: LogClient, anchor: Checkpoint): Promise<string> => {
  const { envelope } = await entryUnder(client, 0, anchor, "the charter")
  const kid = envelope.payload["policy_kid"]
  if (envelope.type !== "charter" || typeof kid !== "string" || envelope.kid !== kid) {
    throw verificationError("leaf 0 is not a charter signed by the policy key it names")
  }
  return kid
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
 * establishes `kid` for this name (keyEstablishedBy; leaf 0 too when that leaf is the policy
 * key's), the leaf at `x25519_index` sets that X25519 key for it, both signed and included
 * (inclusion proofs) under the view's signed checkpoint, which must be consistent with the
 * latest checkpoint. A view that says the name has no X25519 key cites no such leaf: the
 * name is answered with none (it receives no DMs). What this cannot show: that no later
 * leaf rotated the key or set another X25519 key (a stale view, with its own older
 * checkpoint or a newer one): only a fold of the log does (`aics audit name`, audit.ts
 * laterKeyEvents).
 */
export const lookupName = async (client: LogClient, name: string): Promise<ResolvedName> => {
  const { view } = await fetchNameView(client, name)
  const atView = viewCheckpoint(client, view)
  const latest = await latestConsistentWith(client, view, atView)
  const anchor = atView ?? latest
  const x25519 = view.x25519Index === null ? null : decodeU64(view.x25519)
  if (x25519 !== null && (x25519 === undefined || x25519.length !== 32)) throw verificationError(`the name view of ${view.name}: x25519 is not U64 of 32 bytes`)
  if (view.kidIndex === undefined) throw protocolError(`GET /v2/names/${view.name}: the view lacks kid_index, the leaf that set its key`)
  const kidIndex = view.kidIndex

  // Each leaf is read and proved once, whichever check asks for it first.
  const read = new Map<number, Promise<EntryRead>>()
  const leafUnder = (index: number, what: string) => {
    let entry = read.get(index)
    if (entry === undefined) read.set(index, entry = entryUnder(client, index, anchor, what))
    return entry
  }
  const keyWhere = `the leaf the view of ${view.name} says set its key ${view.kid}`
  const keyLeaf = await leafUnder(kidIndex, keyWhere)
  // Leaf 0's policy key, read only for a leaf the policy key must have signed.
  let policy: Promise<string> | undefined
  const policyKidFor = (envelope: Envelope) =>
    keyLeafSigner(envelope) === "policy" ? (policy ??= charterPolicyKid(client, anchor)) : Promise.resolve(undefined)
  const policyKid = await policyKidFor(keyLeaf.envelope)
  const binding = keyEstablishedBy(keyLeaf.envelope, policyKid)
  if (Either.isLeft(binding)) throw verificationError(`${keyWhere}, entry ${kidIndex}, is ${binding.left}`)
  const established = binding.right
  if (established.name !== view.name) throw verificationError(`${keyWhere}, entry ${kidIndex}, is about the name ${established.name}`)
  if (established.kid !== view.kid) {
    throw verificationError(`${keyWhere}, entry ${kidIndex}, is a ${established.type} that binds ${established.kid} to ${view.name}, not ${view.kid}`)
  }
  if (view.tier !== undefined && view.tier !== established.tier) {
    throw verificationError(`the view of ${view.name} says tier ${view.tier}, but ${keyWhere}, entry ${kidIndex}, makes it ${established.tier}-bound`)
  }

  const resolved = {
    name: view.name,
    tier: established.tier,
    kid: view.kid,
    kidIndex,
    kidLeafType: established.type,
    recovery: view.recovery,
    checkpoint: { size: anchor.size, fromView: atView !== undefined },
    latestSize: latest.size,
    keyEventsReplayed: view.keyEvents === undefined ? 0 : await checkKeyChain(view, policyKidFor, leafUnder)
  }
  if (view.x25519Index === null || x25519 === null) return { ...resolved, x25519: null, x25519U64: "", x25519Index: null }

  const x25519Leaf = await leafUnder(view.x25519Index, `the leaf the view of ${view.name} says set its X25519 key`)
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
  return { ...resolved, x25519, x25519U64: view.x25519, x25519Index: view.x25519Index }
}

const X25519_SETTERS: ReadonlySet<string> = new Set(["claim", "key.x25519"])

/**
 * The name's key events as its view lists them (`indices`: the claim, then each key.rotate
 * and key.x25519, in log order), each leaf read and proved under the same checkpoint, replayed
 * by the key rules (docs/protocol.md 10.1; keyRotate.ts, keyX25519.ts): one claim, first; a
 * key.rotate signed by the key then acting for the name, or by the claim's recovery key while
 * it stands (the view's recovery_bound_index ends that), or for a secret-bound name's upgrade
 * by the policy key (keyEstablishedBy); a key.x25519 signed by the key then acting. They must
 * end at the view's key, its leaf, and its X25519 key and leaf. So a key.rotate signed by a
 * key that never acted for the name, or a second claim, does not pass as the view's key.
 * Answers how many events were replayed. What it cannot show: a claim of the name before the
 * view's, or a key event the view leaves out: only a fold of the log (aics audit name).
 */
export const checkKeyChain = async (
  view: NameView,
  policyKidFor: (envelope: Envelope) => Promise<string | undefined>,
  leafUnder: (index: number, what: string) => Promise<EntryRead>
): Promise<number> => {
  const events = view.keyEvents!
  let acting: string | undefined
  let actingIndex = -1
  let recovery: string | null = null
  let x25519: string | null = null
  let x25519Index: number | null = null
  let previous = -1
  for (const index of events) {
    const where = `key event ${index} of ${view.name} (the view's indices)`
    if (index <= previous) throw verificationError(`the view of ${view.name} lists its key events out of log order (${index} after ${previous})`)
    previous = index
    const { envelope } = await leafUnder(index, where)
    if (envelope.payload["name"] !== view.name) throw verificationError(`${where} is about the name ${String(envelope.payload["name"])}`)
    if (envelope.type === "claim") {
      if (acting !== undefined) throw verificationError(`${where} is a second claim of the name (the first at leaf ${events[0]})`)
      const claimed = keyEstablishedBy(envelope, await policyKidFor(envelope))
      if (Either.isLeft(claimed)) throw verificationError(`${where} is ${claimed.left}`)
      acting = claimed.right.kid
      actingIndex = index
      recovery = typeof envelope.payload["recovery"] === "string" ? envelope.payload["recovery"] : null
      if (typeof envelope.payload["x25519"] === "string") [x25519, x25519Index] = [envelope.payload["x25519"], index]
      continue
    }
    if (acting === undefined) throw verificationError(`${where} comes before the name's claim`)
    if (envelope.type === "key.rotate") {
      const rotated = keyEstablishedBy(envelope, await policyKidFor(envelope))
      if (Either.isLeft(rotated)) throw verificationError(`${where} is ${rotated.left}`)
      const bound = view.recovery?.boundIndex
      const byRecovery = recovery !== null && envelope.kid === recovery && (bound === undefined || index < bound)
      if (envelope.kid !== acting && !byRecovery) {
        throw verificationError(`${where} is a key.rotate signed by ${envelope.kid}, neither the key then acting for the name (${acting}) nor its standing recovery key`)
      }
      acting = rotated.right.kid
      actingIndex = index
      continue
    }
    if (envelope.type === "key.x25519") {
      if (envelope.kid !== acting) throw verificationError(`${where} is a key.x25519 signed by ${envelope.kid}, not by the key then acting for the name (${acting})`)
      if (typeof envelope.payload["x25519"] !== "string") throw verificationError(`${where} carries no X25519 key`)
      ;[x25519, x25519Index] = [envelope.payload["x25519"], index]
      continue
    }
    throw verificationError(`${where} is a ${envelope.type}, not a key event`)
  }
  if (acting !== view.kid || actingIndex !== view.kidIndex) {
    throw verificationError(`the key events the view of ${view.name} lists end at ${acting ?? "no key"} (leaf ${actingIndex}), not at its key ${view.kid} (leaf ${view.kidIndex})`)
  }
  if ((x25519 ?? "") !== view.x25519 || x25519Index !== view.x25519Index) {
    const shown = (key: string, index: number | null) => (index === null ? "no X25519 key" : `X25519 key ${key} (leaf ${index})`)
    throw verificationError(`the key events the view of ${view.name} lists end at ${shown(x25519 ?? "", x25519Index)}, where the view says ${shown(view.x25519, view.x25519Index)}`)
  }
  return events.length
}

const leaves = (n: number) => `${n} lea${n === 1 ? "f" : "ves"}`

/** Why the name receives no DMs, in one sentence: it has no X25519 key (docs/protocol.md 10.2). */
export const noX25519 = (r: ResolvedName): string =>
  r.tier === "secret"
    ? `no X25519 key: ${r.name} is secret-bound (the service's policy key speaks for it), so it cannot receive DMs (until it is upgraded to a key of its own and that key sends key.x25519)`
    : `no X25519 key: ${r.name} cannot receive DMs until its key sends key.x25519`

/**
 * What lookupName checked, in one sentence (`aics name` and the MCP lookup_name tool say
 * it): the leaves, the checkpoint they are included under and how it stands to the latest.
 */
export const lookupChecked = (r: ResolvedName): string => {
  const at = r.x25519Index === null || r.kidIndex === r.x25519Index ? `leaf ${r.kidIndex}` : `leaves ${r.kidIndex} and ${r.x25519Index}`
  const under = r.checkpoint.fromView
    ? `the name view's log-signed checkpoint of size ${r.checkpoint.size}`
    : `the latest checkpoint of size ${r.checkpoint.size} (the view carried no checkpoint)`
  const behind = r.latestSize - r.checkpoint.size
  const latest = !r.checkpoint.fromView ? ""
    : behind === 0 ? ", which is the latest checkpoint"
    : behind > 0 ? `, ${leaves(behind)} behind the latest checkpoint (size ${r.latestSize}) and consistent with it`
    : `, ${leaves(-behind)} past the latest checkpoint served (size ${r.latestSize}) and consistent with it`
  const binding = r.x25519Index !== null
    ? `binding this key and X25519 key to ${r.name}`
    : r.tier === "secret"
      ? `a secret-bound claim of ${r.name} by the policy key leaf 0 names`
      : `binding this key to ${r.name}`
  const chain = r.keyEventsReplayed > 0 ? `; the name's ${r.keyEventsReplayed} key event${r.keyEventsReplayed === 1 ? "" : "s"} the view lists, replayed from its claim by the key rules, end at them` : ""
  return `checked: ${at} signed, included under ${under}${latest}, and ${binding}${chain}`
}

/** What lookupName cannot check, in one sentence: a later leaf that changed the keys; `audit` names what folds the log. */
export const lookupNotChecked = (r: ResolvedName, audit = `aics audit name ${r.name}`): string => {
  const x25519 = r.x25519Index === null ? " or an X25519 key the view does not show" : ` or X25519 key (after leaf ${r.x25519Index})`
  return `not checked: a later rotation (after leaf ${r.kidIndex})${x25519}, an earlier claim of the name, or a key event the view leaves out: only a replay of the whole log shows them (${audit})`
}

/** A looked-up name as `aics name --json` prints it and the MCP lookup_name tool answers it. */
export const resolvedNameJson = (r: ResolvedName) => ({
  name: r.name,
  tier: r.tier,
  kid: r.kid,
  kid_index: r.kidIndex,
  kid_set_by: r.kidLeafType,
  // As the name view says it: "" and null for a name without an X25519 key.
  x25519: r.x25519U64,
  x25519_index: r.x25519Index,
  receives_dms: r.x25519Index !== null,
  key_events_replayed: r.keyEventsReplayed,
  checkpoint_size: r.checkpoint.size,
  checkpoint_from_view: r.checkpoint.fromView,
  latest_checkpoint_size: r.latestSize,
  ...recoveryMembers(r.recovery)
})
