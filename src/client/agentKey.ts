// An agent's keys and its place in the log, as the key file holds them (keyFile.ts does the
// I/O). Pure: generating keys, advancing the chain past an accepted envelope, and the JSON
// form with its strict reader.
//
// JSON form (one object; the first three members are the adapters/keys/keyFile.ts format,
// so the Ed25519 part reads with the same code as the service's own keys):
//   type     "ed25519"
//   kid      did:key of the Ed25519 public key
//   seed     U64 of the 32-byte Ed25519 seed
//   x25519   {secret, public}: U64 of the X25519 secret and public key
//   origin   the log this chain lives in (null until the first accepted entry): seq and
//            prev count per key per log, so a key file never mixes two logs' chains
//   seq      the seq of the next envelope (docs/spec/profile.md section 3)
//   prev     U64 hash of the last accepted envelope, null when seq is 0
//   receipts one per accepted entry: index, leaf_hash (U64), logged (ms), type, seq and
//            receipt_note (U64 of the signed note, kept as evidence of the log's promise)
//   name     the name this key acts for (set when a claim is accepted, carried across a
//            rotation), or null; optional when reading (older files), always written
//   next     {seed}: a new Ed25519 key chosen for a rotation that is in flight, saved before
//            the key.rotate entry is sent so that a crash cannot lose the key the log may
//            already name; null otherwise (optional when reading)
//   previous the keys this file acted with before rotations, oldest first: kid, seed, the
//            chain position they stopped at, their receipts, and the index of the
//            key.rotate leaf that retired them (kept for reference; optional when reading)

import { Either } from "effect"
import { decodeU64, encodeU64 } from "../domain/encoding.js"
import type { Envelope } from "../domain/envelope/envelope.js"
import { prevOf } from "../domain/envelope/hash.js"
import { didKeyFromPublicKey } from "../domain/identity/didKey.js"
import { crypto, newX25519Secret, randomBytes, x25519PublicKey } from "./crypto.js"

export interface StoredReceipt {
  readonly index: number
  /** U64 of the RFC 6962 leaf hash. */
  readonly leaf_hash: string
  /** Unix milliseconds. */
  readonly logged: number
  readonly type: string
  readonly seq: number
  /** U64 of the log-signed receipt note. */
  readonly receipt_note: string
}

/** A key the file acted with before a rotation (kept for reference and audit). */
export interface PreviousKey {
  readonly kid: string
  /** U64 of the retired Ed25519 seed. */
  readonly seed: string
  readonly seq: number
  readonly prev: string | null
  readonly receipts: ReadonlyArray<StoredReceipt>
  /** Index of the key.rotate leaf that moved the name to the next key (null if not known). */
  readonly retired_by: number | null
  /** "rotate" (signed by this key) or "recover" (signed by the name's recovery key). */
  readonly how: "rotate" | "recover"
}

export interface AgentKey {
  readonly kid: string
  readonly seed: Uint8Array
  readonly x25519Secret: Uint8Array
  /** U64 of the X25519 public key, as a claim payload carries it. */
  readonly x25519Public: string
  readonly origin: string | null
  readonly seq: number
  readonly prev: string | null
  readonly receipts: ReadonlyArray<StoredReceipt>
  /** The name this key acts for, when the file knows it. */
  readonly name: string | null
  /** Seed of the new key of a rotation in flight, or null. */
  readonly next: Uint8Array | null
  readonly previous: ReadonlyArray<PreviousKey>
}

/** A fresh agent: new Ed25519 and X25519 keys, at the start of its chain. */
export const generateAgentKey = (): AgentKey => agentKeyOf(randomBytes(32), newX25519Secret())

/**
 * The key of an Ed25519 seed and an X25519 secret, at the start of its chain: also how the
 * service writes the owner key its first start makes (adapters/keys/FileKeys.ts), so that
 * `aics admin` reads it like any key file.
 */
export const agentKeyOf = (seed: Uint8Array, x25519Secret: Uint8Array): AgentKey => {
  return {
    kid: didKeyFromPublicKey(crypto.ed25519.publicKey(seed)),
    seed,
    x25519Secret,
    x25519Public: encodeU64(x25519PublicKey(x25519Secret)),
    origin: null,
    seq: 0,
    prev: null,
    receipts: [],
    name: null,
    next: null,
    previous: []
  }
}

/** The key after the log accepted `envelope` with `receipt`: the chain moves one step. */
export const advanceChain = (key: AgentKey, envelope: Envelope, receipt: StoredReceipt): AgentKey => ({
  ...key,
  origin: envelope.origin,
  seq: envelope.seq + 1,
  // JCS cannot fail on an envelope the client built and the log accepted.
  prev: Either.getOrThrow(prevOf(crypto.sha256, envelope)),
  receipts: [...key.receipts, receipt]
})

/** The members after type, kid and seed (keyFile.ts writes those three itself). */
export const agentExtras = (key: AgentKey) => ({
  x25519: { secret: encodeU64(key.x25519Secret), public: key.x25519Public },
  origin: key.origin,
  seq: key.seq,
  prev: key.prev,
  receipts: key.receipts,
  name: key.name,
  next: key.next === null ? null : { seed: encodeU64(key.next) },
  previous: key.previous
})

/** The whole JSON form, as written on every update. */
export const agentKeyJson = (key: AgentKey): string =>
  JSON.stringify({ type: "ed25519", kid: key.kid, seed: encodeU64(key.seed), ...agentExtras(key) }, null, 2) + "\n"

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0
const isHash = (v: unknown): v is string => typeof v === "string" && decodeU64(v)?.length === 32

const receiptProblem = (r: unknown): string | undefined => {
  if (!isRecord(r)) return "a receipt is not an object"
  if (!isCount(r["index"]) || !isCount(r["logged"]) || !isCount(r["seq"])) return "a receipt's index, logged or seq is not a count"
  if (!isHash(r["leaf_hash"])) return "a receipt's leaf_hash is not U64 of 32 bytes"
  if (typeof r["type"] !== "string" || typeof r["receipt_note"] !== "string" || decodeU64(r["receipt_note"]) === undefined) {
    return "a receipt's type or receipt_note is malformed"
  }
  return undefined
}

const previousProblem = (p: unknown): string | undefined => {
  if (!isRecord(p)) return "a previous key is not an object"
  if (typeof p["kid"] !== "string" || !isHash(p["seed"])) return "a previous key's kid or seed is malformed"
  if (!isCount(p["seq"]) || (p["retired_by"] !== null && !isCount(p["retired_by"]))) return "a previous key's seq or retired_by is not a count"
  if (p["prev"] !== null && !isHash(p["prev"])) return "a previous key's prev is malformed"
  if (p["how"] !== "rotate" && p["how"] !== "recover") return "a previous key's how is not rotate or recover"
  if (!Array.isArray(p["receipts"])) return "a previous key's receipts is not an array"
  for (const r of p["receipts"]) {
    const problem = receiptProblem(r)
    if (problem !== undefined) return problem
  }
  return undefined
}

/**
 * The agent key from the parsed JSON of a key file whose Ed25519 part (type, kid, seed) the
 * caller already checked, or a message saying what is wrong with the rest.
 */
export const agentKeyFromJson = (
  json: unknown,
  ed: { readonly kid: string; readonly seed: Uint8Array }
): Either.Either<AgentKey, string> => {
  if (!isRecord(json)) return Either.left("not a JSON object")
  const x = json["x25519"]
  const secret = isRecord(x) && typeof x["secret"] === "string" ? decodeU64(x["secret"]) : undefined
  if (secret === undefined || secret.length !== 32 || !isRecord(x)) return Either.left("x25519.secret is not U64 of 32 bytes")
  const x25519Public = encodeU64(x25519PublicKey(secret))
  if (x["public"] !== x25519Public) return Either.left("x25519.public is not the public key of x25519.secret")
  const { origin, seq, prev, receipts } = json
  if (origin !== null && (typeof origin !== "string" || origin === "")) return Either.left("origin is not a string or null")
  if (!isCount(seq)) return Either.left("seq is not a non-negative integer")
  if (seq === 0 ? prev !== null : !isHash(prev)) return Either.left("prev must be null at seq 0 and U64 of 32 bytes after")
  if (!Array.isArray(receipts)) return Either.left("receipts is not an array")
  for (const r of receipts) {
    const problem = receiptProblem(r)
    if (problem !== undefined) return Either.left(problem)
  }
  const name = json["name"] ?? null
  if (name !== null && (typeof name !== "string" || name === "")) return Either.left("name is not a string or null")
  const nextJson = json["next"] ?? null
  const next = nextJson === null ? null : isRecord(nextJson) && isHash(nextJson["seed"]) ? decodeU64(nextJson["seed"])! : undefined
  if (next === undefined) return Either.left("next is not null or {seed: U64 of 32 bytes}")
  const previous = json["previous"] ?? []
  if (!Array.isArray(previous)) return Either.left("previous is not an array")
  for (const p of previous) {
    const problem = previousProblem(p)
    if (problem !== undefined) return Either.left(problem)
  }
  return Either.right({
    kid: ed.kid,
    seed: ed.seed,
    x25519Secret: secret,
    x25519Public,
    origin,
    seq,
    prev: prev as string | null,
    receipts: receipts as ReadonlyArray<StoredReceipt>,
    name,
    next,
    previous: previous as ReadonlyArray<PreviousKey>
  })
}

/** The kid of an Ed25519 seed. */
export const kidOfSeed = (seed: Uint8Array): string => didKeyFromPublicKey(crypto.ed25519.publicKey(seed))

/**
 * The key file after the log accepted the key.rotate leaf at `retiredBy` naming the key of
 * `seed`: the new key starts its own chain (seq 0, prev null, no receipts), the X25519 key
 * and the name stay, and the old key moves to `previous`.
 */
export const switchToKey = (key: AgentKey, seed: Uint8Array, retiredBy: number | null, how: PreviousKey["how"]): AgentKey => ({
  kid: kidOfSeed(seed),
  seed,
  x25519Secret: key.x25519Secret,
  x25519Public: key.x25519Public,
  origin: key.origin,
  seq: 0,
  prev: null,
  receipts: [],
  name: key.name,
  next: null,
  previous: [
    ...key.previous,
    { kid: key.kid, seed: encodeU64(key.seed), seq: key.seq, prev: key.prev, receipts: key.receipts, retired_by: retiredBy, how }
  ]
})

/**
 * The keys this file can sign reads with: the current key, then the keys it rotated from
 * (newest first). A retired key still owns what it received and wrote before the rotation
 * (its inbox, its capsule slots), and only its own signature reads them.
 */
export const keysOfFile = (key: AgentKey): ReadonlyArray<AgentKey> => [
  key,
  ...[...key.previous].reverse().map((p): AgentKey => ({ ...key, kid: p.kid, seed: decodeU64(p.seed)!, seq: p.seq, prev: p.prev, receipts: p.receipts, previous: [], next: null }))
]
