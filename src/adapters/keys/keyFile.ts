// Ed25519 key files: JSON `{"type":"ed25519","kid":<did:key>,"seed":<U64 of the 32-byte seed>}`,
// mode 0600 in a folder of mode 0700. A key file is created once and never rewritten: it
// is written to a temporary name, fsynced, linked into place (link fails if the name
// exists, so two starts cannot both create a key), and the folder is fsynced.

import { constants } from "node:fs"
import { chmod, link, mkdir, open, readFile, rm, stat } from "node:fs/promises"
import { dirname } from "node:path"
import { Effect } from "effect"
import type { Ed25519 } from "../../domain/crypto.js"
import { utf8 } from "../../domain/bytes.js"
import { decodeU64, encodeU64 } from "../../domain/encoding.js"
import { didKeyFromPublicKey } from "../../domain/identity/didKey.js"
import { StorageError } from "../../ports/StorageError.js"
import { syncFolder, writeFully } from "../fs/fileIo.js"

export interface KeyPair {
  readonly seed: Uint8Array
  readonly publicKey: Uint8Array
  readonly kid: string
}

const fail = (operation: string, path: string, cause: unknown) =>
  new StorageError({ operation, detail: `${path}: ${cause instanceof Error ? cause.message : String(cause)}`, cause })

export const keyPairOf = (ed25519: Ed25519, seed: Uint8Array): KeyPair => {
  const publicKey = ed25519.publicKey(seed)
  return { seed, publicKey, kid: didKeyFromPublicKey(publicKey) }
}

/** Reads a key file, checking its mode and that the kid matches the seed. */
export const readKeyFile = (path: string, ed25519: Ed25519) =>
  Effect.tryPromise({
    try: async () => {
      const info = await stat(path)
      if (info.isDirectory()) throw new Error("this is a folder, not a key file")
      if ((info.mode & 0o077) !== 0) {
        throw new Error(`key file is readable by others (mode ${(info.mode & 0o777).toString(8)}); run chmod 600`)
      }
      let json: unknown
      try {
        json = JSON.parse(await readFile(path, "utf8"))
      } catch {
        throw new Error("not a key file: it is not JSON")
      }
      const record = json as { type?: unknown; seed?: unknown; kid?: unknown }
      const seed = typeof record.seed === "string" ? decodeU64(record.seed) : undefined
      if (record.type !== "ed25519" || seed === undefined || seed.length !== 32) {
        throw new Error("not an ed25519 key file")
      }
      const pair = keyPairOf(ed25519, seed)
      if (record.kid !== pair.kid) throw new Error("the kid does not match the seed")
      return pair
    },
    catch: (cause) => fail("read key file", path, cause)
  })

/** Writes a new key file durably; fails if one already exists at the path. */
export const createKeyFile = (path: string, pair: KeyPair, extra: Record<string, unknown> = {}) =>
  Effect.tryPromise({
    try: async () => {
      const folder = dirname(path)
      await mkdir(folder, { recursive: true, mode: 0o700 })
      const temp = `${path}.${process.pid}.tmp`
      const body = JSON.stringify({ type: "ed25519", kid: pair.kid, seed: encodeU64(pair.seed), ...extra }, null, 2) + "\n"
      const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o600)
      try {
        await writeFully(handle, utf8(body), 0)
        await handle.sync()
      } finally {
        await handle.close()
      }
      await chmod(temp, 0o600)
      try {
        await link(temp, path)
      } finally {
        await rm(temp, { force: true })
      }
      await syncFolder(folder)
    },
    catch: (cause) => fail("create key file", path, cause)
  })

/** Whether a file exists at the path. */
export const fileExists = (path: string) =>
  Effect.tryPromise({
    try: () => stat(path).then(() => true, (e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") return false
      throw e
    }),
    catch: (cause) => fail("stat", path, cause)
  })

/** Reads the key file at the path, or creates it from fresh randomness when it is missing. */
export const loadOrCreateKeyFile = (path: string, ed25519: Ed25519, randomSeed: Effect.Effect<Uint8Array>) =>
  Effect.gen(function*() {
    if (yield* fileExists(path)) return { pair: yield* readKeyFile(path, ed25519), created: false }
    const pair = keyPairOf(ed25519, yield* randomSeed)
    yield* createKeyFile(path, pair)
    return { pair, created: true }
  })
