// Capsules (docs/protocol.md section 9): a slot, named by U64(SHA-256(slot key)), holds
// ciphertext its owner sealed to its own current X25519 key with aad {kid, origin, slot}.
// The slot key stays with the agent; the log only ever sees its hash. Reading is the signed
// GET /v2/capsules/{slot}; the ciphertext is checked against the ct_hash its writer signed
// when the answer carries the envelope.

import { Either } from "effect"
import { equal, fromUtf8 } from "../domain/bytes.js"
import { decodeU64 } from "../domain/encoding.js"
import { decodeEnvelope, type Envelope } from "../domain/envelope/envelope.js"
import { verifyEnvelopeSignature } from "../domain/envelope/signature.js"
import { writeWithKeyFile } from "./agent.js"
import { crypto, x25519PublicKey } from "./crypto.js"
import { protocolError, verificationError } from "./errors.js"
import { capsuleSlot, HpkeOpenError, openCapsule, sealCapsule } from "./hpke.js"
import { readAgentKeyFile } from "./keyFile.js"
import { capsuleDraft, textBytes } from "./payloads.js"
import { getEntry } from "./read.js"
import { unexpectedAnswer } from "./http.js"
import { signedGet, signedGetJson } from "./signedRead.js"
import { keysOfFile, type AgentKey } from "./agentKey.js"
import type { LogClient, WriteResult } from "./write.js"

/** Seals `text` into the slot of `slotKey` and writes the capsule entry. */
export const capsulePut = async (
  client: LogClient,
  keyPath: string,
  slotKey: string,
  text: string
): Promise<{ readonly slot: string; readonly result: WriteResult }> => {
  const slot = capsuleSlot(slotKey)
  const plaintext = textBytes(text, "the capsule's text")
  const result = await writeWithKeyFile(client, keyPath, async (key) => {
    const sealed = await sealCapsule(
      x25519PublicKey(key.x25519Secret),
      { kid: key.kid, origin: client.vkey.name, slot },
      plaintext
    )
    return capsuleDraft(slot, sealed)
  })
  return { slot, result }
}

export interface CapsuleRead {
  readonly slot: string
  /** The leaf of the current write. */
  readonly index: number
  /** The key that wrote it (the slot's owner: one of this file's keys). */
  readonly kid: string
  readonly text: string
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/** The slot answer's current index, envelope and ciphertext (the one place that knows its member names). */
export const capsuleOf = (json: unknown): { index: number | null; envelope: unknown; ct: string | undefined } => {
  if (!isRecord(json)) throw protocolError("GET /v2/capsules/{slot}: the answer is not a JSON object")
  const current = isRecord(json["current"]) ? json["current"] : json
  const index = current["index"] ?? json["index"]
  const ct = [current["ct"], current["ciphertext"], current["body_or_ct"], current["body"], json["ct"], json["ciphertext"]].find(
    (v): v is string => typeof v === "string"
  )
  return { index: typeof index === "number" ? index : null, envelope: current["envelope"] ?? json["envelope"], ct }
}

/**
 * The signed envelope of the slot's current write and its ciphertext. HPKE base mode does
 * not authenticate who sealed (anyone can seal to a public key with a public aad), so the
 * plaintext is only the owner's if the owner's signature covers the ciphertext's hash:
 * from the envelope in the answer, else from the entry itself (inclusion-checked).
 */
const signedWrite = async (client: LogClient, answer: ReturnType<typeof capsuleOf>): Promise<{ envelope: Envelope; ct: Uint8Array; index: number }> => {
  let ct = answer.ct === undefined ? undefined : decodeU64(answer.ct)
  if (answer.ct !== undefined && ct === undefined) throw protocolError("GET /v2/capsules/{slot}: the ciphertext is not U64")
  if (answer.envelope !== undefined && ct !== undefined && answer.index !== null) {
    const decoded = decodeEnvelope(answer.envelope)
    if (Either.isLeft(decoded)) throw protocolError("GET /v2/capsules/{slot}: the envelope is malformed")
    if (!verifyEnvelopeSignature(decoded.right, crypto.ed25519)) throw verificationError("the capsule's envelope signature does not verify")
    return { envelope: decoded.right, ct, index: answer.index }
  }
  if (answer.index === null) throw protocolError("GET /v2/capsules/{slot}: the answer names no current write")
  const entry = await getEntry(client, answer.index)
  ct = ct ?? entry.body ?? undefined
  if (ct === undefined) throw protocolError(`capsule entry ${answer.index}: the ciphertext is not available (${entry.bodyStatus ?? "no body"})`)
  return { envelope: entry.envelope, ct, index: answer.index }
}

/**
 * The slot read signed by its owner: the current key, or after a rotation the retired key
 * that wrote it (the service answers 403 to any other key).
 */
const ownerRead = async (client: LogClient, file: AgentKey, path: string): Promise<unknown> => {
  const keys = keysOfFile(file)
  for (const key of keys.slice(0, -1)) {
    const response = await signedGet(client, key, path)
    if (response.status === 403) continue
    if (response.status !== 200) throw await unexpectedAnswer(`signed GET ${path}`, response)
    return response.json()
  }
  return signedGetJson(client, keys[keys.length - 1]!, path)
}

/** Reads the slot of `slotKey` (signed) and opens its current ciphertext. */
export const capsuleGet = async (client: LogClient, keyPath: string, slotKey: string): Promise<CapsuleRead> => {
  const key = await readAgentKeyFile(keyPath)
  const slot = capsuleSlot(slotKey)
  const { envelope, ct, index } = await signedWrite(client, capsuleOf(await ownerRead(client, key, `/v2/capsules/${slot}`)))
  if (envelope.type !== "capsule" || envelope.payload["slot"] !== slot) throw verificationError(`entry ${index} is not a write of slot ${slot}`)
  const ctHash = typeof envelope.payload["ct_hash"] === "string" ? decodeU64(envelope.payload["ct_hash"]) : undefined
  if (ctHash === undefined || !equal(crypto.sha256(ct), ctHash)) throw verificationError(`the ciphertext is not the one entry ${index} signed`)
  const mine = [key.kid, ...key.previous.map((p) => p.kid)]
  if (!mine.includes(envelope.kid)) throw verificationError(`slot ${slot} was written by ${envelope.kid}, not by this key file's keys`)
  // The aad names the owner: the key that wrote the slot (this key, or one it rotated from).
  try {
    const plaintext = await openCapsule(key.x25519Secret, { kid: envelope.kid, origin: client.vkey.name, slot }, ct)
    return { slot, index, kid: envelope.kid, text: fromUtf8(plaintext) }
  } catch (error) {
    if (error instanceof HpkeOpenError) throw verificationError(`the capsule in slot ${slot} does not decrypt with this key file's X25519 key`)
    throw verificationError(`the capsule in slot ${slot} is not UTF-8 text`)
  }
}
