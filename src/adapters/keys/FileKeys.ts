// The service's key material on the filesystem (<data dir>/keys, mode 0700):
//   keys/log.key      log key (checkpoints, receipts), mode 0600
//   keys/policy.key   policy key (leaf 0, service-authored leaves, the card), mode 0600
//   keys/witness.key  witness key (cosignatures of the logs it witnesses, docs/protocol.md 21), mode 0600
//   owner.kid         the owner's did:key: the only owner material the service reads
//   owner.key         made on first start when the operator brought no AICS_OWNER_KID:
//                     the owner's private key, for the operator to move off this machine
// Only the start that creates the log makes keys: the one that holds the sequencing lease on
// the empty log (LogCreation.ts), which makes what is missing, durably, before it writes leaf
// 0 (Charter.ts); a start that stopped before leaf 0 left keys its next start reuses. Any other
// start makes no key at all. Leaf 0 fixed the log key, the policy key and the owner for the
// life of the log, and every node and every restart must cosign under one witness key (the
// card names it, the logs it witnesses trust it, and on PostgreSQL the nodes share its
// state): so a missing keys/*.key is refused (copy it from another node, or restore it), and
// the owner is the one leaf 0 names, whatever owner.kid, owner.key or AICS_OWNER_KID say; a
// missing owner.kid is written again from leaf 0, once the charter check has passed
// (OwnerKidRecord, run by src/main.ts), so a start refused there writes nothing.

import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { Context, Effect, Layer, Option } from "effect"
import { LogCreationStatus, type LogCreation } from "../../app/LogCreation.js"
import { agentExtras, agentKeyOf } from "../../client/agentKey.js"
import { fromUtf8, utf8 } from "../../domain/bytes.js"
import { isDidKey } from "../../domain/identity/didKey.js"
import { Crypto } from "../../ports/Crypto.js"
import { Entropy } from "../../ports/Entropy.js"
import { LogStore } from "../../ports/LogStore.js"
import { OwnerKey } from "../../ports/OwnerKey.js"
import { Signer, type SigningKey } from "../../ports/Signer.js"
import { StorageError } from "../../ports/StorageError.js"
import { WitnessSigner } from "../../ports/WitnessSigner.js"
import { writeFileAtomically } from "../fs/atomicFile.js"
import { StartupProblem } from "../os/startupChecks.js"
import { createKeyFile, fileExists, keyPairOf, loadOrCreateKeyFile, readKeyFile, type KeyPair } from "./keyFile.js"

export interface FileKeysOptions {
  readonly dataDir: string
  /** The operator's own owner key; when absent and no owner.kid exists, a new log makes one. */
  readonly ownerKid: string | undefined
  /** How the refusals name the log: "the log in <data dir>" when absent (ServiceConfig.ts logLocation). */
  readonly logName?: string | undefined
  /** Whether other nodes share the log (PostgreSQL): a missing key can then be copied from one of them. */
  readonly sharedLog?: boolean | undefined
}

/**
 * What a start on an existing log writes of the owner, run once the charter check has passed
 * (src/main.ts), so that a start refused there (another origin, keys of another log) leaves
 * the data folder as it found it: owner.kid from leaf 0 when it was missing, and an earlier
 * version's owner.key in the format aics admin reads. Nothing on a new log's start, which
 * writes them itself.
 */
export class OwnerKidRecord extends Context.Tag("aics/OwnerKidRecord")<OwnerKidRecord, {
  readonly record: Effect.Effect<void, StorageError>
}>() {}

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

/**
 * The owner_kid of leaf 0 (the log has it: LogCreation.ts). Leaf 0 is read as the charter
 * check reads it (src/app/Charter.ts), which then checks the rest of it against this start.
 */
const leafZeroOwner = (logName: string) =>
  Effect.gen(function*() {
    const store = yield* LogStore
    const [bytes] = yield* store.readEntries(0, 1)
    let ownerKid: unknown
    try {
      const leaf = JSON.parse(fromUtf8(bytes!)) as { envelope?: { type?: unknown; payload?: { owner_kid?: unknown } } }
      ownerKid = leaf.envelope?.type === "charter" ? leaf.envelope.payload?.owner_kid : undefined
    } catch {
      ownerKid = undefined
    }
    if (typeof ownerKid !== "string" || !isDidKey(ownerKid)) {
      return yield* new StartupProblem({
        variable: "AICS_DATA_DIR",
        message: `leaf 0 of ${logName} is not a charter naming its owner: this is not the data of an AICS log (AICS_DATA_DIR, AICS_DATABASE_URL)`
      })
    }
    return ownerKid
  })

/** The key files under keys/, in the order a refusal lists them. */
const KEY_FILES = ["log.key", "policy.key", "witness.key"] as const

/** "a", "a and b", "a, b and c" */
const listed = (items: ReadonlyArray<string>) =>
  items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`

/**
 * The one line of a start, on a log that has leaf 0, that finds key files missing: no start
 * but the one that creates the log makes a key (header).
 */
const missingKeysMessage = (options: {
  readonly creation: LogCreation
  readonly missing: ReadonlyArray<string>
  readonly keysDir: string
  readonly logName: string
  readonly sharedLog: boolean
}) => {
  const { creation, missing, keysDir, logName, sharedLog } = options
  const paths = listed(missing.map((file) => join(keysDir, file)))
  const are = missing.length === 1 ? "is" : "are"
  if (creation._tag === "CreatedElsewhere") {
    return `${paths} ${are} missing: another node created ${logName} first (it wrote leaf 0 while this start waited for the sequencing lease), with keys of its own, and this start wrote nothing: copy keys/ (${listed(KEY_FILES)}) from that node into ${keysDir} (AICS_DATA_DIR), then start again`
  }
  const copy = (what: string) => sharedLog ? `copy ${what} from another node of this log or restore it from your backup` : `restore ${what} from your backup`
  if (missing.length === 1 && missing[0] === "witness.key") {
    const path = join(keysDir, "witness.key")
    return `${path} is missing, but ${logName} has its leaf 0: only the start that creates a log makes its witness key, so that every start${sharedLog ? " and every node" : ""} cosigns under the one key the logs it witnesses trust and its card names: ${copy("keys/witness.key")} (AICS_DATA_DIR); to give this witness a new identity instead, make a key there with \`aics keygen --key ${path}\`${sharedLog ? ", copy it to every node" : ""} and give its witness.vkey to the operators of the logs it witnesses (docs/operations.md "Two operators witness each other")`
  }
  return `${paths} ${are} missing, but ${logName} has its leaf 0, which fixed the log and policy keys for the life of the log: ${copy("keys/")} (AICS_DATA_DIR); a new key could never sign for this log`
}

export const FileKeysLive = (options: FileKeysOptions) =>
  Layer.effectContext(Effect.gen(function*() {
    const crypto = yield* Crypto
    const entropy = yield* Entropy
    const keysDir = join(options.dataDir, "keys")
    const logName = options.logName ?? `the log in ${options.dataDir}`
    const newSeed = entropy.randomBytes(32)
    const ownerKidPath = join(options.dataDir, "owner.kid")
    const ownerKeyPath = join(options.dataDir, "owner.key")

    // Checked before anything is written: a mistyped AICS_OWNER_KID saved to owner.kid
    // would make every later start, with the corrected value, fail as a conflict.
    if (options.ownerKid !== undefined && !isDidKey(options.ownerKid)) {
      return yield* new StorageError({ operation: "owner key", detail: `AICS_OWNER_KID ${options.ownerKid} is not an Ed25519 did:key` })
    }

    // Whether this start creates the log (LogCreation.ts), before any key is read or made: only
    // that start makes keys, and it holds the lease while it does.
    const creation = yield* LogCreationStatus
    const leafZero = creation._tag === "Creates" ? Option.none<string>() : Option.some(yield* leafZeroOwner(logName))
    if (Option.isSome(leafZero)) {
      const missing: Array<string> = []
      for (const file of KEY_FILES) if (!(yield* fileExists(join(keysDir, file)))) missing.push(file)
      if (missing.length > 0) {
        return yield* new StartupProblem({
          variable: "AICS_DATA_DIR",
          message: missingKeysMessage({ creation, missing, keysDir, logName, sharedLog: options.sharedLog ?? false })
        })
      }
    }

    let ownerKid: string
    let record: Effect.Effect<void, StorageError> = Effect.void
    if (Option.isSome(leafZero)) {
      // An existing log: its owner is leaf 0's, and no start makes another.
      ownerKid = leafZero.value
      if (options.ownerKid !== undefined && options.ownerKid !== ownerKid) {
        return yield* new StartupProblem({
          variable: "AICS_OWNER_KID",
          message: `AICS_OWNER_KID is ${options.ownerKid}, but leaf 0 of ${logName} names the owner ${ownerKid}, fixed for the life of the log: set AICS_OWNER_KID to ${ownerKid}, or leave it unset`
        })
      }
      // Files of another owner (an earlier start's, or another log's) are named, never used.
      const strays: Array<string> = []
      if (yield* fileExists(ownerKidPath)) {
        const named = (yield* readText(ownerKidPath)).trim()
        if (named !== ownerKid) strays.push(`${ownerKidPath} names ${JSON.stringify(named)}`)
      }
      const ownerKeyFile = (yield* fileExists(ownerKeyPath)) ? yield* Effect.option(readKeyFile(ownerKeyPath, crypto.ed25519)) : Option.none()
      if (Option.isSome(ownerKeyFile) && ownerKeyFile.value.kid !== ownerKid) strays.push(`${ownerKeyPath} is the key of ${ownerKeyFile.value.kid}`)
      if (strays.length > 0) {
        return yield* new StartupProblem({
          variable: "AICS_DATA_DIR",
          message: `${strays.join(" and ")}, but leaf 0 of ${logName} names the owner ${ownerKid}, fixed for the life of the log: move ${strays.length === 1 ? "that file" : "those files"} out of ${options.dataDir} (the start writes owner.kid again from leaf 0)`
        })
      }
      // Written once the charter check has passed (OwnerKidRecord): nothing before.
      const missing = !(yield* fileExists(ownerKidPath))
      const kid = ownerKid
      record = Effect.gen(function*() {
        if (missing) {
          yield* writeFileAtomically(ownerKidPath, utf8(kid + "\n"), 0o644)
          yield* Effect.log(`${ownerKidPath} was missing: wrote it from leaf 0, which names the owner ${kid}.`).pipe(
            Effect.annotateLogs({ event: "owner_kid_restored", owner_kid: kid, path: ownerKidPath }))
        }
        yield* upgradeOwnerKeyFile(ownerKeyPath, crypto.ed25519, newSeed)
      })
    } else if (yield* fileExists(ownerKidPath)) {
      // An empty log whose owner.kid an earlier first start wrote before it stopped.
      ownerKid = (yield* readText(ownerKidPath)).trim()
      if (options.ownerKid !== undefined && options.ownerKid !== ownerKid) {
        return yield* new StartupProblem({
          variable: "AICS_OWNER_KID",
          message: `AICS_OWNER_KID is ${options.ownerKid}, but ${ownerKidPath} names ${ownerKid}, written by an earlier first start that stopped before leaf 0: set AICS_OWNER_KID to ${ownerKid}, or delete ${ownerKidPath} (and owner.key, if that start made it) to start the log with ${options.ownerKid}`
        })
      }
    } else if (options.ownerKid !== undefined) {
      ownerKid = options.ownerKid
      yield* writeFileAtomically(ownerKidPath, utf8(ownerKid + "\n"), 0o644)
    } else {
      // An owner.key without owner.kid is a first start that stopped between the two
      // writes: that key is the owner, and making another would fail on the existing file.
      const made = !(yield* fileExists(ownerKeyPath))
      const owner: KeyPair = made ? keyPairOf(crypto.ed25519, yield* newSeed) : yield* readKeyFile(ownerKeyPath, crypto.ed25519)
      // The agent key-file format (src/client/agentKey.ts), so `aics admin` reads it as it is.
      if (made) yield* createKeyFile(ownerKeyPath, owner, { ...ownerKeyMembers(owner, yield* newSeed), note: OWNER_KEY_NOTE })
      yield* writeFileAtomically(ownerKidPath, utf8(owner.kid + "\n"), 0o644)
      yield* Effect.log(`${made ? "Created" : "Found"} the owner key ${owner.kid} in ${ownerKeyPath}: move it off this machine.`).pipe(
        Effect.annotateLogs({ event: "owner_key", owner_kid: owner.kid, path: ownerKeyPath }))
      ownerKid = owner.kid
    }
    if (Option.isNone(leafZero)) yield* upgradeOwnerKeyFile(ownerKeyPath, crypto.ed25519, newSeed)
    if (!isDidKey(ownerKid)) {
      return yield* new StorageError({ operation: "owner key", detail: `${ownerKid} is not an Ed25519 did:key` })
    }

    // After the owner's refusals, so that a start they refuse makes no key. On the log that has
    // leaf 0 every file is there (above), and nothing is made.
    const [log, policy, witness] = yield* Effect.forEach(KEY_FILES, (file) => loadOrCreateKeyFile(join(keysDir, file), crypto.ed25519, newSeed))
    const signingKey = (pair: KeyPair): SigningKey => ({
      publicKey: pair.publicKey,
      sign: (message) => crypto.signInBackground(pair.seed, message)
    })
    return Context.make(Signer, { log: signingKey(log!.pair), policy: signingKey(policy!.pair) }).pipe(
      Context.add(WitnessSigner, signingKey(witness!.pair)),
      Context.add(OwnerKey, { kid: ownerKid }),
      Context.add(OwnerKidRecord, { record })
    )
  }))
