// The service's key material on the filesystem (<data dir>/keys, mode 0700):
//   keys/log.key      log key (checkpoints, receipts), mode 0600
//   keys/policy.key   policy key (leaf 0, service-authored leaves, the card), mode 0600
//   owner.kid         the owner's did:key: the only owner material the service reads
//   owner.key         made on first start when the operator brought no AICS_OWNER_KID:
//                     the owner's private key, for the operator to move off this machine
// A first start creates what is missing; later starts reuse it.

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { Context, Effect, Layer } from "effect"
import { agentExtras, agentKeyOf } from "../../client/agentKey.js"
import { utf8 } from "../../domain/bytes.js"
import { isDidKey } from "../../domain/identity/didKey.js"
import { Crypto } from "../../ports/Crypto.js"
import { Entropy } from "../../ports/Entropy.js"
import { OwnerKey } from "../../ports/OwnerKey.js"
import { Signer, type SigningKey } from "../../ports/Signer.js"
import { StorageError } from "../../ports/StorageError.js"
import { writeFileAtomically } from "../fs/atomicFile.js"
import { createKeyFile, fileExists, keyPairOf, loadOrCreateKeyFile, readKeyFile, type KeyPair } from "./keyFile.js"

export interface FileKeysOptions {
  readonly dataDir: string
  /** The operator's own owner key; when absent and no owner.kid exists, one is made. */
  readonly ownerKid: string | undefined
}

const readText = (path: string) =>
  Effect.tryPromise({
    try: () => readFile(path, "utf8"),
    catch: (cause) => new StorageError({ operation: "read", detail: `${path}: ${String(cause)}`, cause })
  })

const OWNER_KEY_NOTE = "The AICS owner key, for `aics admin` (AICS_OWNER_KEY=<this file>). Move it off the service machine."

/** The members of the agent key-file format after type, kid and seed: a fresh X25519 key, no chain yet. */
const ownerKeyMembers = (owner: KeyPair, x25519Secret: Uint8Array) => agentExtras(agentKeyOf(owner.seed, x25519Secret))

/**
 * An owner.key written by an earlier version holds only type, kid and seed, which `aics
 * admin` cannot read: it is rewritten once in the agent format, with the same Ed25519 key
 * (the owner leaf 0 names) and a new X25519 key (nothing was ever encrypted to it).
 */
const upgradeOwnerKeyFile = (path: string, ed25519: Crypto["Type"]["ed25519"], newSeed: Effect.Effect<Uint8Array>) =>
  Effect.gen(function*() {
    if (!(yield* fileExists(path))) return
    // A file the service cannot read as a key is the operator's business, not a reason to stop.
    const read = yield* Effect.option(readKeyFile(path, ed25519))
    if (read._tag === "None") return
    const owner = read.value
    const json = JSON.parse(yield* readText(path)) as Record<string, unknown>
    if (json["x25519"] !== undefined) return
    const upgraded = { type: "ed25519", kid: owner.kid, seed: json["seed"], ...ownerKeyMembers(owner, yield* newSeed), note: OWNER_KEY_NOTE }
    yield* writeFileAtomically(path, utf8(JSON.stringify(upgraded, null, 2) + "\n"), 0o600)
    yield* Effect.log(`Rewrote ${path} in the key-file format aics admin reads (same owner key ${owner.kid}).`).pipe(
      Effect.annotateLogs({ event: "owner_key_upgraded", path }))
  })

export const FileKeysLive = (options: FileKeysOptions) =>
  Layer.effectContext(Effect.gen(function*() {
    const crypto = yield* Crypto
    const entropy = yield* Entropy
    const keysDir = join(options.dataDir, "keys")
    const newSeed = entropy.randomBytes(32)

    const log = yield* loadOrCreateKeyFile(join(keysDir, "log.key"), crypto.ed25519, newSeed)
    const policy = yield* loadOrCreateKeyFile(join(keysDir, "policy.key"), crypto.ed25519, newSeed)

    const ownerKidPath = join(options.dataDir, "owner.kid")
    // Checked before anything is written: a mistyped AICS_OWNER_KID saved to owner.kid
    // would make every later start, with the corrected value, fail as a conflict.
    if (options.ownerKid !== undefined && !isDidKey(options.ownerKid)) {
      return yield* new StorageError({ operation: "owner key", detail: `AICS_OWNER_KID ${options.ownerKid} is not an Ed25519 did:key` })
    }
    let ownerKid: string
    if (yield* fileExists(ownerKidPath)) {
      ownerKid = (yield* readText(ownerKidPath)).trim()
      if (options.ownerKid !== undefined && options.ownerKid !== ownerKid) {
        return yield* new StorageError({
          operation: "owner key",
          detail: `AICS_OWNER_KID ${options.ownerKid} differs from ${ownerKidPath} (${ownerKid}); the owner named in leaf 0 cannot change`
        })
      }
    } else if (options.ownerKid !== undefined) {
      ownerKid = options.ownerKid
      yield* writeFileAtomically(ownerKidPath, utf8(ownerKid + "\n"), 0o644)
    } else {
      // An owner.key without owner.kid is a first start that stopped between the two
      // writes: that key is the owner, and making another would fail on the existing file.
      const ownerKeyPath = join(options.dataDir, "owner.key")
      const made = !(yield* fileExists(ownerKeyPath))
      const owner: KeyPair = made ? keyPairOf(crypto.ed25519, yield* newSeed) : yield* readKeyFile(ownerKeyPath, crypto.ed25519)
      // The agent key-file format (src/client/agentKey.ts), so `aics admin` reads it as it is.
      if (made) yield* createKeyFile(ownerKeyPath, owner, { ...ownerKeyMembers(owner, yield* newSeed), note: OWNER_KEY_NOTE })
      yield* writeFileAtomically(ownerKidPath, utf8(owner.kid + "\n"), 0o644)
      yield* Effect.log(`${made ? "Created" : "Found"} the owner key ${owner.kid} in ${ownerKeyPath}: move it off this machine.`).pipe(
        Effect.annotateLogs({ event: "owner_key", owner_kid: owner.kid, path: ownerKeyPath }))
      ownerKid = owner.kid
    }
    yield* upgradeOwnerKeyFile(join(options.dataDir, "owner.key"), crypto.ed25519, newSeed)
    if (!isDidKey(ownerKid)) {
      return yield* new StorageError({ operation: "owner key", detail: `${ownerKid} is not an Ed25519 did:key` })
    }

    const signingKey = (pair: KeyPair): SigningKey => ({
      publicKey: pair.publicKey,
      sign: (message) => crypto.signInBackground(pair.seed, message)
    })
    return Context.make(Signer, { log: signingKey(log.pair), policy: signingKey(policy.pair) }).pipe(
      Context.add(OwnerKey, { kid: ownerKid })
    )
  }))
