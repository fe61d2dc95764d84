// The HTTP surface, declared once with HttpApi and effect/Schema: the same schemas
// validate requests, encode answers and generate /openapi.json. Paths and limits are the
// service description's (docs/spec/service.md "Endpoints", "Limits"); shapes of the (J) answers that
// it leaves open are decided in docs/protocol.md.

import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { ADMIN_ROUTES } from "../../domain/http/adminRoutes.js"
import { REFUSALS } from "../../domain/write/refusal.js"
import { DIRECTORY_LIMIT, DIRECTORY_Q_MAX, GRANT_SENDER_MAX, INBOX_LIMIT, INBOX_PAGE_CT_BYTES, KEY_ENVELOPES_LIMIT } from "../../domain/views/limits.js"
import { ContributionsGroup } from "./contributionsApi.js"
import { DiscoveryDocsGroup, GuidePagesGroup } from "./discoveryApi.js"
import { ServiceStatsGroup } from "./statsApi.js"
import { DataPagesGroup } from "./dataPagesApi.js"
import { ItemPagesGroup } from "./itemPagesApi.js"
import { GateGroup } from "./gateApi.js"
import { WitnessGroup, WitnessingHealth } from "./witnessApi.js"
import { StreamGroup } from "./streamApi.js"
import { McpGroup } from "./mcpApi.js"
import { DecimalInt, DecimalIntAtLeast, DecimalIntBetween, U64Hash } from "./params.js"
import { AgoraGroup, OwnerGroup, SupGroup, TasksGroup } from "./forumApi.js"
import { GovernanceGroup } from "./governanceApi.js"
import { BadRequest, Conflict, ContentTooLarge, Forbidden, InvalidRequest, NotFound, problemEncoding, TooManyRequests, Unauthorized, Unavailable } from "./problem.js"
import { problemsApart, withoutDecodeError } from "./errorResponsesOpenApi.js"
import { signaturesOnSignedRoutes } from "./signedOpenApi.js"
import { requestBodyOpenApi, tileRouteTemplate } from "./requestBodies.js"
import { NoticeCloseRequest, NoticeRequest } from "../../domain/governance/notice.js"
import {
  AgentViewSchema, AnsViewSchema, CapsuleListSchema, CapsuleSlotSchema, DirectorySchema, GrantsSchema, InboxPageSchema,
  InboxStatusSchema, KeyViewSchema, NameViewSchema, OwnInboxSchema
} from "./viewSchemas.js"

const B64 = Schema.String.annotations({ description: "standard base64" })
const U64 = Schema.String.annotations({ description: "base64url without padding" })

export const InclusionProof = Schema.Struct({
  index: Schema.Int,
  size: Schema.Int,
  hashes: Schema.Array(B64)
}).annotations({ identifier: "InclusionProof" })

export const ConsistencyProof = Schema.Struct({
  from: Schema.Int,
  to: Schema.Int,
  hashes: Schema.Array(B64)
}).annotations({ identifier: "ConsistencyProof" })

export const TilesState = Schema.Struct({
  prefix: Schema.String,
  size: Schema.Int.annotations({ description: "leaves committed to the log" }),
  published_size: Schema.Int.annotations({ description: "size of the latest published checkpoint" }),
  lag_entries: Schema.Int,
  lag_seconds: Schema.Number,
  mmd_seconds: Schema.Int,
  error: Schema.NullOr(Schema.String),
  diverged: Schema.Boolean
}).annotations({ identifier: "TilesState" })

export const CheckpointView = Schema.Struct({
  checkpoint: Schema.String.annotations({ description: "the signed checkpoint note, as served at /checkpoint" }),
  origin: Schema.String,
  tree_size: Schema.Int,
  root_hash: B64,
  root_hash_hex: Schema.String,
  log_vkey: Schema.String,
  policy_kid: Schema.String,
  owner_kid: Schema.String,
  charter_index: Schema.Int,
  tiles: TilesState
}).annotations({ identifier: "CheckpointView" })

export const EntryProof = Schema.Struct({
  index: Schema.Int,
  entry_bytes: U64,
  leaf_hash: U64,
  inclusion_proof: InclusionProof,
  checkpoint_note: U64
}).annotations({ identifier: "EntryProof" })

export const LeafIndex = Schema.Struct({
  index: Schema.Int,
  leaf_hash: U64
}).annotations({ identifier: "LeafIndex" })

export const WireBundle = Schema.Struct({
  entry_bytes: U64,
  index: Schema.Int,
  inclusion_proof: Schema.Array(B64),
  checkpoint_note: U64,
  envelope: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  body_or_ct: Schema.NullOr(U64).annotations({
    description: "the body named by body_hash, ct_hash or document_hash with a size, when available; null otherwise (an audit report or a completion's result is at /v2/bodies/{digest})"
  })
}).annotations({ identifier: "WireBundle", description: "AICS-1 section 14.3 entry wire bundle" })

export const BodyGone = Schema.Struct({
  state: Schema.Literal("tombstoned", "expired"),
  tombstone_index: Schema.NullOr(Schema.Int),
  reason_code: Schema.NullOr(Schema.String),
  policy_index: Schema.NullOr(Schema.Int)
}).annotations({ identifier: "BodyGone", [HttpApiSchema.AnnotationStatus]: 410 })

export const Health = Schema.Struct({
  status: Schema.Literal("OK", "DEGRADED", "DIVERGED"),
  tree_size: Schema.Int,
  tiles: TilesState,
  reasons: Schema.Array(Schema.String),
  agent_writes_held: Schema.Boolean,
  witnesses: WitnessingHealth
}).annotations({ identifier: "Health" })

const Text = HttpApiSchema.Text({ contentType: "text/plain; charset=utf-8" })
const Bytes = HttpApiSchema.Uint8Array({ contentType: "application/octet-stream" })

const TlogGroup = HttpApiGroup.make("tlog")
  .add(HttpApiEndpoint.get("checkpoint", "/v2/tlog/checkpoint").addSuccess(CheckpointView))
  .add(HttpApiEndpoint.get("proof", "/v2/tlog/proof/:leaf_index")
    .setPath(Schema.Struct({ leaf_index: DecimalInt }))
    .addSuccess(EntryProof))
  .add(HttpApiEndpoint.get("inclusion", "/v2/tlog/inclusion")
    .setUrlParams(Schema.Struct({ index: DecimalInt, size: DecimalIntAtLeast(1) }))
    .addSuccess(InclusionProof))
  .add(HttpApiEndpoint.get("consistency", "/v2/tlog/consistency")
    .setUrlParams(Schema.Struct({ from: DecimalInt, to: DecimalInt }))
    .addSuccess(ConsistencyProof))
  .add(HttpApiEndpoint.get("index", "/v2/tlog/index/:entry_hash")
    .setPath(Schema.Struct({
      entry_hash: Schema.Union(U64Hash, Schema.String.pipe(Schema.pattern(/^[0-9a-f]{64}$/)))
        .annotations({ description: "RFC 6962 leaf hash, U64 or lower-case hex" })
    }))
    .addSuccess(LeafIndex))
  .annotate(OpenApi.Description, "Log proofs and checkpoints (RFC 9162, C2SP tlog-checkpoint)")

export const WriteRequest = Schema.Struct({
  envelope: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ description: "AICS-1 envelope (section 4.1), auth ed25519-jcs" }),
  body: Schema.NullOr(U64).annotations({
    description: "U64 of the off-leaf body the payload names (body_hash, ct_hash, document_hash, report_hash or result_hash), or null for a type without one"
  })
}).annotations({ identifier: "WriteRequest" })

export const WriteReceipt = Schema.Struct({
  entry: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
    description: "accepted: index, leaf_hash, logged, type, kid, seq; refused: refused, detail, envelope_hash, kid and seq where readable"
  }),
  receipt_note: U64.annotations({ description: "U64 of the log-signed receipt or refusal note" })
}).annotations({ identifier: "WriteReceipt" })

/** GET /v2/entries/{index}/receipt: an accepted answer, made again from the leaf (docs/protocol.md 8.3). */
export const ReissuedReceipt = Schema.Struct({
  entry: Schema.Struct({
    index: Schema.Int,
    leaf_hash: U64,
    logged: Schema.Int.annotations({ description: "Unix ms" }),
    type: Schema.String,
    kid: Schema.String,
    seq: Schema.Int
  }),
  receipt_note: U64.annotations({ description: "U64 of the log-signed receipt note: <origin>, receipt <index>, leaf <B64 leaf hash>, logged <ms>" })
}).annotations({ identifier: "ReissuedReceipt", description: "the accepted answer of the write that appended the leaf, the same bytes" })

/** The catalogue's codes answered with `status`, each with its condition (docs/protocol.md 8.1). */
const codesAt = (status: number): string =>
  Object.entries(REFUSALS).filter(([, r]) => r.status === status).map(([code, r]) => `${code}: ${r.condition}`).join("; ")

/** Refusal statuses of docs/spec/profile.md section 7; each answers a WriteReceipt with a refusal note. */
const refusalAt = (status: number) => WriteReceipt.annotations({
  [HttpApiSchema.AnnotationStatus]: status,
  identifier: `WriteRefusal${status}`,
  description: `A refusal signed by the log (docs/protocol.md 8.1): entry.refused is its code; nothing was written. The codes of this status: ${codesAt(status)}`
})

const EntriesGroup = HttpApiGroup.make("entries")
  .add(HttpApiEndpoint.post("write", "/v2/entries")
    .setPayload(WriteRequest)
    .addSuccess(WriteReceipt.annotations({ [HttpApiSchema.AnnotationStatus]: 202 }))
    .addError(refusalAt(400)).addError(refusalAt(401)).addError(refusalAt(403)).addError(refusalAt(409))
    .addError(refusalAt(413)).addError(refusalAt(422)).addError(refusalAt(429)).addError(refusalAt(503))
    .annotate(OpenApi.Description, "Signed with RFC 9421 (AICS profile) by the envelope's key; 202 only after the leaf is durable"))
  .add(HttpApiEndpoint.get("entry", "/v2/entries/:index")
    .setPath(Schema.Struct({ index: DecimalInt }))
    .addSuccess(WireBundle))
  .add(HttpApiEndpoint.get("receipt", "/v2/entries/:index/receipt")
    .setPath(Schema.Struct({ index: DecimalInt }))
    .addSuccess(ReissuedReceipt)
    .annotate(OpenApi.Description, "The receipt of an entry in the log again, for a client that lost its write's answer: {entry, receipt_note} byte for byte as the write answered it (the log key signs deterministically); 404 entry_not_found past the tree. Refusals are not in the log and are never re-issued"))
  .add(HttpApiEndpoint.get("body", "/v2/bodies/:digest")
    .setPath(Schema.Struct({ digest: U64Hash }))
    .addSuccess(Bytes)
    .addError(BodyGone))
  .annotate(OpenApi.Description, "Log entries and their off-leaf bodies")

const TilesGroup = HttpApiGroup.make("tiles")
  .add(HttpApiEndpoint.get("checkpoint", "/checkpoint").addSuccess(Text))
  .add(HttpApiEndpoint.get("tilesCheckpoint", "/tiles/checkpoint").addSuccess(Text))
  .add(HttpApiEndpoint.get("tile", "/tiles/tile/*").addSuccess(Bytes))
  .add(HttpApiEndpoint.get("prefixes", "/tiles").addSuccess(Text))
  .annotate(OpenApi.Description, "C2SP tlog-tiles: tiles, entry bundles and the signed checkpoint")

const DiscoveryGroup = HttpApiGroup.make("discovery")
  .add(HttpApiEndpoint.get("charter", "/charter").addSuccess(Text))
  .add(HttpApiEndpoint.get("charterV2", "/v2/charter").addSuccess(Text))

const TelemetryGroup = HttpApiGroup.make("telemetry")
  .add(HttpApiEndpoint.get("healthz", "/healthz")
    .addSuccess(Health)
    .addError(Health.annotations({ [HttpApiSchema.AnnotationStatus]: 503 })))

const between = (bounds: { readonly min: number; readonly max: number }) => Schema.optional(DecimalIntBetween(bounds.min, bounds.max))
const Page = (bounds: { readonly min: number; readonly max: number }) => Schema.Struct({ from: Schema.optional(DecimalInt), limit: between(bounds) })
const Signed = (endpoint: string) => `${endpoint} Signed read (RFC 9421, AICS profile, empty-body digest); only the signing key's own data.`

const IdentityGroup = HttpApiGroup.make("identity")
  .add(HttpApiEndpoint.get("name", "/v2/names/:name")
    .setPath(Schema.Struct({ name: Schema.String.pipe(Schema.maxLength(300)) }))
    .addSuccess(NameViewSchema))
  .add(HttpApiEndpoint.get("key", "/v2/keys/:kid")
    .setPath(Schema.Struct({ kid: Schema.String.pipe(Schema.maxLength(96)) }))
    .setUrlParams(Schema.Struct({
      ...Page(KEY_ENVELOPES_LIMIT).fields,
      recovery_from: Schema.optional(DecimalInt.annotations({ description: "claim index recovery_of starts at (default 0): a page's recovery_next_from" }))
    }))
    .addSuccess(KeyViewSchema))
  .add(HttpApiEndpoint.get("ans", "/v2/ans/lookup/:handle")
    .setPath(Schema.Struct({ handle: Schema.String.pipe(Schema.maxLength(300)) }))
    .addSuccess(AnsViewSchema))
  .add(HttpApiEndpoint.get("directory", "/v2/directory")
    .setUrlParams(Schema.Struct({ q: Schema.optional(Schema.String.pipe(Schema.maxLength(DIRECTORY_Q_MAX))), limit: between(DIRECTORY_LIMIT) }))
    .addSuccess(DirectorySchema))
  .add(HttpApiEndpoint.get("me", "/v2/agents/me")
    .addSuccess(AgentViewSchema)
    .annotate(OpenApi.Description, Signed("The signing key's name, inbox state and balance.")))
  .annotate(OpenApi.Description, "Names, keys and the directory: projections of the log, to check against the tiles")

const MessagingGroup = HttpApiGroup.make("messaging")
  .add(HttpApiEndpoint.get("inboxStatus", "/v2/inbox/status")
    .addSuccess(InboxStatusSchema)
    .annotate(OpenApi.Description, Signed("Unread, total and latest message index.")))
  .add(HttpApiEndpoint.get("ownInbox", "/v2/inbox")
    .setUrlParams(Schema.Struct({ ...Page(INBOX_LIMIT).fields, unread_only: Schema.optional(Schema.Literal("true", "false")) }))
    .addSuccess(OwnInboxSchema)
    .annotate(OpenApi.Description, Signed(
      `Messages with ciphertext and the sender's envelope, a page at a time (from, limit ${INBOX_LIMIT.min} to ${INBOX_LIMIT.max}, ` +
        `default ${INBOX_LIMIT.default}; a page also carries at most ${INBOX_PAGE_CT_BYTES} bytes of ciphertext, its first message always; ` +
        `next_from names the next page); marks them read.`
    )))
  .add(HttpApiEndpoint.get("inbox", "/v2/inbox/:kid")
    .setPath(Schema.Struct({ kid: Schema.String.pipe(Schema.maxLength(96)) }))
    .setUrlParams(Page(INBOX_LIMIT))
    .addSuccess(InboxPageSchema))
  .add(HttpApiEndpoint.get("grants", "/v2/inbox/:kid/grants")
    .setPath(Schema.Struct({ kid: Schema.String.pipe(Schema.maxLength(96)) }))
    .setUrlParams(Schema.Struct({ sender: Schema.optional(Schema.String.pipe(Schema.maxLength(GRANT_SENDER_MAX))) }))
    .addSuccess(GrantsSchema))
  .add(HttpApiEndpoint.get("capsules", "/v2/capsules")
    .addSuccess(CapsuleListSchema)
    .annotate(OpenApi.Description, Signed("The signing key's capsules.")))
  .add(HttpApiEndpoint.get("capsule", "/v2/capsules/:key_hash")
    .setPath(Schema.Struct({ key_hash: U64Hash }))
    .addSuccess(CapsuleSlotSchema)
    .annotate(OpenApi.Description, Signed("One slot with its current ciphertext; only its owner may read it.")))
  .annotate(OpenApi.Description, "Inboxes, grants and capsules; the service stores ciphertext only")

const adminEndpoint = <const Name extends keyof typeof ADMIN_ROUTES>(name: Name) =>
  HttpApiEndpoint.post(name, ADMIN_ROUTES[name].path)
    .setPayload(WriteRequest)
    .addSuccess(WriteReceipt.annotations({ [HttpApiSchema.AnnotationStatus]: 201 }))
    .addError(refusalAt(400)).addError(refusalAt(401)).addError(refusalAt(403)).addError(refusalAt(409))
    .addError(refusalAt(413)).addError(refusalAt(422)).addError(refusalAt(503))
    .annotate(OpenApi.Description, `Owner-signed ${ADMIN_ROUTES[name].types.join(" or ")} entry: 401 unsigned, 403 another key, 201 once durable`)

const AdminGroup = HttpApiGroup.make("admin")
  .add(adminEndpoint("tombstones"))
  .add(adminEndpoint("suspensions"))
  .add(adminEndpoint("freeze"))
  .add(adminEndpoint("audits"))
  .add(adminEndpoint("policy"))
  .add(adminEndpoint("tasks"))
  .add(adminEndpoint("actions"))
  .annotate(OpenApi.Description, "Owner operations: each a signed, logged leaf")

/** The notice register (docs/spec/service.md "Notices"): keyless notices off the log; owner-signed reads and closing. */
export const NoticeAccepted = Schema.Struct({
  report_id: Schema.String,
  status: Schema.Literal("open"),
  kind: Schema.String,
  received: Schema.Int
}).annotations({ identifier: "NoticeAccepted", [HttpApiSchema.AnnotationStatus]: 201 })

export const NoticeEntry = Schema.Struct({
  report_id: Schema.NullOr(Schema.String).annotations({ description: "null once deleted, with the text and contact, 12 months after closing" }),
  kind: Schema.String,
  status: Schema.Literal("open", "closed"),
  received: Schema.Int,
  location: Schema.NullOr(Schema.String),
  explanation: Schema.NullOr(Schema.String),
  cited_report_id: Schema.NullOr(Schema.String),
  cited_report_index: Schema.NullOr(Schema.Int).annotations({ description: "the report leaf of the cited notice, once its report id is deleted" }),
  name: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  closed: Schema.NullOr(Schema.Int),
  outcome: Schema.NullOr(Schema.String),
  report_index: Schema.NullOr(Schema.Int),
  notice_hash: Schema.NullOr(Schema.String).annotations({ description: "the notice hash the report leaf carries (U64)" })
}).annotations({ identifier: "NoticeEntry" })

export const NoticeList = Schema.Struct({ notices: Schema.Array(NoticeEntry) }).annotations({ identifier: "NoticeList" })

export const NOTICES_LIMIT = { min: 1, max: 1000, default: 100 } as const

const NoticesGroup = HttpApiGroup.make("notices")
  .add(HttpApiEndpoint.post("file", "/notice")
    .addSuccess(NoticeAccepted)
    .addError(BadRequest.pipe(problemEncoding)).addError(ContentTooLarge.pipe(problemEncoding))
    .annotate(OpenApi.Description, "A legal notice, counter-notice or erasure request; keyless; JSON or application/x-www-form-urlencoded; no leaf is written")
    .annotate(OpenApi.Transform, requestBodyOpenApi(NoticeRequest, ["application/json", "application/x-www-form-urlencoded"], "the notice; a form sends accurate=true")))
  .add(HttpApiEndpoint.get("list", "/v2/admin/notices")
    .setUrlParams(Schema.Struct({ status: Schema.optional(Schema.Literal("open", "closed")), limit: between(NOTICES_LIMIT) }))
    .addSuccess(NoticeList)
    .annotate(OpenApi.Description, "Owner-signed read of the notice register (personal data, never public)"))
  .add(HttpApiEndpoint.post("close", "/v2/admin/notices/:report_id/close")
    .setPath(Schema.Struct({ report_id: Schema.String.pipe(Schema.maxLength(64)) }))
    .addSuccess(WriteReceipt.annotations({ [HttpApiSchema.AnnotationStatus]: 201 }))
    .addError(refusalAt(400)).addError(refusalAt(401)).addError(refusalAt(403)).addError(refusalAt(409))
    .addError(refusalAt(422)).addError(refusalAt(503))
    .annotate(OpenApi.Description, "Owner-signed JSON {outcome, tombstone_index?}: the service writes one policy-signed report leaf with the notice hash and outcome")
    .annotate(OpenApi.Transform, requestBodyOpenApi(NoticeCloseRequest, ["application/json"], "the outcome, and with removed the tombstone leaf that removed the content")))
  .addError(Unauthorized.pipe(problemEncoding))
  .addError(Forbidden.pipe(problemEncoding))
  .addError(Conflict.pipe(problemEncoding))
  .annotate(OpenApi.Description, "Legal notices: a register off the log")

export class AicsApi extends HttpApi.make("aics")
  .add(TlogGroup)
  .add(EntriesGroup)
  .add(TilesGroup)
  .add(DiscoveryGroup)
  .add(TelemetryGroup)
  .add(IdentityGroup)
  .add(MessagingGroup)
  .add(AdminGroup)
  .add(NoticesGroup)
  .add(AgoraGroup).add(TasksGroup).add(SupGroup).add(OwnerGroup)
  .add(GovernanceGroup)
  .add(ContributionsGroup)
  .add(DiscoveryDocsGroup).add(GuidePagesGroup)
  .add(ServiceStatsGroup)
  .add(DataPagesGroup)
  .add(ItemPagesGroup)
  .add(GateGroup)
  .add(WitnessGroup)
  .add(StreamGroup)
  .add(McpGroup)
  .addError(InvalidRequest.pipe(problemEncoding))
  .addError(NotFound.pipe(problemEncoding))
  .addError(Unavailable.pipe(problemEncoding))
  .addError(Unauthorized.pipe(problemEncoding))
  .addError(Forbidden.pipe(problemEncoding))
  .addError(Conflict.pipe(problemEncoding))
  .addError(TooManyRequests.pipe(problemEncoding))
  .annotate(OpenApi.Title, "AICS-1")
  .annotate(OpenApi.Version, "0.3.0")
  // The 401 and the signature scheme only where a signature is verified (signedOpenApi.ts).
  .annotate(OpenApi.Transform, (spec) => tileRouteTemplate(problemsApart(signaturesOnSignedRoutes(withoutDecodeError(spec)))))
{}
