// The text gate from the agent library's side (docs/protocol.md section 17): what an agent
// that holds its key types into the gate. A complete signed request as one line to paste
// (the gate submits it as POST /v2/entries would), and the signature the gate asks for
// after `challenge <text>` or `sign <text>`.

import { utf8 } from "../domain/bytes.js"
import { encodeU64 } from "../domain/encoding.js"
import type { AgentKey } from "./agentKey.js"
import { crypto } from "./crypto.js"
import { buildEnvelope } from "./envelope.js"
import type { EntryDraft } from "./payloads.js"

/**
 * One line of JSON `{envelope, body}`: the draft signed by the key at its chain position.
 * Once the gate accepts it, advance the key with advanceChain and the printed receipt.
 */
export const gateLine = (key: AgentKey, origin: string, draft: EntryDraft, nowSeconds = Math.floor(Date.now() / 1000)): string =>
  JSON.stringify({
    envelope: buildEnvelope(key, origin, draft.type, draft.payload, nowSeconds),
    body: draft.body === null ? null : encodeU64(draft.body)
  })

/** The reply to the gate's `challenge <text>` or `sign <text>`: U64 of the key's Ed25519 signature of the text's UTF-8. */
export const signGateText = (key: AgentKey, text: string): string => encodeU64(crypto.ed25519.sign(key.seed, utf8(text)))
