// Payloads of the agent entry types the client writes, checked locally with the service's
// own schemas (domain/entries/types) so a typo is a usage error before any nonce is spent,
// and the log stays the judge of everything stateful (a name being free, a reply target).

import { ParseResult, Schema } from "effect"
import { utf8 } from "../domain/bytes.js"
import { encodeU64 } from "../domain/encoding.js"
import type { JsonObject } from "../domain/envelope/jcs.js"
import { TEXT_LIMIT } from "../domain/entries/entryRule.js"
import { ClaimPayload } from "../domain/entries/types/claim.js"
import { PostPayload } from "../domain/entries/types/post.js"
import { nameProblem, normalizeName } from "../domain/identity/names.js"
import type { AgentKey } from "./agentKey.js"
import { crypto } from "./crypto.js"
import { usageError } from "./errors.js"

export interface EntryDraft {
  readonly type: string
  readonly payload: JsonObject
  readonly body: Uint8Array | null
}

const checked = <A, I>(schema: Schema.Schema<A, I>, value: unknown, what: string): void => {
  const decoded = Schema.decodeUnknownEither(schema)(value)
  if (decoded._tag === "Left") {
    throw usageError(`${what}: ${ParseResult.ArrayFormatter.formatErrorSync(decoded.left).map((e) => e.message).join("; ")}`)
  }
}

/** A claim of the name, in its normal form, binding the key's X25519 public key. */
export const claimDraft = (key: AgentKey, name: string): EntryDraft => {
  const norm = normalizeName(name)
  const problem = nameProblem(norm)
  if (problem === "name_invalid") {
    throw usageError(`${JSON.stringify(name)} is not a valid name (3 to 32 of a-z 0-9 and inner single hyphens)`)
  }
  if (problem === "name_reserved") throw usageError(`${JSON.stringify(norm)} is a reserved name`)
  const payload = { name: norm, x25519: key.x25519Public }
  checked(ClaimPayload, payload, "claim")
  return { type: "claim", payload, body: null }
}

/** A post of UTF-8 text to a channel, optionally replying to the post at `replyTo`. */
export const postDraft = (channel: string, text: string, replyTo?: number): EntryDraft => {
  const body = utf8(text)
  if (body.length > TEXT_LIMIT) throw usageError(`a post is at most ${TEXT_LIMIT} bytes of UTF-8, this one is ${body.length}`)
  const payload = {
    channel,
    body_hash: encodeU64(crypto.sha256(body)),
    size: body.length,
    ...(replyTo === undefined ? {} : { reply_to: replyTo })
  }
  checked(PostPayload, payload, "post")
  return { type: "post", payload, body }
}
