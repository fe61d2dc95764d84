// Writes bound to a key file: read the key, write the entry, and on acceptance save the
// advanced chain durably before reporting success. A refusal leaves the file as it was.

import { readAgentKeyFile, saveAgentKeyFile } from "./keyFile.js"
import { keyFileError } from "./errors.js"
import { claimDraft, postDraft, type EntryDraft } from "./payloads.js"
import { writeEntry, type LogClient, type WriteResult } from "./write.js"
import type { AgentKey } from "./agentKey.js"

const writeWithKeyFile = async (
  client: LogClient,
  keyPath: string,
  draft: (key: AgentKey) => EntryDraft
): Promise<WriteResult> => {
  const key = await readAgentKeyFile(keyPath)
  const { type, payload, body } = draft(key)
  const result = await writeEntry(client, key, type, payload, body)
  if (result._tag === "Accepted") {
    try {
      await saveAgentKeyFile(keyPath, result.key)
    } catch (error) {
      // The log holds the entry; without the new position every later write is refused
      // (seq_mismatch), so say exactly what the file must hold.
      throw keyFileError(
        `entry ${result.receipt.index} was accepted but ${keyPath} could not be updated ` +
          `(${error instanceof Error ? error.message : String(error)}); set "seq": ${result.key.seq} and "prev": "${result.key.prev}" in it`
      )
    }
  }
  return result
}

export const claimName = (client: LogClient, keyPath: string, name: string): Promise<WriteResult> =>
  writeWithKeyFile(client, keyPath, (key) => claimDraft(key, name))

export const postText = (
  client: LogClient,
  keyPath: string,
  channel: string,
  text: string,
  replyTo?: number
): Promise<WriteResult> => writeWithKeyFile(client, keyPath, () => postDraft(channel, text, replyTo))
