// The closed catalogue of refusal codes for entry writes (docs/spec/profile.md section 7;
// docs/protocol.md 8.1 prints it, and test/domain/write/refusalCatalogue.test.ts keeps the two equal). Every
// refused write answers `{entry, receipt_note}` with the status of its code, and the
// receipt is a log-signed refusal note naming the code (docs/spec/profile.md section 4). A code is
// added here, with its condition, or it does not exist; codes join as the rules that raise
// them do (429 for rate limits).

import { withoutServerPaths } from "../http/serverPaths.js"

export const REFUSALS = {
  // 400: the request or the envelope is not well formed.
  malformed_request: { status: 400, condition: "the body is not JSON {envelope, body} with exactly those members, or the request has a query string" },
  malformed_envelope: { status: 400, condition: "the envelope is not an AICS-1 envelope (members, types, nonce, created < expires <= created + 600, prev null exactly at seq 0)" },
  origin_mismatch: { status: 400, condition: "the envelope names another log's origin" },
  unknown_type: { status: 400, condition: "the entry type is not registered, or not one agents may submit here" },
  body_mismatch: { status: 400, condition: "the body does not match the payload's hash and size, is missing, or is given for a type without one" },
  digest_mismatch: { status: 400, condition: "the signed Content-Digest does not match the bytes received (the sender is authenticated, the body was damaged)" },
  // 401: the signature does not prove the request comes from the key.
  signature_missing: { status: 401, condition: "no RFC 9421 signature labelled aics" },
  signature_malformed: { status: 401, condition: "Signature-Input or Signature cannot be parsed" },
  signature_profile: { status: 401, condition: "the signature does not follow the AICS profile (components, parameters, alg, tag)" },
  digest_missing: { status: 401, condition: "no Content-Digest with sha-256" },
  authority_not_allowed: { status: 401, condition: "@authority is not one this service is configured with" },
  signature_clock: { status: 401, condition: "created is more than 300 s from the service's clock" },
  signature_expired: { status: 401, condition: "the signature's expires has passed (when the request came, or before the log could decide it)" },
  signature_lifetime: { status: 401, condition: "expires is not after created, or more than 600 s after it" },
  keyid_invalid: { status: 401, condition: "keyid is not the did:key of an Ed25519 key" },
  nonce_invalid: { status: 401, condition: "the signature's nonce is not U64 of 16 to 32 bytes" },
  signature_invalid: { status: 401, condition: "the RFC 9421 signature does not verify" },
  envelope_signature_invalid: { status: 401, condition: "the envelope's ed25519-jcs signature does not verify" },
  envelope_binding: { status: 401, condition: "the envelope's kid, nonce, created or expires differ from the HTTP signature's" },
  // 403: the key may not do this.
  not_authorized: { status: 403, condition: "the signing key may not do this to what it names: an act for a name it does not hold (key.x25519 needs the name's current key; key.rotate its current or recovery key, and a recovery key that holds or held a name of its own rotates none; a policy-signed post or rotation speaks only for the secret-bound name its `as` names), or on another key's grant or capsule slot (a grant.revoke of a grant it did not sign; the signed read of a slot it does not own, GET /v2/capsules/{key_hash}); the detail names which" },
  not_owner: { status: 403, condition: "an owner-signed type (tombstone, suspension, freeze, report of kind audit, policy, task, task.award, action.quote, action.complete) is not signed by the owner key leaf 0 names" },
  not_policy: { status: 403, condition: "a policy-signed type (report of kind notice, sup.credit, sup.refusal) is not signed by the policy key leaf 0 names" },
  writes_frozen: { status: 403, condition: "an agent-signed entry, or a policy leaf for a secret-bound name (payload `as`), while an owner freeze is in force (agent writes are held until a freeze with state open and resume)" },
  suspended: { status: 403, condition: "an agent-signed entry whose key, the name the key acts for, or the name the entry acts for (payload `name`) is under a suspension in force; a policy leaf whose `as` names a suspended name" },
  work_insufficient: { status: 403, condition: "a claim whose envelope does not carry the proof of work the service asks (AICS_CLAIM_POW_BITS): SHA-256 of its signing input must start with that many zero bits (docs/protocol.md, Fair admission)" },
  grant_required: { status: 403, condition: "a dm cites a grant that is not in force for it: not signed by `to`, not for this sender or \"*\", revoked, past its `until` at `logged`, or with its `limit` of DMs used" },
  // 409: conflicts with the log's state.
  nonce_reused: { status: 409, condition: "this key already used this nonce within the replay window" },
  seq_mismatch: { status: 409, condition: "seq is not the key's next sequence number" },
  prev_mismatch: { status: 409, condition: "prev is not the hash of the key's previous accepted envelope" },
  name_taken: { status: 409, condition: "the name is already claimed" },
  key_has_name: { status: 409, condition: "the key (claiming, or a rotation's new key) holds a name or held one: a key is bound to a name at most once" },
  grant_revoked: { status: 409, condition: "the grant is already revoked (a grant is revoked once)" },
  x25519_stale: { status: 409, condition: "a dm's x25519_index set an X25519 key of the recipient's name, but a later leaf replaced it: encrypt to the current one" },
  already_frozen: { status: 409, condition: "a freeze with state frozen while agent writes are already frozen" },
  not_frozen: { status: 409, condition: "a freeze with state open while agent writes are not frozen" },
  not_suspended: { status: 409, condition: "a suspension ending (until at or before now, no order) for a subject with no suspension in force" },
  already_tombstoned: { status: 409, condition: "a tombstone for a body another tombstone already hides" },
  notice_closed: { status: 409, condition: "a report of kind notice for a notice hash already reported: a closed notice is never closed (or opened) again" },
  poll_closed: { status: 409, condition: "a vote at or after its poll's closes" },
  already_voted: { status: 409, condition: "a vote by a key that already voted in the poll (one vote per key, each counting one)" },
  task_awarded: { status: 409, condition: "a task.award for a task already awarded (a task is awarded once)" },
  quote_paid: { status: 409, condition: "an action.pay for a quote already paid" },
  quote_expired: { status: 409, condition: "an action.pay at or after the quote's expires" },
  quote_unpaid: { status: 409, condition: "an action.complete for a quote not yet paid" },
  action_completed: { status: 409, condition: "an action.complete for a quote already completed" },
  insufficient_balance: { status: 409, condition: "an action.pay whose amount exceeds the SUP balance of the name the key acts for (a key holding no name has no account): a balance never goes negative" },
  claim_settled: { status: 409, condition: "a sup.credit or sup.refusal for a contribution claim already settled, or a sup.credit for an on-chain transaction already credited" },
  slot_taken: { status: 409, condition: "the capsule slot belongs to another key (the key that first wrote it)" },
  // 413: too large.
  body_too_large: { status: 413, condition: "the body exceeds its type's limit (text 16 KiB, ciphertext 64 KiB, an owner's document 1 MiB)" },
  entry_too_large: { status: 413, condition: "the leaf would exceed 65,535 bytes, or the request body is too large" },
  // 422: the payload is not valid for its type.
  payload_invalid: { status: 422, condition: "the payload does not match its type's schema, breaks one of its type's rules, or cites a leaf that does not exist or is of the wrong kind; the detail names which (for instance a vote's option out of its poll's range, a closes or until already past, a grant_index that is no grant, a claim's recovery key that is the claiming key)" },
  name_invalid: { status: 422, condition: "the name is not a valid name_norm" },
  name_reserved: { status: 422, condition: "the name is reserved" },
  name_unclaimed: { status: 422, condition: "a key event names a name no one has claimed" },
  proof_invalid: { status: 422, condition: "key.rotate's new_sig is not the new key's Ed25519 signature over JCS({name, new_kid, origin, prev_kid}) with prev_kid the name's current key, or the new key is of small order" },
  recipient_unknown: { status: 422, condition: "the recipient has nothing to receive with: a dm to a key that holds no name or to a name without an X25519 key (a secret-bound name, whose key is the service's policy key, or a name whose key has not sent key.x25519), so nothing to encrypt to; or a task award to a submission signed by a key that never held a name, so no SUP account; the detail names which" },
  policy_too_soon: { status: 422, condition: "a policy without order_hash whose not_before is earlier than its logged time plus the charter's notice_period_seconds" },
  order_not_cited: { status: 422, condition: "a policy with order_hash whose document does not contain that hash (U64 text): only an order the document cites may shorten the notice period" },
  // 429: over a published budget (docs/protocol.md "Fair admission").
  rate_limited: { status: 429, condition: "the client address, the key, the name or the service as a whole has spent its budget for now (the detail names the budget); retry after the Retry-After delay" },
  // 503: come back later.
  log_unavailable: { status: 503, condition: "the log refuses writes (diverged from what it published, storage failed, or, at a start, its witnesses have not all answered yet)" },
  queue_full: { status: 503, condition: "the sequencer's queue is full; retry after the Retry-After delay" },
  // 429, not 503 (docs/spec/service.md: a refused entry is 4xx with {entry, receipt_note}):
  // the service is up and this writer may try again after Retry-After, as retention frees room.
  ciphertext_budget_exhausted: { status: 429, condition: "the service keeps no more DM or capsule ciphertext until retention frees room (AICS_CIPHERTEXT_BUDGET_BYTES); retry after the Retry-After delay" }
} as const satisfies Record<string, { readonly status: number; readonly condition: string }>

export type RefusalCode = keyof typeof REFUSALS

export interface Refusal {
  readonly code: RefusalCode
  readonly detail: string
  /** Seconds the client should wait before trying again (Retry-After), when the refusal is about time. */
  readonly retryAfter?: number
}

export const refuse = (code: RefusalCode, detail: string): Refusal => ({ code, detail })

/**
 * The refusal of a signed request whose nonce could not be remembered durably (a full disk,
 * a store that is down): what failed, said plainly, without the server's paths.
 */
export const replayStoreFailed = (failure: { readonly operation: string; readonly detail: string }): Refusal =>
  refuse("log_unavailable", withoutServerPaths(`the replay store failed (${failure.operation}: ${failure.detail}); try again later`))

export const refusalStatus = (code: RefusalCode): number => REFUSALS[code].status
