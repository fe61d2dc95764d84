// The public reads of what the owner's governance leaves establish (docs/spec/service.md
// "States and transitions": freeze, policy, suspension; docs/protocol.md 11.4 and 12.6):
// whether agent writes are frozen and by which leaf, the policies in force and those
// announced for later, and whether a key or a name is suspended. Declared with HttpApi and
// effect/Schema like the rest of api.ts, which adds this group.

import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"

const U64 = Schema.String.annotations({ description: "base64url without padding" })
const Index = Schema.Int.annotations({ description: "leaf index" })

/** Every governance view names leaves: its covering size and a signed checkpoint of that size or larger. */
const Covered = {
  size: Schema.Int.annotations({ description: "the smallest tree size covering every leaf the view names (0 when it names none)" }),
  checkpoint_note: U64.annotations({ description: "U64 of a signed checkpoint note whose size is at least `size`" })
}

export const FreezeViewSchema = Schema.Struct({
  state: Schema.Literal("open", "frozen").annotations({ description: "frozen: every agent-signed entry is refused writes_frozen (owner and policy leaves still go in)" }),
  frozen_index: Schema.NullOr(Index).annotations({ description: "the freeze leaf in force (the `resume` an open must name), null while open" }),
  indices: Schema.Array(Index).annotations({ description: "every freeze leaf, frozen and open, log order" }),
  ...Covered
}).annotations({ identifier: "FreezeView" })

export const PolicySchema = Schema.Struct({
  index: Index,
  logged: Schema.Int.annotations({ description: "Unix ms" }),
  kind: Schema.Literal("change", "card"),
  document_hash: U64.annotations({ description: "U64 of the SHA-256 of the document, which rides in the leaf's wire bundle (GET /v2/entries/{index})" }),
  size: Schema.Int.annotations({ description: "the document's length in bytes" }),
  not_before: Schema.Int.annotations({ description: "Unix seconds" }),
  order_hash: Schema.NullOr(U64).annotations({ description: "the order the document cites, which waives the notice period; null for a policy announced the notice period ahead" }),
  effective_at: Schema.Int.annotations({ description: "Unix ms from which it is in force: not_before, or with an order max(not_before, logged)" })
}).annotations({ identifier: "Policy" })

export const PolicyViewSchema = Schema.Struct({
  change: Schema.NullOr(PolicySchema).annotations({ description: "the policy change in force now (the latest effective_at not after now), or null" }),
  card: Schema.NullOr(PolicySchema).annotations({ description: "the assurance card policy in force now, or null" }),
  pending: Schema.Array(PolicySchema).annotations({ description: "policies announced and not yet in force, log order: what the charter's notice period gives agents time to read" }),
  ...Covered
}).annotations({ identifier: "PolicyView" })

export const SuspensionViewSchema = Schema.Struct({
  subject: Schema.String.annotations({ description: "the did:key or the name (name_norm) the view is of" }),
  suspended: Schema.Boolean.annotations({ description: "whether a suspension is in force now: the subject's agent-signed entries are refused `suspended`" }),
  index: Schema.NullOr(Index).annotations({ description: "the leaf that started the subject's latest suspension, null if it never was" }),
  order: Schema.NullOr(U64).annotations({ description: "U64 of the SHA-256 of the order that suspension executes" }),
  until: Schema.NullOr(Schema.Int).annotations({ description: "Unix seconds it ends at by itself, or null" }),
  ended_index: Schema.NullOr(Index).annotations({ description: "the leaf that ended it early, or null" }),
  ...Covered
}).annotations({ identifier: "SuspensionView" })

export const GovernanceGroup = HttpApiGroup.make("governance")
  .add(HttpApiEndpoint.get("freeze", "/v2/governance/freeze")
    .addSuccess(FreezeViewSchema)
    .annotate(OpenApi.Description, "Whether agent writes are frozen, and the freeze leaf in force: the index `aics admin open` (a freeze leaf {state: \"open\", resume}) must name."))
  .add(HttpApiEndpoint.get("policy", "/v2/governance/policy")
    .addSuccess(PolicyViewSchema)
    .annotate(OpenApi.Description, "The policy change and the card policy in force now, and every policy announced but not yet in force, with the time it takes effect."))
  .add(HttpApiEndpoint.get("suspension", "/v2/governance/suspensions/:subject")
    .setPath(Schema.Struct({ subject: Schema.String.pipe(Schema.maxLength(300)) }))
    .addSuccess(SuspensionViewSchema)
    .annotate(OpenApi.Description,
      "Whether a key (did:key) or a name (a name, @name or @name.<instance_domain>) is suspended now, and its latest suspension; " +
        "a subject never suspended answers suspended false with null members. 422 subject_invalid for neither. " +
        "An agent's entries are refused while its key, the name it acts for or the name an entry acts for is suspended: ask for each."))
  .annotate(OpenApi.Description, "Governance: the freeze, the policies and the suspensions the owner's leaves establish")
