// An AICS-1 agent written outside the project: a second, independent implementation of
// the client side of docs/spec/profile.md, sharing no code with src/. It brings its own base64
// (RFC 4648), JCS (RFC 8785), did:key (base58btc), envelope signing (docs/spec/profile.md section
// 3), Content-Digest (RFC 9530), RFC 9421 signature base, C2SP signed-note opening and a
// minimal C2SP tlog-tiles reader. Only node built-ins, @noble/curves, @noble/hashes and
// the global fetch are used; its encrypted messages use the RFC 9180 HPKE libraries
// @hpke/core, @hpke/dhkem-x25519 and @hpke/chacha20poly1305 directly.

import { randomBytes } from "node:crypto"
import { request as httpRequest } from "node:http"
import { ed25519, x25519 } from "@noble/curves/ed25519.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { CipherSuite, HkdfSha256 } from "@hpke/core"
import { Chacha20Poly1305 } from "@hpke/chacha20poly1305"
import { DhkemX25519HkdfSha256 } from "@hpke/dhkem-x25519"

// ---------------------------------------------------------------------------------------
// Bytes and base64 (RFC 4648 sections 4 and 5)

const enc = new TextEncoder()
const dec = new TextDecoder("utf-8", { fatal: true })
export const utf8 = (text: string): Uint8Array => enc.encode(text)
export const fromUtf8 = (bytes: Uint8Array): string => dec.decode(bytes)
export const concat = (...parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) { out.set(p, at); at += p.length }
  return out
}
export const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i])

const B64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

/** B64: standard alphabet with padding (section 4). */
export const b64 = (bytes: Uint8Array): string => {
  let out = ""
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0)
    const chars = [18, 12, 6, 0].map((shift) => B64_ALPHABET[(n >> shift) & 63]!)
    const kept = Math.min(4, bytes.length - i + 1)
    out += chars.slice(0, kept).join("") + "=".repeat(4 - kept)
  }
  return out
}

/** Strict B64 decoding: canonical text only (padding, zero trailing bits), else undefined. */
export const unb64 = (text: string): Uint8Array | undefined => {
  if (text.length % 4 !== 0) return undefined
  const body = text.replace(/={1,2}$/, "")
  const values = [...body].map((c) => B64_ALPHABET.indexOf(c))
  if (values.some((v) => v < 0)) return undefined
  const out: Array<number> = []
  for (let i = 0; i < values.length; i += 4) {
    const group = values.slice(i, i + 4)
    const n = group.reduce((acc, v, k) => acc | (v << (18 - 6 * k)), 0)
    const bytes = [(n >> 16) & 255, (n >> 8) & 255, n & 255].slice(0, group.length - 1)
    out.push(...bytes)
  }
  const decoded = new Uint8Array(out)
  return b64(decoded) === text ? decoded : undefined
}

/** U64: base64url without padding (section 5). */
export const u64 = (bytes: Uint8Array): string => b64(bytes).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_")

export const unu64 = (text: string): Uint8Array | undefined => {
  if (/[+/=]/.test(text)) return undefined
  const std = text.replace(/-/g, "+").replace(/_/g, "/")
  return unb64(std + "=".repeat((4 - (std.length % 4)) % 4))
}

// ---------------------------------------------------------------------------------------
// JCS (RFC 8785) for the JSON this agent produces

export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

const SHORT_ESCAPES: Readonly<Record<number, string>> = { 0x08: "\\b", 0x09: "\\t", 0x0a: "\\n", 0x0c: "\\f", 0x0d: "\\r", 0x22: "\\\"", 0x5c: "\\\\" }

/** RFC 8785 section 3.2.2.2: strings as ECMAScript serializes them; lone surrogates are errors. */
const jcsString = (s: string): string => {
  let out = "\""
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1)
      if (!(next >= 0xdc00 && next <= 0xdfff)) throw new Error("JCS: lone surrogate")
      out += s[i]! + s[i + 1]!
      i++
      continue
    }
    if (c >= 0xdc00 && c <= 0xdfff) throw new Error("JCS: lone surrogate")
    out += SHORT_ESCAPES[c] ?? (c < 0x20 ? `\\u${c.toString(16).padStart(4, "0")}` : s[i]!)
  }
  return out + "\""
}

/** RFC 8785 section 3: canonical JSON. Numbers are limited to safe integers (docs/spec/profile.md section 1). */
export const jcs = (value: Json): string => {
  if (value === null || typeof value === "boolean") return String(value)
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new Error(`JCS: ${value} is not a safe integer`)
    return String(value)
  }
  if (typeof value === "string") return jcsString(value)
  if (Array.isArray(value)) return `[${value.map(jcs).join(",")}]`
  const object = value as { readonly [key: string]: Json }
  // Section 3.2.3: members sorted by their names' UTF-16 code units (JS's default sort).
  const keys = Object.keys(object).filter((k) => object[k] !== undefined).sort()
  return `{${keys.map((k) => `${jcsString(k)}:${jcs(object[k]!)}`).join(",")}}`
}

// ---------------------------------------------------------------------------------------
// did:key (docs/spec/profile.md section 2): "did:key:z" + base58btc(0xed 0x01 || public key)

const B58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

export const base58btc = (bytes: Uint8Array): string => {
  let n = bytes.reduce((acc, b) => (acc << 8n) | BigInt(b), 0n)
  let out = ""
  while (n > 0n) { out = B58_ALPHABET[Number(n % 58n)]! + out; n /= 58n }
  for (const b of bytes) { if (b !== 0) break; out = "1" + out }
  return out
}

export const didKey = (publicKey: Uint8Array): string => `did:key:z${base58btc(concat(new Uint8Array([0xed, 0x01]), publicKey))}`

// ---------------------------------------------------------------------------------------
// Envelopes (docs/spec/profile.md section 3)

export interface Envelope {
  readonly [member: string]: Json
}

/** SHA-256(JCS(envelope)), `auth` included: the `prev` of the next envelope and the refusal note's hash. */
export const envelopeHash = (envelope: Json): Uint8Array => sha256(utf8(jcs(envelope)))

/** Signs every member but `auth`: the signing input is JCS with auth = {"alg":"ed25519-jcs"}. */
export const signEnvelope = (unsigned: Envelope, seed: Uint8Array): Envelope => {
  const input = jcs({ ...unsigned, auth: { alg: "ed25519-jcs" } })
  return { ...unsigned, auth: { alg: "ed25519-jcs", sig: u64(ed25519.sign(utf8(input), seed)) } }
}

// ---------------------------------------------------------------------------------------
// RFC 9530 Content-Digest and RFC 9421 signatures in the AICS profile (docs/spec/profile.md section 6)

/** RFC 9530 section 2: a Dictionary member sha-256 holding a byte sequence (RFC 8941 section 3.3.5). */
export const contentDigest = (body: Uint8Array): string => `sha-256=:${b64(sha256(body))}:`

export interface SignatureParams {
  readonly created: number
  readonly expires: number
  readonly nonce: string
  readonly keyid: string
  readonly alg?: string
  readonly tag?: string
}

export const AICS_COMPONENTS = ["@method", "@authority", "@path", "content-digest"] as const

/** RFC 9421 section 2.3: the @signature-params value, an inner list with parameters. */
export const signatureParamsText = (p: SignatureParams, components: ReadonlyArray<string> = AICS_COMPONENTS): string =>
  `(${components.map((c) => `"${c}"`).join(" ")});created=${p.created};expires=${p.expires};nonce="${p.nonce}";keyid="${p.keyid}";alg="${p.alg ?? "ed25519"}";tag="${p.tag ?? "aics"}"`

export interface HttpTarget {
  readonly method: string
  /** RFC 9421 section 2.2.3: the Host, lower case, default port left out. */
  readonly authority: string
  /** RFC 9421 section 2.2.6: the path without the query. */
  readonly path: string
  /** The Content-Digest field value sent. */
  readonly contentDigest: string
}

/** RFC 9421 section 2.5: one line per covered component, `@signature-params` last, no final newline. */
export const signatureBase = (target: HttpTarget, paramsText: string, components: ReadonlyArray<string> = AICS_COMPONENTS): string => {
  const value = (c: string): string => {
    switch (c) {
      case "@method": return target.method
      case "@authority": return target.authority
      case "@path": return target.path
      case "content-digest": return target.contentDigest
      default: throw new Error(`no value for ${c}`)
    }
  }
  return [...components.map((c) => `"${c}": ${value(c)}`), `"@signature-params": ${paramsText}`].join("\n")
}

export interface SignedHeaders {
  readonly "content-digest": string
  readonly "signature-input": string
  readonly signature: string
}

/** The three headers of an AICS-signed request (label `aics`, section 4.1 and 4.2 of RFC 9421). */
export const signHttp = (
  seed: Uint8Array,
  target: Omit<HttpTarget, "contentDigest"> & { readonly body: Uint8Array },
  params: SignatureParams,
  options: { readonly components?: ReadonlyArray<string>; readonly label?: string; readonly contentDigest?: string } = {}
): SignedHeaders => {
  const digest = options.contentDigest ?? contentDigest(target.body)
  const paramsText = signatureParamsText(params, options.components)
  const base = signatureBase({ ...target, contentDigest: digest }, paramsText, options.components)
  const label = options.label ?? "aics"
  return {
    "content-digest": digest,
    "signature-input": `${label}=${paramsText}`,
    signature: `${label}=:${b64(ed25519.sign(utf8(base), seed))}:`
  }
}

// ---------------------------------------------------------------------------------------
// C2SP signed notes: opening receipts and checkpoints with the log's verifier key

export interface VerifierKey {
  readonly name: string
  readonly keyHash: Uint8Array
  readonly publicKey: Uint8Array
}

/** `<name>+<8 hex key hash>+<B64(0x01 || public key)>`, the key hash checked (docs/spec/profile.md section 2). */
export const parseVkey = (vkey: string): VerifierKey => {
  // The name holds no "+"; the B64 key may.
  const match = /^([^+\s]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/]+=*)$/.exec(vkey.trim())
  const [, name, hex, key] = match ?? []
  const raw = key === undefined ? undefined : unb64(key)
  if (name === undefined || hex === undefined || raw === undefined || raw.length !== 33 || raw[0] !== 0x01) {
    throw new Error(`not an Ed25519 verifier key: ${vkey}`)
  }
  const keyHash = sha256(concat(utf8(name), new Uint8Array([0x0a]), raw)).slice(0, 4)
  if ([...keyHash].map((b) => b.toString(16).padStart(2, "0")).join("") !== hex) throw new Error("verifier key hash mismatch")
  return { name, keyHash, publicKey: raw.slice(1) }
}

/** The note's text lines if a signature line by `key` verifies over the text, else an Error. */
export const openNote = (note: Uint8Array, key: VerifierKey): Array<string> => {
  const all = fromUtf8(note)
  const split = all.indexOf("\n\n")
  if (split < 0 || !all.endsWith("\n")) throw new Error("not a signed note")
  const text = all.slice(0, split + 1)
  for (const line of all.slice(split + 2, -1).split("\n")) {
    const match = /^\u2014 (\S+) (\S+)$/.exec(line)
    const blob = match === null ? undefined : unb64(match[2]!)
    if (match === null || blob === undefined) throw new Error(`bad signature line: ${line}`)
    if (match[1] !== key.name || blob.length !== 68 || !sameBytes(blob.slice(0, 4), key.keyHash)) continue
    if (ed25519.verify(blob.slice(4), utf8(text), key.publicKey)) return text.slice(0, -1).split("\n")
  }
  throw new Error("no valid signature by the log key")
}

// ---------------------------------------------------------------------------------------
// RFC 6962 / RFC 9162 hashing and a minimal C2SP tlog-tiles reader (height 8)

export const leafHash = (entryBytes: Uint8Array): Uint8Array => sha256(concat(new Uint8Array([0x00]), entryBytes))
const nodeHash = (l: Uint8Array, r: Uint8Array): Uint8Array => sha256(concat(new Uint8Array([0x01]), l, r))

/** RFC 9162 section 2.1.1: MTH of a list of leaf hashes. */
export const merkleRoot = (leaves: ReadonlyArray<Uint8Array>): Uint8Array => {
  if (leaves.length === 0) return sha256(new Uint8Array(0))
  if (leaves.length === 1) return leaves[0]!
  let k = 1
  while (k * 2 < leaves.length) k *= 2
  return nodeHash(merkleRoot(leaves.slice(0, k)), merkleRoot(leaves.slice(k)))
}

/** C2SP tlog-tiles: N as 3-digit groups, all but the last prefixed by "x". */
export const tileIndexPath = (n: number): string => {
  const groups: Array<string> = []
  do { groups.unshift(String(n % 1000).padStart(3, "0")); n = Math.floor(n / 1000) } while (n > 0)
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join("/")
}

export interface Checkpoint {
  readonly origin: string
  readonly size: number
  readonly root: Uint8Array
}

// ---------------------------------------------------------------------------------------
// Talking to the log

export interface Log {
  readonly baseUrl: string
  readonly origin: string
  readonly vkey: string
}

export interface Answer {
  readonly status: number
  readonly json: any
  readonly location: string | undefined
  /** Every response header, lower-case names. */
  readonly headers?: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  /** The Retry-After header, when the answer has one. */
  readonly retryAfter?: string | undefined
}

/**
 * A raw POST through node:http, so that any Host header can be sent, from `localAddress`
 * when given (any 127/8 address on Linux: a client of another address).
 */
export const post = (baseUrl: string, path: string, headers: Readonly<Record<string, string>>, body: Uint8Array, localAddress?: string): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const options = { method: "POST", headers: { ...headers, "content-length": String(body.length) }, ...(localAddress === undefined ? {} : { localAddress }) }
    const req = httpRequest(new URL(path, baseUrl), options, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        let json: unknown
        try { json = JSON.parse(text) } catch { json = text }
        const location = res.headers["location"]
        const retryAfter = res.headers["retry-after"]
        resolve({ status: res.statusCode ?? 0, json, location: typeof location === "string" ? location : undefined, headers: res.headers, retryAfter })
      })
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end(body)
  })

/** A write request ready to send: its JSON body and headers. */
export interface Prepared {
  readonly envelope: Json
  readonly body: Uint8Array
  readonly headers: Record<string, string>
}

export interface WriteResult extends Answer {
  /** The receipt's or refusal note's text lines, opened with the log key. */
  readonly note: Array<string>
}

export interface EnvelopeOptions {
  readonly seq?: number
  readonly prev?: string | null
  readonly nonce?: string
  readonly created?: number
  readonly expires?: number
  readonly origin?: string
}

export const randomNonce = (): string => u64(new Uint8Array(randomBytes(16)))

/** The service reads at most this many bytes of a write request (docs/protocol.md section 8). */
export const MAX_WRITE_REQUEST_BYTES = 256 * 1024

/**
 * What a refusal note names: SHA-256(JCS(envelope)) when the request holds a JSON envelope,
 * else SHA-256 of the bytes sent; a request over the size limit is refused unread, and its
 * note names SHA-256 of the empty string.
 */
export const refusedHash = (requestBody: Uint8Array): Uint8Array => {
  if (requestBody.length > MAX_WRITE_REQUEST_BYTES) return sha256(new Uint8Array(0))
  try {
    const request = JSON.parse(fromUtf8(requestBody))
    const envelope = request?.envelope
    if (typeof request === "object" && !Array.isArray(request) && typeof envelope === "object" && envelope !== null && !Array.isArray(envelope)) {
      return envelopeHash(envelope)
    }
  } catch {
    // Not UTF-8 JSON, or not JCS-able: the raw bytes are named.
  }
  return sha256(requestBody)
}

// ---------------------------------------------------------------------------------------
// RFC 9180 HPKE in the AICS profile (docs/protocol.md section 9): base mode,
// DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305, single-shot; body = enc || ct.

const hpkeSuite = new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: new Chacha20Poly1305() })
export const DM_INFO = "AICS-1 dm"

/** The aad of a dm: JCS({"from", "origin", "to"}). */
export const dmAad = (from: string, origin: string, to: string): Uint8Array => utf8(jcs({ from, origin, to }))

/** SealBase(pkR, info, aad, pt) as enc || ct. */
export const hpkeSeal = async (recipientPublic: Uint8Array, info: string, aad: Uint8Array, plaintext: Uint8Array): Promise<Uint8Array> => {
  const recipientPublicKey = await hpkeSuite.kem.deserializePublicKey(recipientPublic)
  const sealed = await hpkeSuite.seal({ recipientPublicKey, info: utf8(info) }, plaintext, aad)
  return concat(new Uint8Array(sealed.enc), new Uint8Array(sealed.ct))
}

/** OpenBase(enc, skR, info, aad, ct) of an enc || ct body; throws when it does not open. */
export const hpkeOpen = async (recipientSecret: Uint8Array, info: string, aad: Uint8Array, sealed: Uint8Array): Promise<Uint8Array> => {
  const recipientKey = await hpkeSuite.kem.deserializePrivateKey(recipientSecret)
  const plaintext = await hpkeSuite.open({ recipientKey, enc: sealed.slice(0, 32), info: utf8(info) }, sealed.slice(32), aad)
  return new Uint8Array(plaintext)
}

/** The new key's proof in a key.rotate: its signature over JCS({"name","new_kid","origin","prev_kid"}), U64. */
export const rotationProof = (newSeed: Uint8Array, fields: { readonly name: string; readonly new_kid: string; readonly origin: string; readonly prev_kid: string }): string =>
  u64(ed25519.sign(utf8(jcs(fields)), newSeed))

/** A message of the signed `GET /v2/inbox`, opened. */
export interface OpenedMessage {
  readonly index: number
  readonly from: string
  readonly to: string
  readonly grant_index: number
  /** The plaintext, or undefined when the body is gone or does not open with this agent's key. */
  readonly text: string | undefined
  readonly raw: any
}

export class OutsideAgent {
  readonly publicKey: Uint8Array
  readonly kid: string
  /** U64 of an X25519 public key derived from the seed. */
  readonly x25519: string
  seq = 0
  prev: string | null = null
  readonly key: VerifierKey
  readonly authority: string

  constructor(readonly seed: Uint8Array, readonly log: Log) {
    this.publicKey = ed25519.getPublicKey(seed)
    this.kid = didKey(this.publicKey)
    this.x25519 = u64(x25519.getPublicKey(sha256(concat(utf8("x25519"), seed))))
    this.key = parseVkey(log.vkey)
    this.authority = new URL(log.baseUrl).host.toLowerCase()
  }

  static random(log: Log): OutsideAgent {
    return new OutsideAgent(new Uint8Array(randomBytes(32)), log)
  }

  /** A signed envelope at the agent's chain position (not advanced), valid from now for 300 s. */
  envelope(type: string, payload: { readonly [k: string]: Json }, o: EnvelopeOptions = {}): Envelope {
    const created = o.created ?? Math.floor(Date.now() / 1000)
    const seq = o.seq ?? this.seq
    return signEnvelope({
      v: "AICS-1",
      origin: o.origin ?? this.log.origin,
      type,
      kid: this.kid,
      seq,
      prev: o.prev !== undefined ? o.prev : this.prev,
      nonce: o.nonce ?? randomNonce(),
      created,
      expires: o.expires ?? created + 300,
      payload
    }, this.seed)
  }

  /** The request `{envelope, body}` signed over HTTP with the envelope's kid, nonce, created and expires. */
  prepare(envelope: Envelope, body: Uint8Array | null): Prepared {
    const bytes = utf8(jcs({ envelope, body: body === null ? null : u64(body) }))
    const headers = signHttp(this.seed, { method: "POST", authority: this.authority, path: "/v2/entries", body: bytes }, {
      created: envelope["created"] as number,
      expires: envelope["expires"] as number,
      nonce: envelope["nonce"] as string,
      keyid: envelope["kid"] as string
    })
    return { envelope, body: bytes, headers: { "content-type": "application/json", ...headers } }
  }

  /** Sends a request and checks its note: a receipt on 202 (the chain then advances), else a refusal note. */
  async submit(prepared: Prepared, options: { readonly host?: string; readonly path?: string; readonly localAddress?: string } = {}): Promise<WriteResult> {
    const headers = { ...prepared.headers, ...(options.host === undefined ? {} : { host: options.host }) }
    const answer = await post(this.log.baseUrl, options.path ?? "/v2/entries", headers, prepared.body, options.localAddress)
    const entry = answer.json?.entry
    const noteBytes = typeof answer.json?.receipt_note === "string" ? unu64(answer.json.receipt_note) : undefined
    if (noteBytes === undefined || typeof entry !== "object") throw new Error(`no receipt: ${answer.status} ${JSON.stringify(answer.json)}`)
    const note = openNote(noteBytes, this.key)
    const expect = (ok: boolean, what: string) => { if (!ok) throw new Error(`${what}: ${JSON.stringify(answer.json)}`) }
    if (answer.status === 202) {
      expect(note.length === 4 && note[0] === this.log.origin && note[1] === `receipt ${entry.index}` &&
        note[2] === `leaf ${b64(unu64(entry.leaf_hash)!)}` && note[3] === `logged ${entry.logged}`, "receipt note")
      const envelope = prepared.envelope as Envelope
      if (envelope["kid"] === this.kid) {
        this.seq = (envelope["seq"] as number) + 1
        this.prev = u64(envelopeHash(envelope))
      }
    } else {
      expect(note.length === 4 && note[0] === this.log.origin && note[1] === `refusal ${entry.refused}` &&
        note[2] === `envelope ${b64(refusedHash(prepared.body))}` && note[2] === `envelope ${b64(unu64(entry.envelope_hash)!)}` &&
        /^at \d+$/.test(note[3]!), "refusal note")
    }
    return { ...answer, note }
  }

  /** Builds, signs and sends an entry at the chain position; verifies the note. */
  write(type: string, payload: { readonly [k: string]: Json }, body: Uint8Array | null = null): Promise<WriteResult> {
    return this.submit(this.prepare(this.envelope(type, payload), body))
  }

  claim(name: string): Promise<WriteResult> {
    return this.write("claim", { name, x25519: this.x25519 })
  }

  post(text: string, options: { readonly channel?: string; readonly replyTo?: number } = {}): Promise<WriteResult> {
    const body = utf8(text)
    return this.write("post", {
      channel: options.channel ?? "general",
      body_hash: u64(sha256(body)),
      size: body.length,
      ...(options.replyTo === undefined ? {} : { reply_to: options.replyTo })
    }, body)
  }

  /** The latest checkpoint, its signature checked with the log key. */
  async checkpoint(): Promise<Checkpoint> {
    const response = await fetch(`${this.log.baseUrl}/checkpoint`)
    const text = new Uint8Array(await response.arrayBuffer())
    if (response.status !== 200) throw new Error(`GET /checkpoint: ${response.status} ${fromUtf8(text)}`)
    const [origin, size, root, ...extensions] = openNote(text, this.key)
    const rootBytes = root === undefined ? undefined : unb64(root)
    if (origin !== this.log.origin || !/^(0|[1-9]\d*)$/.test(size ?? "") || rootBytes?.length !== 32 || extensions.length > 0) {
      throw new Error(`bad checkpoint: ${fromUtf8(text)}`)
    }
    return { origin, size: Number(size), root: rootBytes }
  }

  /** Polls /checkpoint until one covers `size` leaves (a fresh log may have none yet). */
  async checkpointCovering(size: number, timeoutMs = 5000): Promise<Checkpoint> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      let error: unknown
      try {
        const checkpoint = await this.checkpoint()
        if (checkpoint.size >= size) return checkpoint
      } catch (e) {
        error = e
      }
      if (Date.now() > deadline) throw error ?? new Error(`no checkpoint covers ${size} leaves after ${timeoutMs} ms`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }

  /** Level-0 hashes of a tree of `size` leaves, read from the tiles (full and partial). */
  async levelZero(size: number): Promise<Array<Uint8Array>> {
    const hashes: Array<Uint8Array> = []
    for (let n = 0; n * 256 < size; n++) {
      const width = Math.min(256, size - n * 256)
      const path = `${this.log.baseUrl}/tiles/tile/0/${tileIndexPath(n)}${width < 256 ? `.p/${width}` : ""}`
      const response = await fetch(path)
      if (response.status !== 200) throw new Error(`${path}: ${response.status}`)
      const tile = new Uint8Array(await response.arrayBuffer())
      if (tile.length !== width * 32) throw new Error(`${path}: ${tile.length} bytes`)
      for (let i = 0; i < width; i++) hashes.push(tile.slice(i * 32, i * 32 + 32))
    }
    return hashes
  }

  /**
   * Whether entry `index` is in the tiles under the signed checkpoint: its level-0 hash is
   * SHA-256(0x00 || entry_bytes) of `/v2/entries/<index>`, and the level-0 hashes hash up to
   * the checkpoint's root. Answers the entry's bytes, parsed, and the checkpoint.
   */
  async checkInTiles(index: number): Promise<{ entry: any; entryBytes: Uint8Array; bundle: any; checkpoint: Checkpoint }> {
    const checkpoint = await this.checkpoint()
    if (index >= checkpoint.size) throw new Error(`${index} is not under the checkpoint of size ${checkpoint.size}`)
    const bundle = await (await fetch(`${this.log.baseUrl}/v2/entries/${index}`)).json() as any
    const entryBytes = unu64(bundle.entry_bytes)!
    const entry = JSON.parse(fromUtf8(entryBytes))
    // The leaf is JCS of {envelope, index, logged} (docs/spec/profile.md section 4), byte for byte.
    if (jcs(entry) !== fromUtf8(entryBytes) || entry.index !== index) throw new Error("entry bytes are not the JCS leaf")
    const hashes = await this.levelZero(checkpoint.size)
    if (!sameBytes(hashes[index]!, leafHash(entryBytes))) throw new Error(`tile hash of ${index} differs from the entry's leaf hash`)
    if (!sameBytes(merkleRoot(hashes), checkpoint.root)) throw new Error("the tiles do not hash to the checkpoint's root")
    return { entry, entryBytes, bundle, checkpoint }
  }

  // -------------------------------------------------------------------------------------
  // Signed reads, grants, encrypted messages and rotation

  /** The X25519 secret behind `x25519`: SHA-256("x25519" || seed). */
  get x25519Secret(): Uint8Array {
    return sha256(concat(utf8("x25519"), this.seed))
  }

  /** An RFC 9421 signed GET over the empty body (same profile as writes); `path` may hold a query. */
  async signedGet(path: string): Promise<{ status: number; json: any }> {
    const url = new URL(path, this.log.baseUrl)
    const created = Math.floor(Date.now() / 1000)
    const headers = signHttp(this.seed, { method: "GET", authority: this.authority, path: url.pathname, body: new Uint8Array(0) }, {
      created, expires: created + 300, nonce: randomNonce(), keyid: this.kid
    })
    const response = await fetch(url, { headers: { ...headers } })
    const text = await response.text()
    let json: unknown
    try { json = JSON.parse(text) } catch { json = text }
    return { status: response.status, json }
  }

  /** An unsigned GET of a JSON view; throws unless 200. */
  async view(path: string): Promise<any> {
    const response = await fetch(new URL(path, this.log.baseUrl))
    const json = await response.json() as any
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${JSON.stringify(json)}`)
    return json
  }

  /** A dm grant to `sender` (a did:key or "*"), signed by this key. */
  grant(sender: string, options: { readonly limit?: number; readonly until?: number } = {}): Promise<WriteResult> {
    return this.write("grant", {
      sender,
      use: "dm",
      ...(options.limit === undefined ? {} : { limit: options.limit }),
      ...(options.until === undefined ? {} : { until: options.until })
    })
  }

  /** key.x25519 for `name`: this agent's own X25519 key becomes the name's. */
  setX25519(name: string): Promise<WriteResult> {
    return this.write("key.x25519", { name, x25519: this.x25519 })
  }

  /**
   * Finds `name` (kid, current X25519 key and the leaf that set it), the grant governing
   * this sender in its inbox, seals `text` to that key and writes the dm.
   */
  async sendDm(name: string, text: string): Promise<WriteResult> {
    const view = await this.view(`/v2/names/${encodeURIComponent(name)}`)
    const to = view.kid as string
    const grants = await this.view(`/v2/inbox/${to}/grants?sender=${encodeURIComponent(this.kid)}`)
    const governing = grants.governing_index as number | null
    if (governing === null || governing === undefined) throw new Error(`${name} holds no grant in force for ${this.kid}`)
    const recipientPublic = unu64(view.x25519 as string)
    if (recipientPublic === undefined) throw new Error(`bad x25519 in the name view: ${view.x25519}`)
    const sealed = await hpkeSeal(recipientPublic, DM_INFO, dmAad(this.kid, this.log.origin, to), utf8(text))
    return this.write("dm", {
      to,
      grant_index: governing,
      ct_hash: u64(sha256(sealed)),
      size: sealed.length,
      x25519_index: view.x25519_index as number
    }, sealed)
  }

  /** The signed `GET /v2/inbox`, every message opened with this agent's X25519 secret and its aad. */
  async readInbox(options: { readonly unreadOnly?: boolean; readonly secret?: Uint8Array } = {}): Promise<Array<OpenedMessage>> {
    const answer = await this.signedGet(`/v2/inbox${options.unreadOnly === true ? "?unread_only=true" : ""}`)
    if (answer.status !== 200) throw new Error(`GET /v2/inbox: ${answer.status} ${JSON.stringify(answer.json)}`)
    const secret = options.secret ?? this.x25519Secret
    const out: Array<OpenedMessage> = []
    for (const m of answer.json.messages as Array<any>) {
      const ct = (m.ct ?? m.ciphertext) as string | null | undefined
      const sealed = typeof ct === "string" ? unu64(ct) : undefined
      let text: string | undefined
      if (sealed !== undefined && sameBytes(sha256(sealed), unu64(m.ct_hash)!)) {
        try { text = fromUtf8(await hpkeOpen(secret, DM_INFO, dmAad(m.from, this.log.origin, m.to), sealed)) } catch { text = undefined }
      }
      out.push({ index: m.index, from: m.from, to: m.to, grant_index: m.grant_index, text, raw: m })
    }
    return out
  }

  /** key.rotate of `name` to `newAgent`'s key, signed by this (the current) key with the new key's proof. */
  rotate(name: string, newAgent: OutsideAgent): Promise<WriteResult> {
    const new_sig = rotationProof(newAgent.seed, { name, new_kid: newAgent.kid, origin: this.log.origin, prev_kid: this.kid })
    return this.write("key.rotate", { name, new_kid: newAgent.kid, new_sig })
  }
}
