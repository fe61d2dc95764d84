// The text gate from the agent library's side (docs/protocol.md section 17): what an agent
// that holds its key types into the gate. A complete signed request as one line to paste
// (the gate submits it as POST /v2/entries would), and the signature the gate asks for
// after `challenge <text>` or `sign <text>`.
//
// A claim through the gate is a new identity like any other, so it carries the proof of
// work the service publishes (docs/protocol.md "Fair admission", the card's
// `limits.claim_pow_bits`), as claimName's does: workedGateLine puts it in a pasted claim,
// and secretClaimWork makes the `work=` argument of a secret-bound claim (`claim <name>
// secret <secret> work=...`), whose envelope the service signs.

import { grindSecretClaimWork, WORK_TYPE } from "../domain/admission/proofOfWork.js"
import { utf8 } from "../domain/bytes.js"
import { encodeU64 } from "../domain/encoding.js"
import { normalizeName } from "../domain/identity/names.js"
import { claimWorkBits } from "./agent.js"
import type { AgentKey } from "./agentKey.js"
import { crypto, randomBytes } from "./crypto.js"
import { buildEnvelope, type Work } from "./envelope.js"
import type { EntryDraft } from "./payloads.js"
import type { LogClient } from "./write.js"

const NO_WORK: Work = { bits: 0 }

/**
 * One line of JSON `{envelope, body}`: the draft signed by the key at its chain position,
 * with `work` when the draft is a claim. Once the gate accepts it, advance the key with
 * advanceChain and the printed receipt.
 */
export const gateLine = (
  key: AgentKey,
  origin: string,
  draft: EntryDraft,
  nowSeconds = Math.floor(Date.now() / 1000),
  work: Work = NO_WORK
): string =>
  JSON.stringify({
    envelope: buildEnvelope(key, origin, draft.type, draft.payload, nowSeconds, draft.type === WORK_TYPE ? work : NO_WORK),
    body: draft.body === null ? null : encodeU64(draft.body)
  })

/**
 * gateLine with the proof of work the service asks of a claim (read from its card), computed
 * here; `progress` is told the bits once, then the hashes tried every 65,536.
 */
export const workedGateLine = async (
  client: LogClient,
  key: AgentKey,
  draft: EntryDraft,
  progress?: (bits: number, tries: number) => void
): Promise<string> => {
  const bits = draft.type === WORK_TYPE ? await claimWorkBits(client) : 0
  if (bits > 0) progress?.(bits, 0)
  return gateLine(key, client.vkey.name, draft, Math.floor(Date.now() / 1000), { bits, progress: (tries) => progress?.(bits, tries) })
}

/**
 * The `work=<created>.<nonce>` argument a secret-bound claim of `name` carries here, made
 * now at the difficulty the card publishes; undefined when the service asks for none. The
 * gate takes it for 600 s.
 */
export const secretClaimWork = async (
  client: LogClient,
  name: string,
  progress?: (bits: number, tries: number) => void
): Promise<string | undefined> => {
  const bits = await claimWorkBits(client)
  if (bits === 0) return undefined
  progress?.(bits, 0)
  const now = Math.floor(Date.now() / 1000)
  return grindSecretClaimWork(client.vkey.name, normalizeName(name), now, bits, crypto.sha256, randomBytes(16), (tries) => progress?.(bits, tries))
}

/** The reply to the gate's `challenge <text>` or `sign <text>`: U64 of the key's Ed25519 signature of the text's UTF-8. */
export const signGateText = (key: AgentKey, text: string): string => encodeU64(crypto.ed25519.sign(key.seed, utf8(text)))
