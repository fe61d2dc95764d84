// The contribution routes of docs/spec/service.md "SUP" (docs/protocol.md section 13), declared for
// /openapi.json: POST /v2/sup/contributions/intents and POST /v2/sup/contributions. Both
// are handled raw (handlers/contributions.ts): the claim's bytes must be its JCS form, and
// both refuse plain HTTP, so the schemas here document what the handlers check themselves.

import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { CLAIM_REFUSALS } from "../../domain/entries/types/supRefusal.js"
import { BadRequest, ContentTooLarge, problemEncoding, RouteConflict, RouteRefused } from "./problem.js"

export const ContributionIntentRequest = Schema.Struct({
  network: Schema.String.annotations({ description: "a configured network (1 to 32 of a-z 0-9 -)" }),
  amount: Schema.Int.annotations({ description: "whole SUP, at least 1" }),
  name: Schema.optional(Schema.String.annotations({ description: "optional: fixes the claimed name (name_norm) the SUP is credited to; else the claim names it" }))
}).annotations({ identifier: "ContributionIntentRequest" })

export const ContributionIntent = Schema.Struct({
  intent_id: Schema.String,
  name: Schema.NullOr(Schema.String).annotations({ description: "the name the intent fixed, or null: the claim names it" }),
  network: Schema.String,
  asset: Schema.String.annotations({ description: "compare with the signed card before sending" }),
  address: Schema.String.annotations({ description: "compare with the signed card before sending" }),
  units: Schema.String.annotations({ description: "exactly this many smallest units of the asset (decimal)" }),
  amount: Schema.Int,
  expires: Schema.Int.annotations({ description: "Unix seconds: the transfer must come by then" }),
  claim_until: Schema.Int.annotations({ description: "Unix seconds: the claim must come by then" })
}).annotations({ identifier: "ContributionIntent", [HttpApiSchema.AnnotationStatus]: 201 })

export const ContributionClaimRequest = Schema.Struct({
  intent_id: Schema.String,
  tx: Schema.String.annotations({ description: "the transaction id on the intent's network" }),
  created: Schema.Int.annotations({ description: "Unix seconds, within 300 s of the service's clock" }),
  name: Schema.optional(Schema.String.annotations({ description: "the claimed name to credit: required when the intent named none, else the intent's" }))
}).annotations({ identifier: "ContributionClaimRequest", description: "sent in its JCS form (RFC 8785); claim_hash = SHA-256 of these bytes" })

export const ContributionClaimReceipt = Schema.Struct({
  entry: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ description: "the policy-signed sup.credit or sup.refusal leaf: index, leaf_hash, logged, type, kid, seq" }),
  receipt_note: Schema.String.annotations({ description: "U64 of the log-signed receipt" }),
  claim_hash: Schema.String,
  code: Schema.NullOr(Schema.Literal(...CLAIM_REFUSALS)).annotations({ description: "null for a credit; the refusal leaf's code otherwise" }),
  detail: Schema.String
}).annotations({ identifier: "ContributionClaimReceipt", [HttpApiSchema.AnnotationStatus]: 201 })

export const ContributionsGroup = HttpApiGroup.make("contributions")
  .add(HttpApiEndpoint.post("intent", "/v2/sup/contributions/intents")
    .setPayload(ContributionIntentRequest)
    .addSuccess(ContributionIntent)
    .annotate(OpenApi.Description, "HTTPS only; never a leaf. 403 contributions_closed when no network is configured, 422 for an unknown network, a bad amount or an unclaimed name"))
  .add(HttpApiEndpoint.post("claim", "/v2/sup/contributions")
    .setPayload(ContributionClaimRequest)
    .addSuccess(ContributionClaimReceipt)
    .addError(RouteConflict.pipe(problemEncoding))
    .annotate(OpenApi.Description, "HTTPS only; no query, no envelope. 201 with the policy-signed sup.credit leaf, or the sup.refusal leaf and its code; 409 claim_settled for a claim already answered; 409 tx_unconfirmed (no leaf, `confirmations_missing`) while the transaction is not final; 503 chain_unavailable with Retry-After (no leaf) when the chain cannot be asked"))
  .addError(BadRequest.pipe(problemEncoding))
  .addError(RouteRefused.pipe(problemEncoding))
  .addError(ContentTooLarge.pipe(problemEncoding))
  .annotate(OpenApi.Description, "Contributions of SUP, checked on chain")
