// Every refusal of the catalogue (src/domain/write/refusal.ts, docs/spec/profile.md section 7)
// through the real HTTP server, one test per code. For each offending request: the status
// is the catalogue's, `entry.refused` is the code, the receipt is a refusal note signed by
// the log key naming the code and the envelope's hash (opened with log.vkey by the outside
// agent), the committed tree did not grow, and the key's chain did not advance: the next
// correctly chained write from the same key is accepted at the same seq. authority_not_allowed
// says which Host and which it accepts, and the node's log says it, not once a refusal.

import { readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { sha256 } from "@noble/hashes/sha2.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { REFUSALS, type RefusalCode } from "../../../src/domain/write/refusal.js"
import {
  base58btc,
  concat,
  fromUtf8,
  jcs,
  MAX_WRITE_REQUEST_BYTES,
  OutsideAgent,
  randomNonce,
  signEnvelope,
  signHttp,
  u64,
  utf8,
  type Envelope,
  type Json,
  type Log,
  type Prepared,
  type SignatureParams
} from "../../support/outsideAgent.js"
import { removeDir, startServer, tempDataDir, type RunningServer } from "../../support/server.js"

// Codes that no request can trigger reliably yet, each with the reason.
const NOT_REACHABLE = [
  // The sequencer's queue holds 8,192 submissions (app/Sequencer.ts QUEUE_CAPACITY) and
  // drains in batches; filling it takes thousands of simultaneous connections.
  "queue_full",
  // Needs a server with a small budget: test/adapters/http/ciphertextBudget.test.ts.
  "ciphertext_budget_exhausted",
  // Need a server with small budgets or a proof-of-work difficulty (this one runs with
  // AICS_RATE_LIMITS=off, the harness default): test/adapters/http/admission.test.ts.
  "rate_limited", "work_insufficient",
  // Raised by owner- and policy-signed entries, or only after them (freezes, suspensions,
  // tombstones, quotes, SUP credits): they arrive through the admin routes, which do not
  // exist yet. Each has its domain test in test/domain/governance/governanceRefusals.test.ts.
  "not_owner", "not_policy", "writes_frozen", "suspended", "already_frozen", "not_frozen",
  "not_suspended", "already_tombstoned", "notice_closed", "task_awarded", "quote_paid",
  "quote_expired", "quote_unpaid", "action_completed", "insufficient_balance", "claim_settled",
  "policy_too_soon", "order_not_cited",
] as const satisfies ReadonlyArray<RefusalCode>

// log_unavailable needs a diverged log: it has its own server, at the end of this file.
type TableCode = Exclude<RefusalCode, "queue_full" | "log_unavailable" | (typeof NOT_REACHABLE)[number]>

interface Variant {
  readonly label: string
  readonly prepared: Prepared
  /** Host header to send instead of the server's. */
  readonly host?: string
  /** Request target instead of /v2/entries. */
  readonly path?: string
}

interface Case {
  /** The agent's first, accepted entry (seq 0): a post (default) or a claim of a fresh name. */
  readonly first?: "post" | "claim"
  readonly variants: (agent: OutsideAgent) => Array<Variant> | Promise<Array<Variant>>
}

let dataDir: string
let server: RunningServer
let log: Log
let names = 0

const now = () => Math.floor(Date.now() / 1000)
const freshName = () => `agent-${process.pid}-${++names}`
const treeSize = async (baseUrl: string): Promise<number> =>
  ((await (await fetch(`${baseUrl}/healthz`)).json()) as { tree_size: number }).tree_size

const requestBytes = (envelope: Json, body: Uint8Array | null, extra: Record<string, Json> = {}): Uint8Array =>
  utf8(jcs({ envelope, body: body === null ? null : u64(body), ...extra }))

/** An AICS-signed request of any bytes, the signature parameters taken from the envelope unless overridden. */
const signed = (
  agent: OutsideAgent,
  envelope: Envelope,
  bytes: Uint8Array,
  params: Partial<SignatureParams> = {},
  options: {
    readonly seed?: Uint8Array
    readonly authority?: string
    readonly path?: string
    readonly components?: ReadonlyArray<string>
    readonly label?: string
    readonly contentDigest?: string
  } = {}
): Prepared => ({
  envelope,
  body: bytes,
  headers: {
    "content-type": "application/json",
    ...signHttp(options.seed ?? agent.seed, { method: "POST", authority: options.authority ?? agent.authority, path: options.path ?? "/v2/entries", body: bytes }, {
      created: envelope["created"] as number,
      expires: envelope["expires"] as number,
      nonce: envelope["nonce"] as string,
      keyid: envelope["kid"] as string,
      ...params
    }, options)
  }
})

const postPayload = (text: string, extra: Record<string, Json> = {}) => {
  const body = utf8(text)
  return { payload: { channel: "general", body_hash: u64(sha256(body)), size: body.length, ...extra }, body }
}

/** A post at the agent's chain position, signed correctly. */
const goodPost = (agent: OutsideAgent, text = "a post") => {
  const { payload, body } = postPayload(text)
  const envelope = agent.envelope("post", payload)
  return { envelope, body, prepared: agent.prepare(envelope, body) }
}

const withoutHeaders = (prepared: Prepared, ...names: Array<string>): Prepared => ({
  ...prepared,
  headers: Object.fromEntries(Object.entries(prepared.headers).filter(([k]) => !names.includes(k)))
})

const withHeaders = (prepared: Prepared, headers: Record<string, string>): Prepared => ({
  ...prepared,
  headers: { ...prepared.headers, ...headers }
})

/** Another key's seed, to sign what the agent's key should have signed. */
const strangerSeed = () => sha256(utf8(`stranger ${Math.random()}`))

const accept = async (who: OutsideAgent, type: string, payload: Record<string, Json>, body: Uint8Array | null = null): Promise<number> => {
  const result = await who.submit(who.prepare(who.envelope(type, payload), body))
  expect(result.status, JSON.stringify(result.json)).toBe(202)
  return result.json.entry.index as number
}
const sealed = () => utf8(`ciphertext ${Math.random()}`)
const dmOf = (to: string, grantIndex: number, x25519Index: number) => {
  const ct = sealed()
  return { payload: { to, grant_index: grantIndex, ct_hash: u64(sha256(ct)), size: ct.length, x25519_index: x25519Index }, body: ct }
}


const CASES: { readonly [C in TableCode]: Case } = {
  not_authorized: {
    variants: async (agent) => {
      const owner = OutsideAgent.random(log)
      const name = freshName()
      await accept(owner, "claim", { name, x25519: owner.x25519 })
      const grant = await accept(owner, "grant", { sender: "*", use: "dm" })
      return [
        { label: "key.x25519 for another key's name", prepared: agent.prepare(agent.envelope("key.x25519", { name, x25519: agent.x25519 }), null) },
        { label: "key.rotate of another key's name", prepared: agent.prepare(agent.envelope("key.rotate", { name, new_kid: agent.kid, new_sig: u64(new Uint8Array(64)) }), null) },
        { label: "grant.revoke of another key's grant", prepared: agent.prepare(agent.envelope("grant.revoke", { grant_index: grant }), null) }
      ]
    }
  },
  grant_required: {
    variants: async (agent) => {
      const bob = OutsideAgent.random(log)
      const claim = await accept(bob, "claim", { name: freshName(), x25519: bob.x25519 })
      const forOther = await accept(bob, "grant", { sender: OutsideAgent.random(log).kid, use: "dm" })
      const revoked = await accept(bob, "grant", { sender: agent.kid, use: "dm" })
      await accept(bob, "grant.revoke", { grant_index: revoked })
      const a = dmOf(bob.kid, forOther, claim)
      const b = dmOf(bob.kid, revoked, claim)
      return [
        { label: "a grant for another sender", prepared: agent.prepare(agent.envelope("dm", a.payload), a.body) },
        { label: "a revoked grant", prepared: agent.prepare(agent.envelope("dm", b.payload), b.body) }
      ]
    }
  },
  grant_revoked: {
    variants: async (agent) => {
      const grant = await accept(agent, "grant", { sender: "*", use: "dm" })
      await accept(agent, "grant.revoke", { grant_index: grant })
      return [{ label: "a second revocation", prepared: agent.prepare(agent.envelope("grant.revoke", { grant_index: grant }), null) }]
    }
  },
  name_unclaimed: {
    variants: (agent) => [
      { label: "key.x25519 of an unclaimed name", prepared: agent.prepare(agent.envelope("key.x25519", { name: freshName(), x25519: agent.x25519 }), null) }
    ]
  },
  proof_invalid: {
    variants: async (agent) => {
      const name = freshName()
      await accept(agent, "claim", { name, x25519: agent.x25519 })
      return [{
        label: "a rotation whose new_sig is not the new key's",
        prepared: agent.prepare(agent.envelope("key.rotate", { name, new_kid: OutsideAgent.random(log).kid, new_sig: u64(new Uint8Array(64)) }), null)
      }]
    }
  },
  recipient_unknown: {
    variants: async (agent) => {
      const unnamed = OutsideAgent.random(log)
      const grant = await accept(unnamed, "grant", { sender: "*", use: "dm" })
      const { payload, body } = dmOf(unnamed.kid, grant, 0)
      return [{ label: "a dm to a key without a name", prepared: agent.prepare(agent.envelope("dm", payload), body) }]
    }
  },
  x25519_stale: {
    variants: async (agent) => {
      const bob = OutsideAgent.random(log)
      const name = freshName()
      const claim = await accept(bob, "claim", { name, x25519: bob.x25519 })
      const grant = await accept(bob, "grant", { sender: "*", use: "dm" })
      await accept(bob, "key.x25519", { name, x25519: u64(sha256(utf8(`new x25519 ${name}`))) })
      const { payload, body } = dmOf(bob.kid, grant, claim)
      return [{ label: "a dm to the X25519 key the claim set, since replaced", prepared: agent.prepare(agent.envelope("dm", payload), body) }]
    }
  },
  slot_taken: {
    variants: async (agent) => {
      const owner = OutsideAgent.random(log)
      const slot = u64(sha256(utf8(`slot ${Math.random()}`)))
      const first = sealed()
      await accept(owner, "capsule", { slot, ct_hash: u64(sha256(first)), size: first.length }, first)
      const ct = sealed()
      return [{ label: "another key's slot", prepared: agent.prepare(agent.envelope("capsule", { slot, ct_hash: u64(sha256(ct)), size: ct.length }), ct) }]
    }
  },

  // A request that passes the HTTP signature spends its (keyid, nonce) even when refused
  // later, so every variant below that gets that far signs a fresh envelope.
  malformed_request: {
    variants: (agent) => {
      const variant = (label: string, bytes: (envelope: Envelope, body: Uint8Array) => Uint8Array) => {
        const { envelope, body } = goodPost(agent)
        return { label, prepared: signed(agent, envelope, bytes(envelope, body)) }
      }
      return [
        variant("not JSON", () => utf8("{\"envelope\": {")),
        variant("not UTF-8", () => new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])),
        variant("a JSON array", (envelope) => utf8(jcs([envelope, null]))),
        variant("an extra member", (envelope, body) => requestBytes(envelope, body, { extra: 1 })),
        variant("no body member", (envelope) => utf8(jcs({ envelope }))),
        variant("body neither string nor null", (envelope) => utf8(jcs({ envelope, body: 5 }))),
        { label: "a query string", prepared: goodPost(agent).prepared, path: "/v2/entries?x=1" },
        // RFC 8785 section 3.1 takes I-JSON (RFC 7493 section 2.3: member names MUST be
        // unique): a repeated member anywhere in the body, envelope included, is refused,
        // since another parser may read the other value from the same signed bytes.
        variant("a repeated member", (envelope, body) => utf8(`{"body":${jcs(u64(body))},"envelope":${jcs(envelope)},"body":${jcs(u64(body))}}`)),
        variant("a repeated envelope member", (envelope, body) =>
          utf8(jcs({ envelope, body: u64(body) }).replace("\"v\":\"AICS-1\"", "\"v\":\"AICS-1\",\"v\":\"AICS-1\"")))
      ]
    }
  },
  malformed_envelope: {
    variants: (agent) => {
      const { payload, body } = postPayload("malformed")
      const variant = (label: string, change: (unsigned: Envelope, signed: Envelope) => Envelope) => {
        const base = agent.envelope("post", payload)
        const { auth: _auth, ...unsigned } = base
        const envelope = change(unsigned, base)
        return { label, prepared: signed(agent, envelope, requestBytes(envelope, body)) }
      }
      return [
        variant("an extra member", (u) => signEnvelope({ ...u, extra: true }, agent.seed)),
        variant("v is not AICS-1", (u) => signEnvelope({ ...u, v: "AICS-2" }, agent.seed)),
        variant("a member missing", (u) => signEnvelope(Object.fromEntries(Object.entries(u).filter(([k]) => k !== "prev")), agent.seed)),
        variant("seq 0 with a prev", (u) => signEnvelope({ ...u, seq: 0, prev: u64(sha256(utf8("x"))) }, agent.seed)),
        variant("a non-zero seq with prev null", (u) => signEnvelope({ ...u, prev: null }, agent.seed)),
        variant("seq as a string", (u) => signEnvelope({ ...u, seq: String(agent.seq) }, agent.seed)),
        variant("auth with another alg", (_, e) => ({ ...e, auth: { alg: "ed448", sig: (e["auth"] as { sig: string }).sig } })),
        variant("payload not an object", (u) => signEnvelope({ ...u, payload: [1, 2] }, agent.seed))
      ]
    }
  },
  origin_mismatch: {
    variants: (agent) => {
      const { payload, body } = postPayload("elsewhere")
      const envelope = agent.envelope("post", payload, { origin: "elsewhere.example/aics" })
      return [{ label: "another log's origin", prepared: agent.prepare(envelope, body) }]
    }
  },
  unknown_type: {
    variants: (agent) => [
      { label: "charter (policy-signed)", prepared: agent.prepare(agent.envelope("charter", {}), null) },
      { label: "an unregistered type", prepared: agent.prepare(agent.envelope("frobnicate", { x: 1 }), null) }
    ]
  },
  body_mismatch: {
    variants: (agent) => {
      const { payload, body } = postPayload("the body that was signed")
      const other = utf8("the body that is sent!!!")
      expect(other.length).toBe(body.length)
      const post = () => agent.envelope("post", payload)
      const claim = agent.envelope("claim", { name: freshName(), x25519: agent.x25519 })
      const noncanonical = post()
      return [
        { label: "wrong hash", prepared: agent.prepare(post(), other) },
        { label: "wrong size", prepared: agent.prepare(post(), concat(body, utf8("!"))) },
        { label: "missing body", prepared: agent.prepare(post(), null) },
        { label: "a body for a claim", prepared: agent.prepare(claim, utf8("no body here")) },
        { label: "body not canonical U64", prepared: signed(agent, noncanonical, utf8(jcs({ envelope: noncanonical, body: `${u64(body)}=` }))) }
      ]
    }
  },
  digest_mismatch: {
    variants: (agent) => {
      const { envelope, body, prepared } = goodPost(agent, "signed text")
      const damaged = requestBytes(envelope, utf8("other text"))
      return [
        { label: "the body is not the one signed", prepared: { ...prepared, body: damaged } },
        {
          label: "a Content-Digest that is not a byte sequence",
          prepared: signed(agent, envelope, requestBytes(envelope, body), {}, { contentDigest: "sha-256=abc" })
        }
      ]
    }
  },
  signature_missing: {
    variants: (agent) => [
      { label: "no Signature-Input, no Signature", prepared: withoutHeaders(goodPost(agent).prepared, "signature-input", "signature") },
      { label: "no headers at all", prepared: withoutHeaders(goodPost(agent).prepared, "signature-input", "signature", "content-digest") }
    ]
  },
  signature_malformed: {
    variants: (agent) => {
      const { prepared } = goodPost(agent)
      return [
        { label: "Signature-Input without Signature", prepared: withoutHeaders(prepared, "signature") },
        { label: "Signature without Signature-Input", prepared: withoutHeaders(prepared, "signature-input") },
        { label: "Signature not a byte sequence", prepared: withHeaders(prepared, { signature: "aics=\"abc\"" }) },
        { label: "Signature-Input not a structured field", prepared: withHeaders(prepared, { "signature-input": "aics=(((" }) },
        { label: "a 63-byte signature", prepared: withHeaders(prepared, { signature: `aics=:${Buffer.alloc(63).toString("base64")}:` }) }
      ]
    }
  },
  signature_profile: {
    variants: (agent) => {
      const { envelope, body, prepared } = goodPost(agent)
      const bytes = requestBytes(envelope, body)
      return [
        { label: "content-digest not covered", prepared: signed(agent, envelope, bytes, {}, { components: ["@method", "@authority", "@path"] }) },
        { label: "components in another order", prepared: signed(agent, envelope, bytes, {}, { components: ["@authority", "@method", "@path", "content-digest"] }) },
        { label: "tag is not aics", prepared: signed(agent, envelope, bytes, { tag: "other" }) },
        { label: "alg is not ed25519", prepared: signed(agent, envelope, bytes, { alg: "rsa-pss-sha512" }) },
        { label: "label is not aics", prepared: signed(agent, envelope, bytes, {}, { label: "sig1" }) },
        {
          label: "not in canonical spelling",
          prepared: withHeaders(prepared, { "signature-input": prepared.headers["signature-input"]!.replace("\" \"", "\"  \"") })
        }
      ]
    }
  },
  digest_missing: {
    variants: (agent) => {
      const { envelope, body, prepared } = goodPost(agent)
      const bytes = requestBytes(envelope, body)
      return [
        { label: "no Content-Digest", prepared: withoutHeaders(prepared, "content-digest") },
        {
          label: "Content-Digest without sha-256",
          prepared: signed(agent, envelope, bytes, {}, { contentDigest: `sha-512=:${Buffer.alloc(64).toString("base64")}:` })
        }
      ]
    }
  },
  authority_not_allowed: {
    variants: (agent) => {
      const { envelope, body } = goodPost(agent)
      const bytes = requestBytes(envelope, body)
      return [
        { label: "another host", prepared: signed(agent, envelope, bytes, {}, { authority: "evil.example" }), host: "evil.example" },
        { label: "another port", prepared: signed(agent, envelope, bytes, {}, { authority: "127.0.0.1:1" }), host: "127.0.0.1:1" }
      ]
    }
  },
  signature_clock: {
    variants: (agent) => {
      const { payload, body } = postPayload("clock")
      const past = agent.envelope("post", payload, { created: now() - 400, expires: now() + 100 })
      const future = agent.envelope("post", payload, { created: now() + 400, expires: now() + 500 })
      return [
        { label: "created 400 s ago", prepared: agent.prepare(past, body) },
        { label: "created 400 s ahead", prepared: agent.prepare(future, body) }
      ]
    }
  },
  signature_expired: {
    variants: (agent) => {
      const { payload, body } = postPayload("expired")
      const envelope = agent.envelope("post", payload, { created: now() - 200, expires: now() - 10 })
      return [{ label: "expires has passed", prepared: agent.prepare(envelope, body) }]
    }
  },
  signature_lifetime: {
    variants: (agent) => {
      const { payload, body } = postPayload("lifetime")
      const long = agent.envelope("post", payload, { created: now(), expires: now() + 601 })
      const empty = agent.envelope("post", payload, { created: now(), expires: now() })
      return [
        { label: "expires 601 s after created", prepared: agent.prepare(long, body) },
        { label: "expires equal to created", prepared: agent.prepare(empty, body) }
      ]
    }
  },
  keyid_invalid: {
    variants: (agent) => {
      const { envelope, body } = goodPost(agent)
      const bytes = requestBytes(envelope, body)
      const secp256k1 = `did:key:z${base58btc(concat(new Uint8Array([0xe7, 0x01, 0x02]), new Uint8Array(32).fill(7)))}`
      return [
        { label: "a did:web", prepared: signed(agent, envelope, bytes, { keyid: "did:web:example.com" }) },
        { label: "a secp256k1 did:key", prepared: signed(agent, envelope, bytes, { keyid: secp256k1 }) },
        { label: "a truncated did:key", prepared: signed(agent, envelope, bytes, { keyid: agent.kid.slice(0, -3) }) }
      ]
    }
  },
  nonce_invalid: {
    variants: (agent) => {
      const { envelope, body } = goodPost(agent)
      const bytes = requestBytes(envelope, body)
      return [
        { label: "8 bytes", prepared: signed(agent, envelope, bytes, { nonce: u64(new Uint8Array(8).fill(1)) }) },
        { label: "33 bytes", prepared: signed(agent, envelope, bytes, { nonce: u64(new Uint8Array(33).fill(1)) }) },
        { label: "not U64", prepared: signed(agent, envelope, bytes, { nonce: "not*base64url*at*all" }) }
      ]
    }
  },
  signature_invalid: {
    variants: (agent) => {
      const { envelope, body } = goodPost(agent)
      const bytes = requestBytes(envelope, body)
      return [
        { label: "signed by another key", prepared: signed(agent, envelope, bytes, {}, { seed: strangerSeed() }) },
        { label: "signed for another path", prepared: signed(agent, envelope, bytes, {}, { path: "/v2/other" }) },
        { label: "signed for another allowed authority", prepared: signed(agent, envelope, bytes, {}, { authority: `localhost:${server.port}` }) }
      ]
    }
  },
  envelope_signature_invalid: {
    variants: (agent) => {
      const { payload, body } = postPayload("envelope signature")
      const { auth: _auth, ...unsigned } = agent.envelope("post", payload)
      const byStranger = signEnvelope(unsigned, strangerSeed())
      const altered = { ...agent.envelope("post", payload), payload: { ...payload, channel: "altered" } }
      return [
        { label: "signed by another key", prepared: agent.prepare(byStranger, body) },
        { label: "altered after signing", prepared: agent.prepare(altered, body) }
      ]
    }
  },
  envelope_binding: {
    variants: (agent) => {
      const variant = (label: string, params: (envelope: Envelope) => Partial<SignatureParams>) => {
        const { envelope, body } = goodPost(agent)
        return { label, prepared: signed(agent, envelope, requestBytes(envelope, body), params(envelope)) }
      }
      const other = OutsideAgent.random(log)
      const { payload, body } = postPayload("bound to another key")
      const otherEnvelope = other.envelope("post", payload)
      return [
        variant("another nonce", () => ({ nonce: randomNonce() })),
        variant("another created", (e) => ({ created: (e["created"] as number) - 1 })),
        variant("another expires", (e) => ({ expires: (e["expires"] as number) - 1 })),
        { label: "an envelope of another key", prepared: signed(agent, otherEnvelope, requestBytes(otherEnvelope, body), { keyid: agent.kid }) }
      ]
    }
  },
  nonce_reused: {
    variants: async (agent) => {
      const first = goodPost(agent, "first use of the nonce")
      const accepted = await agent.submit(first.prepared)
      expect(accepted.status).toBe(202)
      const { payload, body } = postPayload("second use of the nonce")
      const again = agent.envelope("post", payload, { nonce: first.envelope["nonce"] as string })
      return [
        { label: "the same request again", prepared: first.prepared },
        { label: "a new envelope with the same nonce", prepared: agent.prepare(again, body) }
      ]
    }
  },
  seq_mismatch: {
    variants: (agent) => {
      const { payload, body } = postPayload("out of order")
      return [
        { label: "seq one ahead", prepared: agent.prepare(agent.envelope("post", payload, { seq: agent.seq + 1 }), body) },
        { label: "seq 0 again", prepared: agent.prepare(agent.envelope("post", payload, { seq: 0, prev: null }), body) }
      ]
    }
  },
  prev_mismatch: {
    variants: (agent) => {
      const { payload, body } = postPayload("wrong prev")
      return [{ label: "another prev", prepared: agent.prepare(agent.envelope("post", payload, { prev: u64(sha256(utf8("not the previous envelope"))) }), body) }]
    }
  },
  name_taken: {
    variants: async (agent) => {
      const owner = OutsideAgent.random(log)
      const name = freshName()
      expect((await owner.claim(name)).status).toBe(202)
      return [{ label: "a name another key holds", prepared: agent.prepare(agent.envelope("claim", { name, x25519: agent.x25519 }), null) }]
    }
  },
  already_voted: {
    variants: async (agent) => {
      const pollIndex = await openPoll(60)
      const first = await agent.write("vote", { poll_index: pollIndex, option: 0 })
      expect(first.status, JSON.stringify(first.json)).toBe(202)
      return [{ label: "a second vote in the same poll", prepared: agent.prepare(agent.envelope("vote", { poll_index: pollIndex, option: 1 }), null) }]
    }
  },
  poll_closed: {
    variants: async (agent) => {
      const pollIndex = await openPoll(2)
      await new Promise((r) => setTimeout(r, 3_000))
      return [{ label: "a vote after closes", prepared: agent.prepare(agent.envelope("vote", { poll_index: pollIndex, option: 0 }), null) }]
    }
  },
  key_has_name: {
    first: "claim",
    variants: (agent) => [
      { label: "a second name", prepared: agent.prepare(agent.envelope("claim", { name: freshName(), x25519: agent.x25519 }), null) }
    ]
  },
  body_too_large: {
    variants: (agent) => {
      const { payload, body } = postPayload("x".repeat(16 * 1024 + 1))
      const small = utf8("small")
      return [
        { label: "a 16 KiB + 1 post", prepared: agent.prepare(agent.envelope("post", payload), body) },
        {
          label: "a size over the limit with a small body",
          prepared: agent.prepare(agent.envelope("post", { channel: "general", body_hash: u64(sha256(small)), size: 16 * 1024 + 1 }), small)
        }
      ]
    }
  },
  entry_too_large: {
    variants: (agent) => {
      const big = postPayload("y".repeat(200_000))
      const name = "a".repeat(66_000)
      return [
        { label: "a request body over 256 KiB", prepared: agent.prepare(agent.envelope("post", big.payload), big.body) },
        { label: "an envelope making a leaf over 65,535 bytes", prepared: agent.prepare(agent.envelope("claim", { name, x25519: agent.x25519 }), null) }
      ]
    }
  },
  payload_invalid: {
    variants: (agent) => {
      const variant = (label: string, type: string, payload: Record<string, Json>, body: Uint8Array | null) =>
        ({ label, prepared: agent.prepare(agent.envelope(type, payload), body) })
      const { payload, body } = postPayload("invalid")
      return [
        variant("a channel with capitals and spaces", "post", { ...payload, channel: "Not A Channel" }, body),
        variant("an extra payload member", "post", { ...payload, mood: "happy" }, body),
        variant("a missing payload member", "post", { channel: "general", size: body.length }, body),
        variant("a reply to a leaf that is not a post (the charter)", "post", { ...payload, reply_to: 0 }, body),
        variant("a claim with a 31-byte x25519 key", "claim", { name: freshName(), x25519: u64(new Uint8Array(31)) }, null),
        variant("a claim whose recovery key is the claiming key", "claim", { name: freshName(), x25519: agent.x25519, recovery: agent.kid }, null)
      ]
    }
  },
  name_invalid: {
    variants: (agent) => ["ab", "a", "ab--cd", "-abc", "abc-", "Alice", "bob_", "a".repeat(33), "ｆｕｌｌｗｉｄｔｈ"].map((name) => ({
      label: JSON.stringify(name),
      prepared: agent.prepare(agent.envelope("claim", { name, x25519: agent.x25519 }), null)
    }))
  },
  name_reserved: {
    variants: (agent) => ["admin", "owner", "tiles", "support"].map((name) => ({
      label: name,
      prepared: agent.prepare(agent.envelope("claim", { name, x25519: agent.x25519 }), null)
    }))
  }
}

/** Sends an offending request and checks everything a refusal promises. */
const expectRefused = async (agent: OutsideAgent, code: RefusalCode, variant: Variant) => {
  const before = await treeSize(agent.log.baseUrl)
  const seq = agent.seq
  const prev = agent.prev
  // submit() opens the note with log.vkey and checks that it names entry.refused and
  // SHA-256(JCS(envelope)) of what was sent (or of the bytes, when no envelope is readable).
  const result = await agent.submit(variant.prepared, {
    ...(variant.host === undefined ? {} : { host: variant.host }),
    ...(variant.path === undefined ? {} : { path: variant.path })
  })
  const entry = result.json.entry
  expect(entry.refused, `${variant.label}: ${entry.detail ?? JSON.stringify(result.json)}`).toBe(code)
  expect(result.status, variant.label).toBe(REFUSALS[code].status)
  expect(result.note[1]).toBe(`refusal ${code}`)
  expect(typeof entry.detail).toBe("string")
  expect(result.location).toBeUndefined()
  // kid and seq where they could be read (a body over the limit is refused unread).
  const readable = variant.prepared.body.length > MAX_WRITE_REQUEST_BYTES ? {} : readableKey(variant.prepared.body)
  if (readable.kid !== undefined) expect(entry.kid, variant.label).toBe(readable.kid)
  if (readable.seq !== undefined) expect(entry.seq, variant.label).toBe(readable.seq)
  expect(await treeSize(agent.log.baseUrl), `${variant.label}: the tree grew`).toBe(before)
  expect(agent.seq).toBe(seq)
  expect(agent.prev).toBe(prev)
}

const readableKey = (bytes: Uint8Array): { kid?: unknown; seq?: unknown } => {
  try {
    const envelope = JSON.parse(fromUtf8(bytes))?.envelope
    if (typeof envelope !== "object" || envelope === null) return {}
    return {
      ...(typeof envelope.kid === "string" ? { kid: envelope.kid } : {}),
      ...(Number.isSafeInteger(envelope.seq) ? { seq: envelope.seq } : {})
    }
  } catch {
    return {}
  }
}

/** The next correctly chained write from the key is accepted at the seq the refusals left. */
const expectChainIntact = async (agent: OutsideAgent) => {
  const seq = agent.seq
  const result = await agent.post(`accepted after the refusals, at seq ${seq}`)
  expect(result.status, JSON.stringify(result.json)).toBe(202)
  expect(result.json.entry.seq).toBe(seq)
  expect(result.location).toBe(`/v2/entries/${result.json.entry.index}`)
}

/** An agent one accepted entry into its chain, so that a refusal that advanced it would show. */
/** A poll by a fresh agent, closing `seconds` from now; its leaf index. */
const openPoll = async (seconds: number): Promise<number> => {
  const pollster = OutsideAgent.random(log)
  const text = utf8(`which one? ${Date.now()}`)
  const result = await pollster.write("poll", {
    channel: "general", body_hash: u64(sha256(text)), size: text.length, options: ["this", "that"],
    closes: Math.floor(Date.now() / 1000) + seconds
  }, text)
  expect(result.status, JSON.stringify(result.json)).toBe(202)
  return result.json.entry.index
}

const readyAgent = async (first: "post" | "claim" = "post"): Promise<OutsideAgent> => {
  const agent = OutsideAgent.random(log)
  const result = first === "claim" ? await agent.claim(freshName()) : await agent.post("the first entry of this key")
  expect(result.status, JSON.stringify(result.json)).toBe(202)
  expect(agent.seq).toBe(1)
  return agent
}

describe("each refusal of the catalogue through the real server", () => {
  beforeAll(async () => {
    dataDir = await tempDataDir()
    server = await startServer({ dataDir })
    log = { baseUrl: server.baseUrl, origin: "localhost/aics", vkey: (await readFile(join(dataDir, "log.vkey"), "utf8")).trim() }
  })

  afterAll(async () => {
    await server?.stop()
    await removeDir(dataDir)
  })

  it("tests every code of the catalogue but those not reachable yet", () => {
    const tested = [...Object.keys(CASES), "log_unavailable"].sort()
    const expected = Object.keys(REFUSALS).filter((code) => !(NOT_REACHABLE as ReadonlyArray<string>).includes(code)).sort()
    expect(tested).toEqual(expected)
  })

  for (const [code, testCase] of Object.entries(CASES) as Array<[TableCode, Case]>) {
    it(`${code} (${REFUSALS[code].status})`, async () => {
      const agent = await readyAgent(testCase.first)
      const variants = await testCase.variants(agent)
      expect(variants.length).toBeGreaterThan(0)
      for (const variant of variants) await expectRefused(agent, code, variant)
      await expectChainIntact(agent)
    })
  }

  it("authority_not_allowed names the Host and the authorities accepted, and the node logs it, not once a refusal", async () => {
    // A load balancer's host, which this node (no AICS_PUBLIC_URL) was not told.
    const LB = "aics-lb.example.org"
    const said = () => server.stdout().split("signed requests refused authority_not_allowed").length - 1
    const agent = await readyAgent()
    const before = said()
    for (let i = 0; i < 20; i++) {
      const { envelope, body } = goodPost(agent, `through the balancer ${i}`)
      const result = await agent.submit(signed(agent, envelope, requestBytes(envelope, body), {}, { authority: LB }), { host: LB })
      expect(result.status).toBe(401)
      expect(result.json.entry.refused).toBe("authority_not_allowed")
      expect(result.json.entry.detail).toBe(`the request's Host "${LB}" (the @authority it signs) is not an authority of this service; ` +
        `it accepts 127.0.0.1:${server.port}, localhost:${server.port}, hosts of its own machine only (AICS_PUBLIC_URL and AICS_AUTHORITY set them)`)
    }
    // Said (by now, or by the catalogue's own case before), and once a minute at most.
    const deadline = Date.now() + 5_000
    while (said() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    expect(said()).toBeGreaterThanOrEqual(1)
    expect(said() - before).toBeLessThanOrEqual(1)
    await expectChainIntact(agent)
  })
})

describe("log_unavailable: a log diverged from its tiles refuses writes", () => {
  let diverged: RunningServer
  let divergedDir: string
  const env = { AICS_TILE_CHECK_SECONDS: "1" }

  afterAll(async () => {
    await diverged?.stop()
    if (divergedDir !== undefined) await removeDir(divergedDir)
  })

  it(`log_unavailable (${REFUSALS.log_unavailable.status})`, async () => {
    divergedDir = await tempDataDir()
    diverged = await startServer({ dataDir: divergedDir, env })
    const vkey = (await readFile(join(divergedDir, "log.vkey"), "utf8")).trim()
    const target: Log = { baseUrl: diverged.baseUrl, origin: "localhost/aics", vkey }
    const agent = OutsideAgent.random(target)
    expect((await agent.post("before the divergence")).status).toBe(202)
    // Wait for the checkpoint covering it, then damage its partial tile on disk.
    const { size } = await agent.checkpointCovering(2)
    expect(size).toBe(2)
    const tile = join(divergedDir, "tiles", "tile", "0", `000.p/${size}`)
    const original = await readFile(tile)
    const damaged = Buffer.from(original)
    damaged[40] = damaged[40]! ^ 0x01
    await writeFile(tile, damaged)
    let status = 0
    for (let i = 0; i < 60 && status !== 503; i++) {
      await new Promise((r) => setTimeout(r, 200))
      status = (await fetch(`${diverged.baseUrl}/healthz`)).status
    }
    expect(status).toBe(503)

    const { prepared } = goodPost(agent, "while diverged")
    await expectRefused(agent, "log_unavailable", { label: "a correct write to a diverged log", prepared })

    // Repaired and restarted, the log takes the key's next write at the same seq.
    await diverged.stop()
    await writeFile(tile, original)
    diverged = await startServer({ dataDir: divergedDir, env })
    const restarted = new OutsideAgent(agent.seed, { ...target, baseUrl: diverged.baseUrl })
    restarted.seq = agent.seq
    restarted.prev = agent.prev
    await expectChainIntact(restarted)
  })
})
