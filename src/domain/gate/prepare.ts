// The text gate's replies and prepared envelopes (docs/protocol.md section 17): the shapes
// every command's step returns (reply lines, an `err <code> <detail>` line), the envelope
// the gate prepares at the head of the session key's chain for the agent to sign, and the
// check that names a value sent in the wrong encoding (so a correct signature in standard
// base64 is told "encoding", not "does not verify").

import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import { decodeB64, decodeU64, encodeU64 } from "../encoding.js"
import { ENVELOPE_VERSION, type UnsignedEnvelope } from "../envelope/envelope.js"
import { signingInput } from "../envelope/signature.js"
import type { GateEffect, GateSession, Step, StepFacts } from "./session.js"

/** How long a prepared envelope is valid (s). */
export const PREPARED_SECONDS = 300

const NONE: GateEffect = { _tag: "None" }

export const errLine = (code: string, detail: string): string => `err ${code} ${detail.replace(/[\r\n]+/g, " ")}`

export const reply = (session: GateSession, lines: ReadonlyArray<string>, effect: GateEffect = NONE): Step => ({ session, lines, effect })
export const fail = (session: GateSession, code: string, detail: string): Step => reply(session, [errLine(code, detail)])

/** One line that defines U64, for encoding errors and help. */
export const U64_DEFINITION = "U64 is base64url without padding (RFC 4648 section 5: A-Z a-z 0-9 - _, no =)"

/**
 * Why `value` is not U64 (of `bytes` bytes, when given), in words that name the encoding it
 * is in when that can be told (standard base64, hex), or undefined when it is.
 */
export const u64Problem = (value: string, bytes: number | undefined, what: string): string | undefined => {
  const decoded = decodeU64(value)
  const wanted = bytes === undefined ? "" : ` of ${bytes} bytes`
  if (decoded !== undefined && (bytes === undefined || decoded.length === bytes)) return undefined
  if (bytes !== undefined && /^[0-9a-fA-F]+$/.test(value) && value.length === bytes * 2) return `${what} is hex, not U64: ${U64_DEFINITION}`
  if (decoded !== undefined) return bytes === undefined || decoded.length === bytes ? undefined : `${what} is U64 of ${decoded.length} bytes, not ${bytes}`
  const standard = decodeB64(value.padEnd(Math.ceil(value.length / 4) * 4, "="))
  if (/[+/=]/.test(value) && standard !== undefined && (bytes === undefined || standard.length === bytes)) {
    return `${what} is standard base64, not U64: ${U64_DEFINITION}; replace + by -, / by _ and drop the =`
  }
  return `${what} is not U64${wanted}: ${U64_DEFINITION}`
}

/** The encoding error of a value, as a step; undefined when the value is U64 (of the right length). */
export const encodingFailure = (session: GateSession, value: string, bytes: number | undefined, what: string): Step | undefined => {
  const problem = u64Problem(value, bytes, what)
  return problem === undefined ? undefined : fail(session, "encoding_invalid", problem)
}

/** An envelope of the session's key at the head of its chain, for the agent to sign. */
export const prepare = (
  session: GateSession,
  kid: string,
  type: string,
  payload: UnsignedEnvelope["payload"],
  body: Uint8Array | null,
  facts: StepFacts
): Step => {
  const head = HashMap.get(facts.log.chains, kid)
  const created = Math.floor(facts.now / 1000)
  const envelope: UnsignedEnvelope = {
    v: ENVELOPE_VERSION,
    origin: facts.origin,
    type,
    kid,
    seq: head._tag === "Some" ? head.value.seq + 1 : 0,
    prev: head._tag === "Some" ? encodeU64(head.value.hash) : null,
    nonce: facts.fresh,
    created,
    expires: created + PREPARED_SECONDS,
    payload
  }
  const input = signingInput(envelope)
  if (Either.isLeft(input)) return fail(session, "usage", input.left.reason)
  return reply({ ...session, pending: { kind: "envelope", envelope, input: input.right, body } }, [
    `sign ${input.right}`,
    `expect sig <U64 Ed25519 signature of the UTF-8 bytes after "sign ">, within ${PREPARED_SECONDS} s`,
    `ok prepared ${type}`
  ])
}
