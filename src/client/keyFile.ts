// The agent key file on disk (format in agentKey.ts), mode 0600.
//   create: adapters/keys/keyFile.ts's createKeyFile, which links the new file into place,
//           so an existing key file is never overwritten, not even by a concurrent keygen;
//   read:   its readKeyFile checks the mode and that the kid is the seed's, then the agent
//           members are read strictly;
//   save:   after each accepted write, writeFileAtomically (temp file, fsync, rename, fsync
//           of the folder), so a crash leaves the old chain position or the new one, never
//           a torn file. A save is the end of a read-modify-save, which runs under the
//           file's lock (keyFileLock.ts: withKeyFileLock), so that two writes never sign one
//           seq or overwrite each other's receipts; a read that only reads takes no lock.

import { readFile, realpath, stat } from "node:fs/promises"
import { Effect, Either } from "effect"
import { utf8 } from "../domain/bytes.js"
import { writeFileAtomically } from "../adapters/fs/atomicFile.js"
import { createKeyFile, readKeyFile } from "../adapters/keys/keyFile.js"
import { agentExtras, agentKeyFromJson, agentKeyJson, generateAgentKey, type AgentKey } from "./agentKey.js"
import { crypto } from "./crypto.js"
import { ClientError, keyFileError } from "./errors.js"

const KEY_FILE_MODE = 0o600

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error))

const exists = (path: string): Promise<boolean> =>
  stat(path).then(() => true, (e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? false : Promise.reject(e)))

/** The error for a key file that is there already; under MCP it names the tool that tells which key it holds. */
const alreadyThere = (detail: string) =>
  new ClientError("key_file", detail, { mcpMessage: `${detail}: this agent has its key file already (whoami tells its key)` })

/** Writes a new key file; fails if any file already exists at the path. */
export const createAgentKeyFile = async (path: string, key: AgentKey): Promise<void> => {
  if (await exists(path)) throw alreadyThere(`${path} already exists; a key file is never overwritten`)
  const pair = { seed: key.seed, publicKey: crypto.ed25519.publicKey(key.seed), kid: key.kid }
  const created = await Effect.runPromise(Effect.either(createKeyFile(path, pair, agentExtras(key))))
  if (Either.isLeft(created)) {
    // The link that makes the file appear fails with EEXIST if another process won the race.
    throw (await exists(path).catch(() => false)) ? alreadyThere(created.left.message) : keyFileError(created.left.message)
  }
}

/**
 * `aics keygen` and the keygen tool of `aics mcp`: new Ed25519 and X25519 keys in a new key
 * file at `path` (mode 0600, never over an existing file), and what may be said of them:
 * the public keys and the chain's start, never a private key.
 */
export const makeAgentKeyFile = async (path: string) => {
  const key = generateAgentKey()
  await createAgentKeyFile(path, key)
  return { kid: key.kid, x25519: key.x25519Public, key_file: path, seq: key.seq, prev: key.prev }
}

/** Reads and checks a key file. */
export const readAgentKeyFile = async (path: string): Promise<AgentKey> => {
  if (!(await exists(path).catch(() => true))) {
    throw new ClientError("key_file", `no key file at ${path}; run "aics keygen" first or pass --key`, {
      mcpMessage: `no key file at ${path}: call the keygen tool to make this agent's key there (or start \`aics mcp\` with --key naming an existing key file)`
    })
  }
  const pair = await Effect.runPromise(Effect.either(readKeyFile(path, crypto.ed25519)))
  if (Either.isLeft(pair)) throw keyFileError(pair.left.message)
  let json: unknown
  try {
    json = JSON.parse(await readFile(path, "utf8"))
  } catch (error) {
    throw keyFileError(`${path}: ${message(error)}`)
  }
  const key = agentKeyFromJson(json, pair.right)
  if (Either.isLeft(key)) throw keyFileError(`${path}: ${key.left}`)
  // readKeyFile and this read opened the file separately: make sure both saw one key.
  if ((json as { kid?: unknown }).kid !== pair.right.kid) throw keyFileError(`${path} changed while it was read`)
  return key.right
}

/**
 * Replaces the key file durably with the key's current state. Call it under
 * withKeyFileLock, with the key read under the same lock.
 */
export const saveAgentKeyFile = async (path: string, key: AgentKey): Promise<void> => {
  // Through a symlink, the file it points to is replaced, not the link (which a rename over
  // it would turn into a separate copy): the file the lock (keyFileLock.ts) is taken on.
  const target = await realpath(path).catch(() => path)
  const saved = await Effect.runPromise(Effect.either(writeFileAtomically(target, utf8(agentKeyJson(key)), KEY_FILE_MODE)))
  if (Either.isLeft(saved)) throw keyFileError(saved.left.message)
}
