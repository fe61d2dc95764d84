import { randomBytes } from "node:crypto"
import { chmod, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, describe, expect, vi } from "vitest"
import { generateAgentKey } from "../../../src/client/agentKey.js"
import { createAgentKeyFile, readAgentKeyFile } from "../../../src/client/keyFile.js"
import { it } from "@effect/vitest"
import { Effect, Layer, Logger } from "effect"
import { FileKeysLive, OwnerKidRecord } from "../../../src/adapters/keys/FileKeys.js"
import { LogCreationStatus, type LogCreation } from "../../../src/app/LogCreation.js"
import { StartupProblem } from "../../../src/adapters/os/startupChecks.js"
import { utf8 } from "../../../src/domain/bytes.js"
import { LogStore } from "../../../src/ports/LogStore.js"
import type { StorageError } from "../../../src/ports/StorageError.js"
import { NobleCryptoLive } from "../../../src/adapters/crypto/nobleCrypto.js"
import { nodeCrypto, NodeCryptoLive } from "../../../src/adapters/crypto/nodeCrypto.js"
import { NodeEntropyLive } from "../../../src/adapters/crypto/nodeEntropy.js"
import { createKeyFile, keyPairOf } from "../../../src/adapters/keys/keyFile.js"
import { MemorySignerLive } from "../../../src/adapters/keys/MemorySigner.js"
import { fromHex, toHex } from "../../../src/domain/bytes.js"
import { didKeyFromPublicKey } from "../../../src/domain/identity/didKey.js"
import type { Crypto } from "../../../src/ports/Crypto.js"
import { OwnerKey } from "../../../src/ports/OwnerKey.js"
import { Signer } from "../../../src/ports/Signer.js"
import { WitnessSigner } from "../../../src/ports/WitnessSigner.js"
import { tempDir } from "../fs/tempDir.js"
import { signerContract } from "../../ports/Signer.contract.js"

// An owner kid given up front, so the contract runs do not make (and announce) owner keys.
const operatorKid = didKeyFromPublicKey(nodeCrypto.ed25519.publicKey(new Uint8Array(32).fill(9)))

/** A log of leaf 0 only (entry bytes), or an empty one: all FileKeys reads of the log. */
const logOf = (leafZero?: Uint8Array) => Layer.succeed(LogStore, {
  size: Effect.succeed(leafZero === undefined ? 0 : 1),
  readEntries: (from: number, to: number) => Effect.succeed(leafZero === undefined ? [] : [leafZero].slice(from, to))
} as unknown as LogStore["Type"])

/** Leaf 0 as the charter writes it, as far as FileKeys reads it: a charter naming its owner. */
const charterNaming = (ownerKid: string) => utf8(JSON.stringify({ envelope: { type: "charter", payload: { owner_kid: ownerKid } } }))

/** The log a start opens its keys on, and what LogCreation.ts settled of it before the keys open. */
interface LogAtStart {
  readonly store: Layer.Layer<LogStore>
  readonly creation: LogCreation
}
/** An empty log, which this start creates (it holds the lease). */
const emptyLog: LogAtStart = { store: logOf(), creation: { _tag: "Creates", fence: { epoch: 1 }, release: Effect.void } }
/** A log whose leaf 0 is `leafZero`: there at the first read, or written by another node while this start waited. */
const logWith = (leafZero: Uint8Array, tag: "Exists" | "CreatedElsewhere" = "Exists"): LogAtStart =>
  ({ store: logOf(leafZero), creation: { _tag: tag } })

const fileKeys = (dataDir: string, ownerKid: string | undefined, crypto: Layer.Layer<Crypto> = NodeCryptoLive, at = emptyLog, sharedLog = false) =>
  FileKeysLive({ dataDir, ownerKid, sharedLog }).pipe(
    Layer.provide(Layer.merge(at.store, Layer.succeed(LogCreationStatus, at.creation))),
    Layer.provide(Layer.merge(crypto, NodeEntropyLive))
  )

for (const [name, crypto] of [["node:crypto", NodeCryptoLive], ["@noble", NobleCryptoLive]] as const) {
  signerContract(`FileKeys (${name})`, {
    fresh: Effect.map(tempDir("signer"), (dir) => fileKeys(join(dir, "data"), operatorKid, crypto)),
    durable: true
  })
  // Fresh random seeds per instance: a MemorySigner is exactly as distinct as its seeds.
  signerContract(`MemorySigner (${name})`, {
    fresh: Effect.sync(() =>
      MemorySignerLive({ log: new Uint8Array(randomBytes(32)), policy: new Uint8Array(randomBytes(32)) }).pipe(Layer.provide(crypto))
    ),
    durable: false
  })
}

const mode = (path: string) => Effect.promise(() => stat(path).then((info) => info.mode & 0o777))
const readJson = (path: string) => Effect.promise(() => readFile(path, "utf8").then((text) => JSON.parse(text) as Record<string, unknown>))
const readText = (path: string) => Effect.promise(() => readFile(path, "utf8"))
const exists = (path: string) => Effect.promise(() => stat(path).then(() => true, () => false))

/** Opens the keys and answers the signer's public keys (hex) and the owner kid. */
const startRecording = (dataDir: string, ownerKid: string | undefined, crypto?: Layer.Layer<Crypto>, log?: LogAtStart, sharedLog?: boolean) =>
  Effect.gen(function*() {
    const signer = yield* Signer
    const witness = yield* WitnessSigner
    const owner = yield* OwnerKey
    return {
      keys: { log: toHex(signer.log.publicKey), policy: toHex(signer.policy.publicKey), witness: toHex(witness.publicKey), owner: owner.kid },
      /** What main.ts runs once the charter check has passed. */
      record: (yield* OwnerKidRecord).record
    }
  }).pipe(Effect.provide(fileKeys(dataDir, ownerKid, crypto, log, sharedLog)))

const start = (dataDir: string, ownerKid: string | undefined, crypto?: Layer.Layer<Crypto>, log?: LogAtStart, sharedLog?: boolean) =>
  Effect.map(startRecording(dataDir, ownerKid, crypto, log, sharedLog), ({ keys }) => keys)

/** A logger that keeps each line's message, for the lines a start prints. */
const capturedLogs = (lines: Array<string>) =>
  Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => {
    lines.push(Array.isArray(message) ? message.map(String).join(" ") : String(message))
  }))

const failure = (dataDir: string, ownerKid: string | undefined) =>
  Effect.flip(start(dataDir, ownerKid)).pipe(
    Effect.map((error) => {
      expect(error._tag).toBe("StorageError")
      return error as StorageError
    })
  )

/** A start refused with a StartupProblem (one line, naming its variable). */
const refusal = (dataDir: string, ownerKid: string | undefined, log?: LogAtStart, sharedLog?: boolean) =>
  Effect.flip(start(dataDir, ownerKid, undefined, log, sharedLog)).pipe(
    Effect.map((error) => {
      expect(error._tag).toBe("StartupProblem")
      return error as StartupProblem
    })
  )

/** Every file under a folder, with its bytes: what a refused start must leave as it was. */
const snapshot = (dir: string) =>
  Effect.promise(async () => {
    const files: Record<string, string> = {}
    for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) files[join(entry.parentPath, entry.name)] = await readFile(join(entry.parentPath, entry.name), "utf8")
    }
    return files
  })

describe("FileKeys", () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it.scoped("keeps its keys in keys/ (0700) as log.key, policy.key and witness.key (0600), named by their did:key", () =>
    Effect.gen(function*() {
      const dataDir = join(yield* tempDir("filekeys"), "data")
      const keys = yield* start(dataDir, operatorKid)
      expect(new Set([keys.log, keys.policy, keys.witness]).size).toBe(3)
      expect(yield* mode(join(dataDir, "keys"))).toBe(0o700)
      for (const [file, publicKey] of [["log.key", keys.log], ["policy.key", keys.policy], ["witness.key", keys.witness]] as const) {
        const path = join(dataDir, "keys", file)
        expect(yield* mode(path)).toBe(0o600)
        const json = yield* readJson(path)
        expect(json.type).toBe("ed25519")
        expect(json.kid).toBe(didKeyFromPublicKey(fromHex(publicKey)!))
      }
    }))

  it.scoped("reopens without rewriting the key files, also under the other Crypto adapter", () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDir("filekeys")
      const first = yield* start(dataDir, operatorKid)
      const logFile = yield* readText(join(dataDir, "keys", "log.key"))
      const before = (yield* Effect.promise(() => stat(join(dataDir, "keys", "log.key")))).mtimeMs
      expect(yield* start(dataDir, operatorKid, NobleCryptoLive)).toEqual(first)
      expect(yield* start(dataDir, undefined)).toEqual(first)
      expect(yield* readText(join(dataDir, "keys", "log.key"))).toBe(logFile)
      expect((yield* Effect.promise(() => stat(join(dataDir, "keys", "log.key")))).mtimeMs).toBe(before)
    }))

  it.scoped("without an owner kid, makes owner.key (0600) and owner.kid, then reuses them", () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDir("filekeys")
      const lines: Array<string> = []
      const first = yield* start(dataDir, undefined).pipe(Effect.provide(capturedLogs(lines)))
      expect(lines).toHaveLength(1)
      expect(lines[0]).toContain(first.owner)
      expect(yield* mode(join(dataDir, "owner.key"))).toBe(0o600)
      const ownerKey = yield* readJson(join(dataDir, "owner.key"))
      expect(ownerKey.kid).toBe(first.owner)
      // In the format `aics admin` reads: the agent key file, at the start of its chain.
      const agentKey = yield* Effect.promise(() => readAgentKeyFile(join(dataDir, "owner.key")))
      expect(agentKey).toMatchObject({ kid: first.owner, seq: 0, prev: null, origin: null })
      expect((yield* readText(join(dataDir, "owner.kid"))).trim()).toBe(first.owner)
      expect(first.owner).not.toBe(didKeyFromPublicKey(fromHex(first.log)!))
      // Later starts reuse it, with or without the kid given (as AICS_OWNER_KID would).
      expect(yield* start(dataDir, undefined)).toEqual(first)
      expect(yield* start(dataDir, first.owner).pipe(Effect.provide(capturedLogs(lines)))).toEqual(first)
      expect(lines).toHaveLength(1)
      // A different owner is refused, naming the variable and owner.kid: no log yet, but
      // an earlier first start chose this owner (and may have made its key).
      const conflict = yield* refusal(dataDir, operatorKid)
      expect(conflict.variable).toBe("AICS_OWNER_KID")
      expect(conflict.message).toBe(`AICS_OWNER_KID is ${operatorKid}, but ${join(dataDir, "owner.kid")} names ${first.owner}, written by an earlier first start that stopped before leaf 0: set AICS_OWNER_KID to ${first.owner}, or delete ${join(dataDir, "owner.kid")} (and owner.key, if that start made it) to start the log with ${operatorKid}`)
      expect((yield* readText(join(dataDir, "owner.kid"))).trim()).toBe(first.owner)
    }))

  it.scoped("with an owner kid, writes owner.kid and makes no owner key", () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDir("filekeys")
      const first = yield* start(dataDir, operatorKid)
      expect(first.owner).toBe(operatorKid)
      expect((yield* readText(join(dataDir, "owner.kid"))).trim()).toBe(operatorKid)
      expect(yield* exists(join(dataDir, "owner.key"))).toBe(false)
      expect(yield* start(dataDir, undefined)).toEqual(first)
      const other = didKeyFromPublicKey(nodeCrypto.ed25519.publicKey(new Uint8Array(32).fill(10)))
      expect((yield* refusal(dataDir, other)).variable).toBe("AICS_OWNER_KID")
    }))

  it.scoped("makes no key when it refuses the owner of the log it would create", () =>
    Effect.gen(function*() {
      // owner.kid of an earlier first start that stopped before it made its keys, and another AICS_OWNER_KID.
      const dataDir = yield* tempDir("filekeys")
      const earlier = didKeyFromPublicKey(nodeCrypto.ed25519.publicKey(new Uint8Array(32).fill(14)))
      yield* Effect.promise(() => writeFile(join(dataDir, "owner.kid"), earlier + "\n"))
      expect((yield* refusal(dataDir, operatorKid)).variable).toBe("AICS_OWNER_KID")
      expect(yield* exists(join(dataDir, "keys"))).toBe(false)
    }))

  it.scoped("refuses an owner kid that is not a did:key, and remembers nothing of it", () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDir("filekeys")
      const refused = yield* failure(dataDir, "did:key:not-a-key")
      expect(refused.operation).toBe("owner key")
      expect(yield* exists(join(dataDir, "owner.kid"))).toBe(false)
      // The corrected value then works.
      expect((yield* start(dataDir, operatorKid)).owner).toBe(operatorKid)
    }))

  it.scoped("after a start that stopped between owner.key and owner.kid, names the owner.key it made", () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDir("filekeys")
      const owner = keyPairOf(nodeCrypto.ed25519, new Uint8Array(32).fill(11))
      yield* createKeyFile(join(dataDir, "owner.key"), owner, { note: "left by an interrupted start" })
      const lines: Array<string> = []
      expect((yield* start(dataDir, undefined).pipe(Effect.provide(capturedLogs(lines)))).owner).toBe(owner.kid)
      expect((yield* readText(join(dataDir, "owner.kid"))).trim()).toBe(owner.kid)
      expect(lines.join("\n")).toContain(`Found the owner key ${owner.kid}`)
    }))

  it.scoped("rewrites an owner.key of the earlier format (type, kid, seed only) so that aics admin reads it", () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDir("filekeys")
      const owner = keyPairOf(nodeCrypto.ed25519, new Uint8Array(32).fill(12))
      yield* createKeyFile(join(dataDir, "owner.key"), owner, { note: "an earlier version's owner key" })
      yield* Effect.promise(() => writeFile(join(dataDir, "owner.kid"), owner.kid + "\n"))
      yield* Effect.promise(() => expect(readAgentKeyFile(join(dataDir, "owner.key"))).rejects.toThrow(/x25519/))
      const lines: Array<string> = []
      expect((yield* start(dataDir, undefined).pipe(Effect.provide(capturedLogs(lines)))).owner).toBe(owner.kid)
      expect(lines.join("\n")).toContain("Rewrote")
      const upgraded = yield* Effect.promise(() => readAgentKeyFile(join(dataDir, "owner.key")))
      expect(upgraded).toMatchObject({ kid: owner.kid, seq: 0 })
      expect(yield* mode(join(dataDir, "owner.key"))).toBe(0o600)
      // Once: the next start leaves it as it is.
      const text = yield* readText(join(dataDir, "owner.key"))
      yield* start(dataDir, undefined).pipe(Effect.provide(capturedLogs([])))
      expect(yield* readText(join(dataDir, "owner.key"))).toBe(text)
    }))

  describe("on a log that has leaf 0", () => {
    /** A log started once without AICS_OWNER_KID (keys, owner.key, owner.kid), then leaf 0 naming that owner. */
    const existingLog = Effect.gen(function*() {
      const dataDir = yield* tempDir("filekeys")
      const first = yield* start(dataDir, undefined).pipe(Effect.provide(capturedLogs([])))
      return { dataDir, first, log: logWith(charterNaming(first.owner)) }
    })
    const kidPath = (dataDir: string) => join(dataDir, "owner.kid")
    const keyPath = (dataDir: string) => join(dataDir, "owner.key")

    it.scoped("takes the owner from leaf 0 when owner.kid is missing, makes no owner key, and writes owner.kid only when told", () =>
      Effect.gen(function*() {
        const { dataDir, first, log } = yield* existingLog
        const away = join(yield* tempDir("owner-away"), "owner.key")
        yield* Effect.promise(() => rename(keyPath(dataDir), away))
        yield* Effect.promise(() => rm(kidPath(dataDir)))
        const before = yield* snapshot(dataDir)
        const lines: Array<string> = []
        const opened = yield* startRecording(dataDir, undefined, undefined, log).pipe(Effect.provide(capturedLogs(lines)))
        expect(opened.keys).toEqual(first)
        // Nothing yet: the charter check has not passed.
        expect(yield* snapshot(dataDir)).toEqual(before)
        expect(lines).toEqual([])
        yield* opened.record.pipe(Effect.provide(capturedLogs(lines)))
        expect((yield* readText(kidPath(dataDir))).trim()).toBe(first.owner)
        expect(yield* exists(keyPath(dataDir))).toBe(false)
        expect(lines).toEqual([`${kidPath(dataDir)} was missing: wrote it from leaf 0, which names the owner ${first.owner}.`])
        // AICS_OWNER_KID naming leaf 0's owner starts it too; the next start writes nothing.
        yield* Effect.promise(() => rm(kidPath(dataDir)))
        const given = yield* startRecording(dataDir, first.owner, undefined, log).pipe(Effect.provide(capturedLogs([])))
        yield* given.record.pipe(Effect.provide(capturedLogs([])))
        expect((yield* readText(kidPath(dataDir))).trim()).toBe(first.owner)
        const again: Array<string> = []
        yield* Effect.flatMap(startRecording(dataDir, undefined, undefined, log), ({ record }) => record).pipe(Effect.provide(capturedLogs(again)))
        expect(again).toEqual([])
      }))

    it.scoped("refuses an AICS_OWNER_KID that is not leaf 0's owner, naming the variable, and writes nothing", () =>
      Effect.gen(function*() {
        const { dataDir, first, log } = yield* existingLog
        yield* Effect.promise(() => rm(kidPath(dataDir)))
        const before = yield* snapshot(dataDir)
        const refused = yield* refusal(dataDir, operatorKid, log)
        expect(refused.variable).toBe("AICS_OWNER_KID")
        expect(refused.message).toBe(`AICS_OWNER_KID is ${operatorKid}, but leaf 0 of the log in ${dataDir} names the owner ${first.owner}, fixed for the life of the log: set AICS_OWNER_KID to ${first.owner}, or leave it unset`)
        expect(yield* snapshot(dataDir)).toEqual(before)
      }))

    it.scoped("refuses an owner.kid or owner.key of another owner, naming the file, whatever AICS_OWNER_KID says", () =>
      Effect.gen(function*() {
        const { dataDir, first, log } = yield* existingLog
        // What an earlier version's start left: a new owner key and its kid.
        const stray = keyPairOf(nodeCrypto.ed25519, new Uint8Array(32).fill(13))
        yield* Effect.promise(() => rm(keyPath(dataDir)))
        yield* createKeyFile(keyPath(dataDir), stray)
        yield* Effect.promise(() => writeFile(kidPath(dataDir), stray.kid + "\n"))
        const before = yield* snapshot(dataDir)
        for (const given of [undefined, first.owner]) {
          const refused = yield* refusal(dataDir, given, log)
          expect(refused.variable).toBe("AICS_DATA_DIR")
          expect(refused.message).toBe(`${kidPath(dataDir)} names "${stray.kid}" and ${keyPath(dataDir)} is the key of ${stray.kid}, but leaf 0 of the log in ${dataDir} names the owner ${first.owner}, fixed for the life of the log: move those files out of ${dataDir} (the start writes owner.kid again from leaf 0)`)
        }
        expect(yield* snapshot(dataDir)).toEqual(before)
        // owner.kid alone, once owner.key is gone.
        yield* Effect.promise(() => rm(keyPath(dataDir)))
        expect((yield* refusal(dataDir, undefined, log)).message).toMatch(new RegExp(`^${kidPath(dataDir)} names "${stray.kid}", but leaf 0 .* move that file out of`))
        yield* Effect.promise(() => rm(kidPath(dataDir)))
        expect((yield* start(dataDir, undefined, undefined, log)).owner).toBe(first.owner)
      }))

    it.scoped("refuses to make a log or policy key the log does not have, and writes nothing", () =>
      Effect.gen(function*() {
        const { dataDir, log } = yield* existingLog
        for (const file of ["log.key", "policy.key"]) {
          const path = join(dataDir, "keys", file)
          const kept = yield* readText(path)
          yield* Effect.promise(() => rm(path))
          const before = yield* snapshot(dataDir)
          const refused = yield* refusal(dataDir, undefined, log)
          expect(refused.variable).toBe("AICS_DATA_DIR")
          expect(refused.message).toMatch(new RegExp(`^${path} is missing, but the log in ${dataDir} has its leaf 0, .*restore keys/ from your backup`))
          expect(yield* snapshot(dataDir)).toEqual(before)
          yield* Effect.promise(() => writeFile(path, kept, { mode: 0o600 }))
        }
      }))

    it.scoped("refuses to make a witness key the log does not have, writes nothing, and takes one made on purpose", () =>
      Effect.gen(function*() {
        const { dataDir, first, log } = yield* existingLog
        const path = join(dataDir, "keys", "witness.key")
        yield* Effect.promise(() => rm(path))
        const before = yield* snapshot(dataDir)
        const alone = yield* refusal(dataDir, undefined, log)
        expect(alone.variable).toBe("AICS_DATA_DIR")
        expect(alone.message).toBe(`${path} is missing, but the log in ${dataDir} has its leaf 0: only the start that creates a log makes its witness key, so that every start cosigns under the one key the logs it witnesses trust and its card names: restore keys/witness.key from your backup (AICS_DATA_DIR); to give this witness a new identity instead, make a key there with \`aics keygen --key ${path}\` and give its witness.vkey to the operators of the logs it witnesses (docs/operations.md "Two operators witness each other")`)
        // Several nodes on one database: the key is on the others.
        const shared = yield* refusal(dataDir, undefined, log, true)
        expect(shared.message).toContain("so that every start and every node cosigns under the one key")
        expect(shared.message).toContain(": copy keys/witness.key from another node of this log or restore it from your backup (AICS_DATA_DIR);")
        expect(shared.message).toContain(", copy it to every node and give its witness.vkey")
        expect(yield* snapshot(dataDir)).toEqual(before)
        // What the refusal says to do for a new identity: `aics keygen --key <path>`.
        const made = generateAgentKey()
        yield* Effect.promise(() => createAgentKeyFile(path, made))
        const keys = yield* start(dataDir, undefined, undefined, log)
        expect(keys).toEqual({ ...first, witness: toHex(nodeCrypto.ed25519.publicKey(made.seed)) })
      }))
  })

  describe("on a log another node created while this start waited for the lease", () => {
    it.scoped("makes nothing, and says which keys to copy from where", () =>
      Effect.gen(function*() {
        const dataDir = join(yield* tempDir("filekeys"), "data")
        const winner = didKeyFromPublicKey(nodeCrypto.ed25519.publicKey(new Uint8Array(32).fill(15)))
        const raced = logWith(charterNaming(winner), "CreatedElsewhere")
        const refused = yield* refusal(dataDir, undefined, raced, true)
        expect(refused.variable).toBe("AICS_DATA_DIR")
        const keysDir = join(dataDir, "keys")
        expect(refused.message).toBe(`${join(keysDir, "log.key")}, ${join(keysDir, "policy.key")} and ${join(keysDir, "witness.key")} are missing: another node created the log in ${dataDir} first (it wrote leaf 0 while this start waited for the sequencing lease), with keys of its own, and this start wrote nothing: copy keys/ (log.key, policy.key and witness.key) from that node into ${keysDir} (AICS_DATA_DIR), then start again`)
        expect(yield* exists(dataDir)).toBe(false)
      }))
  })

  it.scoped("refuses a key file that others can read", () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDir("filekeys")
      yield* start(dataDir, operatorKid)
      yield* Effect.promise(() => chmod(join(dataDir, "keys", "policy.key"), 0o644))
      const refused = yield* failure(dataDir, operatorKid)
      expect(refused.detail).toContain("chmod 600")
    }))

  it.scoped("refuses a key file whose kid does not match its seed", () =>
    Effect.gen(function*() {
      const dataDir = yield* tempDir("filekeys")
      yield* start(dataDir, operatorKid)
      const path = join(dataDir, "keys", "log.key")
      const json = yield* readJson(path)
      yield* Effect.promise(() => writeFile(path, JSON.stringify({ ...json, kid: operatorKid }), { mode: 0o600 }))
      yield* failure(dataDir, operatorKid)
    }))
})

describe("MemorySigner", () => {
  // RFC 8032 section 7.1, TEST 1 and TEST 2.
  const seed1 = fromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")!
  const seed2 = fromHex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb")!
  const keysOf = (seeds: { log: Uint8Array; policy: Uint8Array }) =>
    Effect.provide(Signer, MemorySignerLive(seeds).pipe(Layer.provide(NodeCryptoLive)))

  it.effect("is the keys of its seeds", () =>
    Effect.gen(function*() {
      const keys = yield* keysOf({ log: seed1, policy: seed2 })
      expect(toHex(keys.log.publicKey)).toBe("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
      expect(toHex(keys.policy.publicKey)).toBe("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c")
      expect(toHex(yield* keys.policy.sign(Uint8Array.of(0x72)))).toBe(
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
      )
    }))

  it.effect("keeps its own copy of the seeds", () =>
    Effect.gen(function*() {
      const log = seed1.slice()
      const layer = MemorySignerLive({ log, policy: seed2 }).pipe(Layer.provide(NodeCryptoLive))
      log.fill(0)
      const keys = yield* Effect.provide(Signer, layer)
      expect(toHex(keys.log.publicKey)).toBe("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
    }))

  it.effect("refuses equal seeds and seeds that are not 32 bytes", () =>
    Effect.gen(function*() {
      for (const seeds of [{ log: seed1, policy: seed1.slice() }, { log: seed1.subarray(1), policy: seed2 }]) {
        const exit = yield* Effect.exit(keysOf(seeds))
        expect(exit._tag).toBe("Failure")
      }
    }))
})
