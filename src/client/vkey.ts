// The log's verifier key. It must reach the agent out of band (the operator publishes it,
// e.g. in DNS TXT `_aics.<domain>`): a key fetched from the API it is meant to check would
// let a hostile server vouch for itself. So it comes only from --vkey, --vkey-file or
// AICS_LOG_VKEY, never from the service.

import { readFile } from "node:fs/promises"
import { parseVerifierKey, type VerifierKey } from "../domain/note/verifierKey.js"
import { crypto } from "./crypto.js"
import { usageError } from "./errors.js"

export interface VkeySources {
  readonly vkey?: string | undefined
  readonly vkeyFile?: string | undefined
  readonly env?: string | undefined
}

/** The verifier key text from the first source given (flag, then file, then environment), or undefined. */
export const vkeyText = async (sources: VkeySources): Promise<string | undefined> => {
  if (sources.vkey !== undefined) return sources.vkey.trim()
  if (sources.vkeyFile !== undefined) {
    try {
      return (await readFile(sources.vkeyFile, "utf8")).trim()
    } catch (error) {
      throw usageError(`cannot read --vkey-file ${sources.vkeyFile}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  const env = sources.env?.trim()
  return env === undefined || env === "" ? undefined : env
}

/** Parses the verifier key, or fails with a usage error naming what is wrong. */
export const loadVkey = async (sources: VkeySources): Promise<VerifierKey> => {
  const text = await vkeyText(sources)
  if (text === undefined) {
    throw usageError("the log's verifier key is needed: pass --vkey, --vkey-file or set AICS_LOG_VKEY (get it out of band, never from the API)")
  }
  const key = parseVerifierKey(crypto.sha256, text)
  if (key === undefined) throw usageError(`not an Ed25519 signed-note verifier key: ${JSON.stringify(text)}`)
  return key
}
