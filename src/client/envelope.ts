// Building and signing an agent's next envelope (docs/spec/profile.md section 3) at its chain
// position: a fresh 16-byte nonce, created now, expires 300 s later (half the allowed 600,
// the same window the service gives the clock), and the origin read from the verified
// checkpoint. A claim's proof of work (docs/protocol.md "Fair admission") is done here a
// slice at a time between turns of the event loop, from a `created` renewed as it goes
// (buildWorkedEnvelope).

import { Either } from "effect"
import { encodeU64 } from "../domain/encoding.js"
import { ENVELOPE_VERSION, type Envelope, type UnsignedEnvelope } from "../domain/envelope/envelope.js"
import type { JsonObject } from "../domain/envelope/jcs.js"
import { signEnvelope, signingInput } from "../domain/envelope/signature.js"
import { grindNonce, grindNonceRange } from "../domain/admission/proofOfWork.js"
import type { AgentKey } from "./agentKey.js"
import { bulkCrypto, crypto, randomBytes } from "./crypto.js"
import { usageError } from "./errors.js"

export const ENVELOPE_LIFETIME_SECONDS = 300
const NONCE_BYTES = 16

/** Proof of work to put in the envelope (docs/protocol.md "Fair admission"): its bits, and a progress callback. */
export interface Work {
  readonly bits: number
  /** Called every 65,536 hashes with the count so far. */
  readonly progress?: ((tries: number) => void) | undefined
}

/** The envelope at the key's chain position, created at `nowSeconds`, with a fresh random nonce, not yet signed. */
const unsignedEnvelope = (key: AgentKey, origin: string, type: string, payload: JsonObject, nowSeconds: number): UnsignedEnvelope => ({
  v: ENVELOPE_VERSION,
  origin,
  type,
  kid: key.kid,
  seq: key.seq,
  prev: key.prev,
  nonce: encodeU64(randomBytes(NONCE_BYTES)),
  created: nowSeconds,
  expires: nowSeconds + ENVELOPE_LIFETIME_SECONDS,
  payload
})

const signed = (unsigned: UnsignedEnvelope, key: AgentKey): Envelope => {
  const signature = signEnvelope(unsigned, key.seed, crypto.ed25519)
  // Only a payload with no JSON form (a lone surrogate in a text argument) gets here.
  if (Either.isLeft(signature)) throw usageError(`the entry cannot be signed: ${signature.left.reason}`)
  return signature.right
}

/**
 * The envelope signed at once, its work (when asked) done in one go: for a line to paste
 * into the text gate (gate.ts). A write to the service does its work with
 * buildWorkedEnvelope, which yields to the event loop meanwhile.
 */
export const buildEnvelope = (
  key: AgentKey,
  origin: string,
  type: string,
  payload: JsonObject,
  nowSeconds: number,
  work: Work = { bits: 0 }
): Envelope => {
  const unsigned = unsignedEnvelope(key, origin, type, payload, nowSeconds)
  // With work asked for, the nonce is 16 random bytes and a counter, varied until the
  // signing input's SHA-256 has the bits; the signature is made once, over the result.
  return signed(work.bits > 0 ? grindNonce(unsigned, work.bits, crypto.sha256, randomBytes(NONCE_BYTES), work.progress) : unsigned, key)
}

/** How often the work reports its hashes (Work.progress). */
const PROGRESS_EVERY = 65_536

/** How long one run of hashes may hold the event loop before the work yields (an MCP server answers a ping meanwhile). */
const WORK_SLICE_MS = 25

/**
 * How old `created` may grow while the work goes on before the work starts again from a new
 * one. The work covers the signing input, `created` and `expires` with it, so they are fixed
 * before the first hash; a long search would otherwise end with an envelope near or past its
 * expiry (and one whose created is more than 300 s from the service's clock is refused).
 * Starting again costs nothing: each hash is an independent try with the same odds, so
 * the hashes expected from any moment on are 2^bits whatever came before. The envelope sent
 * is then at most this much (and a slice) into its 300 s.
 */
export const WORK_FRESH_SECONDS = 60

const nextTurn = (): Promise<void> =>
  new Promise((resolve) => (typeof setImmediate === "function" ? setImmediate(resolve) : setTimeout(resolve, 0)))

/**
 * The envelope as buildEnvelope makes it, its work (when asked) done a slice at a time: the
 * domain's grindNonceRange over a range of counters sized to take about WORK_SLICE_MS, then
 * a turn of the event loop, so the process keeps answering (an MCP server's other requests,
 * its pings) however long the work takes; `created` is renewed every WORK_FRESH_SECONDS.
 * `now` is the clock (Unix ms) `created` is read from.
 */
export const buildWorkedEnvelope = async (
  key: AgentKey,
  origin: string,
  type: string,
  payload: JsonObject,
  work: Work,
  now: () => number = Date.now
): Promise<Envelope> => {
  const seconds = () => Math.floor(now() / 1000)
  if (work.bits <= 0) return buildEnvelope(key, origin, type, payload, seconds())
  // A payload that cannot be signed is said before any hash is spent on it.
  if (Either.isLeft(signingInput(unsignedEnvelope(key, origin, type, payload, 0)))) return buildEnvelope(key, origin, type, payload, seconds())
  const { sha256 } = await bulkCrypto()
  let tries = 0
  let reported = 0
  let slice = 1024
  for (;;) {
    const unsigned = unsignedEnvelope(key, origin, type, payload, seconds())
    const base = randomBytes(NONCE_BYTES)
    for (let counter = 0; seconds() - unsigned.created < WORK_FRESH_SECONDS; counter += slice) {
      const started = performance.now()
      const nonce = grindNonceRange(unsigned, work.bits, sha256, base, counter, counter + slice)
      if (nonce !== undefined) return signed({ ...unsigned, nonce }, key)
      tries += slice
      for (; tries - reported >= PROGRESS_EVERY; reported += PROGRESS_EVERY) work.progress?.(reported + PROGRESS_EVERY)
      const took = performance.now() - started
      slice = took < WORK_SLICE_MS / 2 ? slice * 2 : took > WORK_SLICE_MS * 2 && slice > 64 ? slice / 2 : slice
      await nextTurn()
    }
  }
}

/** About how many hashes a second the work does here: a short run of it, for saying how long a claim may take. */
export const workHashesPerSecond = async (sampleMs = 100): Promise<number> => {
  const { sha256 } = await bulkCrypto()
  const sample: UnsignedEnvelope = {
    v: ENVELOPE_VERSION, origin: "example.org/aics", type: "claim", kid: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
    seq: 0, prev: null, nonce: "", created: 0, expires: ENVELOPE_LIFETIME_SECONDS,
    payload: { name: "sample", x25519: encodeU64(new Uint8Array(32)) }
  }
  const base = randomBytes(NONCE_BYTES)
  const started = performance.now()
  let tries = 0
  // Bits no hash meets in practice: every try is counted.
  while (performance.now() - started < sampleMs) {
    grindNonceRange(sample, 256, sha256, base, tries, tries + 4096)
    tries += 4096
  }
  return tries / ((performance.now() - started) / 1000)
}
