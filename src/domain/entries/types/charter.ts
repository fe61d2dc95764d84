// `charter` (leaf 0, docs/spec/profile.md section 5): the policy key's first envelope. It fixes the
// service's keys and terms (instance domain, ciphertext retention) for every later rule and
// view. Only the service writes it, once.

import * as Schema from "effect/Schema"
import { refuse } from "../../write/refusal.js"
import { DOCUMENT_LIMIT, entryRule } from "../entryRule.js"
import { DidKey, Hash32, Size, UnixSeconds } from "../fields.js"

export const CharterPayload = Schema.Struct({
  document_hash: Hash32,
  size: Size,
  origin: Schema.NonEmptyString,
  log_vkey: Schema.NonEmptyString,
  policy_kid: DidKey,
  owner_kid: DidKey,
  instance_domain: Schema.NonEmptyString,
  notice_period_seconds: UnixSeconds,
  retention_days: Schema.Int.pipe(Schema.greaterThanOrEqualTo(90)),
  mmd_seconds: Schema.Int.pipe(Schema.positive())
})

export const charter = entryRule({
  type: "charter",
  signer: "policy",
  payload: CharterPayload,
  body: { kind: "text", hashMember: "document_hash", maxBytes: DOCUMENT_LIMIT },
  check: (state, { envelope, payload, index }) =>
    index !== 0 || state.service !== undefined
      ? refuse("payload_invalid", "the charter is leaf 0 and only leaf 0")
      : envelope.kid !== payload.policy_kid
        ? refuse("payload_invalid", "the charter is signed by the policy key it names")
        : undefined,
  apply: (state, { payload, index }) => ({
    ...state,
    service: {
      origin: payload.origin,
      policyKid: payload.policy_kid,
      ownerKid: payload.owner_kid,
      instanceDomain: payload.instance_domain,
      noticePeriodSeconds: payload.notice_period_seconds,
      // The retention of DM and capsule ciphertext (bodyStatus.ts); an expired body cites
      // this leaf as its policy_index.
      retentionDays: payload.retention_days,
      retentionIndex: index
    }
  })
})
