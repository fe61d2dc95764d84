// Requiring witnesses (C2SP tlog-cosignature, docs/protocol.md "Witnessing"): a client that
// knows some witnesses' keys accepts a checkpoint only with cosignatures by at least
// `quorum` of them, so a log that shows it one history and others another must have the
// witnesses cosign both, which they refuse. A checkpoint that carries no cosignatures (the
// one in an entry bundle or a view) is accepted through the witnessed one at /checkpoint:
// that one must cover it, with a consistency proof from it that verifies.

import { Either } from "effect"
import { decodeB64, encodeB64 } from "../domain/encoding.js"
import { cosignaturesOf, parseCosignerKey, type Cosignature, type CosignerKey } from "../domain/note/cosignature.js"
import type { Checkpoint } from "../domain/note/checkpoint.js"
import { openNote } from "../domain/note/signedNote.js"
import { verifyConsistency } from "../domain/tlog/consistency.js"
import { crypto, hasher } from "./crypto.js"
import { protocolError, usageError, verificationError } from "./errors.js"
import { getBytes, getJson, type Service } from "./http.js"
import { consistencyFromTiles, tileReader } from "./tiles.js"
import type { VerifierKey } from "../domain/note/verifierKey.js"

export interface WitnessPolicy {
  readonly keys: ReadonlyArray<CosignerKey>
  /** How many of them must have cosigned. */
  readonly quorum: number
}

/** The policy of `--witness <vkey>` (repeated) and `--quorum N` (default: all of them). */
export const witnessPolicy = (vkeys: ReadonlyArray<string>, quorum: number | undefined): WitnessPolicy | undefined => {
  if (vkeys.length === 0) {
    if (quorum !== undefined && quorum > 0) throw usageError("--quorum needs --witness keys")
    return undefined
  }
  const keys = vkeys.map((vkey) => {
    const key = parseCosignerKey(crypto.sha256, vkey)
    if (key === undefined) throw usageError(`--witness ${vkey} is not a witness's cosignature verifier key (<name>+<key ID>+<base64 of 0x04 and the key>)`)
    return key
  })
  const wanted = quorum ?? keys.length
  if (wanted > keys.length) throw usageError(`--quorum ${wanted} is more than the ${keys.length} witnesses given`)
  return { keys, quorum: wanted }
}

/** The cosignatures of known witnesses on a checkpoint note; throws unless a quorum cosigned. */
export const requireCosignatures = (note: Uint8Array, logKey: VerifierKey, policy: WitnessPolicy, what: string): ReadonlyArray<Cosignature> => {
  const opened = openNote(note, [logKey], crypto.ed25519)
  if (Either.isLeft(opened)) throw verificationError(`${what} is not signed by the log's key`)
  const cosignatures = cosignaturesOf(opened.right, policy.keys, crypto.ed25519)
  if (Either.isLeft(cosignatures)) throw verificationError(`${what} carries an invalid cosignature by witness ${cosignatures.left.name}`)
  if (cosignatures.right.length < policy.quorum) {
    const by = cosignatures.right.map((c) => c.witness.name)
    throw verificationError(`${what} is cosigned by ${cosignatures.right.length} of the known witnesses${by.length > 0 ? ` (${by.join(", ")})` : ""}, not the ${policy.quorum} required`)
  }
  return cosignatures.right
}

/**
 * Whether the newer checkpoint extends the older one, by the consistency proof from the
 * log's API checked against both roots. A proof that does not verify shows nothing by
 * itself (a proxy or a cache may have spoilt it): the tiles of the newer checkpoint then
 * decide (consistencyFromTiles, tiles.ts). False only when the two signed checkpoints are
 * shown not to be one history: two roots at one size, or tiles that hash to the newer root
 * and give another root at the older size. A proof that fails while the tiles show the two
 * consistent, or tiles that do not hash to the newer root, are the service's error (protocol).
 */
export const checkConsistency = async (service: Service, older: Checkpoint, newer: Checkpoint): Promise<boolean> => {
  if (older.size === newer.size) return encodeB64(older.rootHash) === encodeB64(newer.rootHash)
  if (older.size > newer.size) return false
  const { json } = await getJson(service, `/v2/tlog/consistency?from=${older.size}&to=${newer.size}`)
  const hashes = (json as { hashes?: unknown }).hashes
  const proof = Array.isArray(hashes) ? hashes.map((h) => (typeof h === "string" ? decodeB64(h) : undefined)) : [undefined]
  if (proof.some((h) => h === undefined)) throw protocolError("the consistency proof is not a list of base64 hashes")
  if (verifyConsistency(hasher, older.size, newer.size, older.rootHash, newer.rootHash, proof as ReadonlyArray<Uint8Array>)) return true
  const failed = `the service's consistency proof from size ${older.size} to size ${newer.size} does not verify`
  const shown = await consistencyFromTiles(tileReader(service), older, newer)
  switch (shown._tag) {
    case "Forks":
      return false
    case "Extends":
      throw protocolError(`${failed} (the tiles show the checkpoints are consistent)`)
    case "TilesDoNotMatch":
      throw protocolError(`${failed}, and the tiles do not hash to the checkpoint of size ${newer.size}: nothing shows whether the two are one history`)
  }
}

/**
 * A checkpoint the log served without cosignatures (in a bundle or a view), accepted only
 * when the witnessed /checkpoint covers it and is consistent with it.
 */
export const requireWitnessedCover = async (
  service: Service,
  logKey: VerifierKey,
  policy: WitnessPolicy,
  checkpoint: Checkpoint,
  open: (note: Uint8Array) => Checkpoint
): Promise<void> => {
  const note = await getBytes(service, "/checkpoint")
  requireCosignatures(note, logKey, policy, "the checkpoint")
  const witnessed = open(note)
  if (witnessed.size < checkpoint.size || !(await checkConsistency(service, checkpoint, witnessed))) {
    throw verificationError(`the checkpoint of size ${checkpoint.size} is not consistent with the witnessed checkpoint of size ${witnessed.size}`)
  }
}
