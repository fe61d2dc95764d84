// An AICS-1 owner (and agent) written outside the project, from the specifications only:
// a third implementation of the client side of docs/spec/profile.md, sharing no code with src/ nor
// with test/support/outsideAgent.ts. Its own JCS (RFC 8785), base64 (RFC 4648), did:key
// (base58btc), envelope signing (docs/spec/profile.md section 3), Content-Digest (RFC 9530), RFC 9421
// signature in the AICS profile, C2SP signed-note opening and the leaf hash of section 4.
// Only node:crypto (Ed25519, SHA-256) and the global fetch are used.

import { createHash, createPrivateKey, createPublicKey, randomBytes, sign, verify, type KeyObject } from "node:crypto"

// ---------------------------------------------------------------------------------------
// Bytes, base64, SHA-256

export const utf8 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, "utf8"))
export const sha256 = (bytes: Uint8Array): Uint8Array => new Uint8Array(createHash("sha256").update(bytes).digest())
/** B64: standard, padded. */
export const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64")
/** U64: base64url without padding. */
export const u64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64url")
const strictU64 = (text: string): Uint8Array => {
  const bytes = Buffer.from(text, "base64url")
  if (bytes.toString("base64url") !== text) throw new Error(`not canonical U64: ${text}`)
  return new Uint8Array(bytes)
}
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b))

// ---------------------------------------------------------------------------------------
// RFC 8785 JCS for the values this protocol uses (integers, strings, booleans, null,
// arrays, objects): ECMAScript serialization of strings and numbers, members sorted by
// UTF-16 code units.

export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [k: string]: Json }

export const jcs = (value: Json): string => {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value)
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error("JCS: not a finite number")
    return JSON.stringify(value)
  }
  if (Array.isArray(value)) return `[${value.map(jcs).join(",")}]`
  const object = value as { readonly [k: string]: Json }
  const keys = Object.keys(object).sort()
  return `{${keys.map((k) => `${JSON.stringify(k)}:${jcs(object[k]!)}`).join(",")}}`
}

// ---------------------------------------------------------------------------------------
// Ed25519 keys through node:crypto, and did:key

const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex")
const SPKI_ED25519 = Buffer.from("302a300506032b6570032100", "hex")
const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

const base58btc = (bytes: Uint8Array): string => {
  let n = BigInt(`0x${Buffer.from(bytes).toString("hex") || "0"}`)
  let out = ""
  while (n > 0n) {
    out = BASE58[Number(n % 58n)]! + out
    n /= 58n
  }
  for (const byte of bytes) {
    if (byte !== 0) break
    out = "1" + out
  }
  return out
}

export const publicKeyOf = (raw: Uint8Array): KeyObject =>
  createPublicKey({ key: Buffer.concat([SPKI_ED25519, raw]), format: "der", type: "spki" })

export class Ed25519Key {
  readonly privateKey: KeyObject
  readonly publicKey: Uint8Array
  readonly kid: string

  constructor(readonly seed: Uint8Array) {
    this.privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: "der", type: "pkcs8" })
    this.publicKey = new Uint8Array(createPublicKey(this.privateKey).export({ format: "der", type: "spki" }).subarray(12))
    this.kid = `did:key:z${base58btc(Uint8Array.of(0xed, 0x01, ...this.publicKey))}`
  }

  static random(): Ed25519Key {
    return new Ed25519Key(new Uint8Array(randomBytes(32)))
  }

  sign(message: Uint8Array): Uint8Array {
    return new Uint8Array(sign(null, message, this.privateKey))
  }
}

/** The raw Ed25519 public key of a did:key. */
export const publicKeyOfDid = (kid: string): Uint8Array => {
  if (!kid.startsWith("did:key:z")) throw new Error(`not a did:key: ${kid}`)
  let n = 0n
  for (const c of kid.slice(9)) {
    const digit = BASE58.indexOf(c)
    if (digit < 0) throw new Error(`not base58btc: ${kid}`)
    n = n * 58n + BigInt(digit)
  }
  const bytes = Buffer.from(n.toString(16).padStart(68, "0"), "hex")
  if (bytes.length !== 34 || bytes[0] !== 0xed || bytes[1] !== 0x01) throw new Error(`not an Ed25519 did:key: ${kid}`)
  return new Uint8Array(bytes.subarray(2))
}

// ---------------------------------------------------------------------------------------
// Envelopes (docs/spec/profile.md section 3) and leaves (section 4)

export type Envelope = { readonly [k: string]: Json }

export const envelopeHash = (envelope: Envelope): Uint8Array => sha256(utf8(jcs(envelope)))

/** Whether the envelope's auth.sig is its kid's signature over JCS with auth = {"alg":"ed25519-jcs"}. */
export const envelopeSignatureHolds = (envelope: Envelope): boolean => {
  const auth = envelope["auth"] as { alg?: string; sig?: string } | undefined
  if (auth?.alg !== "ed25519-jcs" || typeof auth.sig !== "string") return false
  const input = utf8(jcs({ ...envelope, auth: { alg: "ed25519-jcs" } }))
  return verify(null, input, publicKeyOf(publicKeyOfDid(String(envelope["kid"]))), strictU64(auth.sig))
}

/** RFC 6962 leaf hash of the leaf JCS({envelope, index, logged}). */
export const leafHashOf = (envelope: Envelope, index: number, logged: number): Uint8Array =>
  sha256(Buffer.concat([Buffer.of(0), utf8(jcs({ envelope, index, logged }))]))

// ---------------------------------------------------------------------------------------
// Signed notes (C2SP signed-note) with the log's verifier key

export interface LogKey {
  readonly name: string
  readonly keyHash: Uint8Array
  readonly publicKey: KeyObject
}

/** `<name>+<8 hex key hash>+<B64(0x01 || key)>`, the key hash checked. */
export const parseLogKey = (vkey: string): LogKey => {
  // The name holds no "+"; the base64 key may.
  const [, name, hash, key] = /^([^+]+)\+([0-9a-f]{8})\+(.+)$/.exec(vkey.trim()) ?? []
  const raw = key === undefined ? undefined : Buffer.from(key, "base64")
  if (name === undefined || hash === undefined || raw === undefined || raw.length !== 33 || raw[0] !== 0x01) throw new Error(`not a verifier key: ${vkey}`)
  const keyHash = sha256(Buffer.concat([utf8(name), Buffer.of(0x0a), raw])).subarray(0, 4)
  if (Buffer.from(keyHash).toString("hex") !== hash) throw new Error("verifier key hash mismatch")
  return { name, keyHash, publicKey: publicKeyOf(raw.subarray(1)) }
}

/** The text lines of a note signed by the log key; throws otherwise. */
export const openNote = (note: Uint8Array, key: LogKey): Array<string> => {
  const text = Buffer.from(note).toString("utf8")
  const split = text.indexOf("\n\n")
  if (split < 0 || !text.endsWith("\n")) throw new Error("not a signed note")
  const body = text.slice(0, split + 1)
  for (const line of text.slice(split + 2, -1).split("\n")) {
    const [dash, name, blob] = line.split(" ")
    const sig = Buffer.from(blob ?? "", "base64")
    if (dash !== "\u2014" || name !== key.name || sig.length !== 68 || !same(sig.subarray(0, 4), key.keyHash)) continue
    if (verify(null, utf8(body), key.publicKey, sig.subarray(4))) return body.slice(0, -1).split("\n")
  }
  throw new Error("no signature by the log key")
}

// ---------------------------------------------------------------------------------------
// RFC 9421 in the AICS profile (docs/spec/profile.md section 6)

export const signedHeaders = (key: Ed25519Key, request: { method: string; authority: string; path: string; body: Uint8Array }, nonce: string, created: number, expires: number) => {
  const digest = `sha-256=:${b64(sha256(request.body))}:`
  const params = `("@method" "@authority" "@path" "content-digest");created=${created};expires=${expires};nonce="${nonce}";keyid="${key.kid}";alg="ed25519";tag="aics"`
  const base = [
    `"@method": ${request.method}`,
    `"@authority": ${request.authority}`,
    `"@path": ${request.path}`,
    `"content-digest": ${digest}`,
    `"@signature-params": ${params}`
  ].join("\n")
  return { "content-digest": digest, "signature-input": `aics=${params}`, signature: `aics=:${b64(key.sign(utf8(base)))}:` }
}

// ---------------------------------------------------------------------------------------
// A key that writes to the log: its chain, its signed writes, their notes checked

export interface Written {
  readonly status: number
  readonly json: any
  /** Accepted: the index and logged time the receipt names, checked against the leaf hash computed here. */
  readonly index?: number
  readonly logged?: number
  /** Refused: the code the refusal note names, for this envelope. */
  readonly refused?: string
}

export class OutsideWriter {
  seq = 0
  prev: string | null = null
  readonly logKey: LogKey
  readonly authority: string

  constructor(readonly key: Ed25519Key, readonly baseUrl: string, readonly origin: string, vkey: string) {
    this.logKey = parseLogKey(vkey)
    this.authority = new URL(baseUrl).host
  }

  /**
   * Signs an envelope of `type` at the chain position and sends `{envelope, body}` to `path`
   * (POST /v2/entries: 202; an owner route: 201). An acceptance's receipt must name the leaf
   * hash of this envelope at the index and time it gives (then the chain advances); a
   * refusal's note must name this envelope's hash and the code.
   */
  async write(path: string, type: string, payload: { readonly [k: string]: Json }, body: Uint8Array | null = null): Promise<Written> {
    const created = Math.floor(Date.now() / 1000)
    const nonce = u64(new Uint8Array(randomBytes(16)))
    const unsigned = { v: "AICS-1", origin: this.origin, type, kid: this.key.kid, seq: this.seq, prev: this.prev, nonce, created, expires: created + 300, payload }
    const envelope: Envelope = { ...unsigned, auth: { alg: "ed25519-jcs", sig: u64(this.key.sign(utf8(jcs({ ...unsigned, auth: { alg: "ed25519-jcs" } })))) } }
    const bytes = utf8(jcs({ envelope, body: body === null ? null : u64(body) }))
    const response = await fetch(`${this.baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...signedHeaders(this.key, { method: "POST", authority: this.authority, path, body: bytes }, nonce, created, created + 300) },
      body: bytes
    })
    const json = await response.json() as any
    const lines = openNote(strictU64(String(json?.receipt_note)), this.logKey)
    if (response.status === 201 || response.status === 202) {
      const { index, logged } = json.entry as { index: number; logged: number }
      const expected = [this.origin, `receipt ${index}`, `leaf ${b64(leafHashOf(envelope, index, logged))}`, `logged ${logged}`]
      if (jcs(lines) !== jcs(expected)) throw new Error(`the receipt of ${type} does not name this envelope's leaf: ${lines.join(" | ")}`)
      this.seq += 1
      this.prev = u64(envelopeHash(envelope))
      return { status: response.status, json, index, logged }
    }
    const code = String(json.entry?.refused)
    if (lines[1] !== `refusal ${code}` || lines[2] !== `envelope ${b64(envelopeHash(envelope))}`) throw new Error(`the refusal note is not about this envelope: ${lines.join(" | ")}`)
    return { status: response.status, json, refused: code }
  }

  /** A signed request without an envelope (the notice register's owner routes). */
  async signed(method: "GET" | "POST", pathAndQuery: string, json?: Json): Promise<{ status: number; json: any; body: Uint8Array }> {
    const url = new URL(pathAndQuery, this.baseUrl)
    const body = json === undefined ? new Uint8Array(0) : utf8(JSON.stringify(json))
    const created = Math.floor(Date.now() / 1000)
    const headers = signedHeaders(this.key, { method, authority: this.authority, path: url.pathname, body }, u64(new Uint8Array(randomBytes(16))), created, created + 300)
    const response = await fetch(url, { method, headers: { ...headers, ...(json === undefined ? {} : { "content-type": "application/json" }) }, ...(json === undefined ? {} : { body }) })
    return { status: response.status, json: await response.json(), body }
  }
}
