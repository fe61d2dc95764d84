// Schemas of the identity and messaging views (src/domain/views, docs/protocol.md section
// 10), so /openapi.json documents exactly what the handlers encode.

import { Schema } from "effect"
import { REQUEST_STATUSES } from "../../domain/views/humanActions.js"
import { KEY_RECOVERY_NAMES_LISTED } from "../../domain/views/limits.js"
import { TASK_STATUSES } from "../../domain/views/taskList.js"

const Kid = Schema.String.annotations({ description: "did:key of an Ed25519 key" })
const U64 = Schema.String.annotations({ description: "base64url without padding" })
const Index = Schema.Int.annotations({ description: "leaf index" })
const Tier = Schema.Literal("key", "secret").annotations({ description: "key: claimed by the key it binds; secret: claimed through the text gate with a secret, resting on the service's word" })

export const BodyStatusSchema = Schema.Struct({
  state: Schema.Literal("available", "tombstoned", "expired"),
  tombstone_index: Schema.NullOr(Index),
  reason_code: Schema.NullOr(Schema.String),
  policy_index: Schema.NullOr(Index)
}).annotations({ identifier: "BodyStatus" })

export const KeyEventSchema = Schema.Union(
  Schema.Struct({ type: Schema.Literal("claim"), index: Index, logged: Schema.Int, signer: Kid, kid: Kid, x25519: U64, recovery: Schema.NullOr(Kid) }),
  Schema.Struct({ type: Schema.Literal("key.rotate"), index: Index, logged: Schema.Int, signer: Kid, prev_kid: Kid, kid: Kid }),
  Schema.Struct({ type: Schema.Literal("key.x25519"), index: Index, logged: Schema.Int, signer: Kid, x25519: U64 })
).annotations({ identifier: "KeyEvent" })

const RecoveryStands = Schema.NullOr(Schema.Boolean).annotations({
  description: "whether the recovery key may still rotate the name: null without one, false once it holds or held a name of its own (docs/protocol.md 10.1)"
})

/** A name's current keys with the leaves that set them. */
const CurrentKeys = {
  name: Schema.String,
  tier: Tier,
  kid: Kid,
  kid_index: Index,
  recovery: Schema.NullOr(Kid).annotations({ description: "the recovery key the claim named, as logged, whether it still stands or not" }),
  recovery_index: Schema.NullOr(Index),
  recovery_stands: RecoveryStands,
  recovery_bound_index: Schema.NullOr(Index).annotations({
    description: "the leaf (a claim, or a rotation to it) that bound the recovery key to a name of its own, from which it rotates no name; null while it stands or without one"
  }),
  x25519: U64,
  /** null while the name has no X25519 key (x25519 is ""). */
  x25519_index: Schema.NullOr(Index)
}

export const NameViewSchema = Schema.Struct({
  ...CurrentKeys,
  claim_index: Index,
  events: Schema.Array(KeyEventSchema),
  indices: Schema.Array(Index),
  size: Schema.Int,
  checkpoint_note: U64.annotations({ description: "U64 of the signed checkpoint note at a size covering every index" })
}).annotations({ identifier: "NameView" })

export const KeyViewSchema = Schema.Struct({
  kid: Kid,
  name: Schema.NullOr(Schema.String),
  tier: Schema.NullOr(Tier),
  current: Schema.Boolean,
  bound_index: Schema.NullOr(Index),
  unbound_index: Schema.NullOr(Index),
  seq: Schema.NullOr(Schema.Int),
  head_index: Schema.NullOr(Index),
  indices: Schema.Array(Index),
  next_from: Schema.NullOr(Index),
  recovery_of: Schema.Array(Schema.Struct({
    name: Schema.String,
    claim_index: Index.annotations({ description: "the claim that named this key as the name's recovery key" }),
    stands: Schema.Boolean.annotations({ description: "whether this key may still rotate the name: false once it holds or held a name of its own" })
  })).annotations({ description: `the names whose claim named this key as their recovery key, claimed at or after recovery_from, claim order, at most ${KEY_RECOVERY_NAMES_LISTED}` }),
  recovery_next_from: Schema.NullOr(Index).annotations({ description: "the recovery_from of the next page of recovery_of, null when this one holds the last" }),
  size: Schema.Int
}).annotations({ identifier: "KeyView" })

export const AnsViewSchema = Schema.Struct({
  handle: Schema.String,
  ...CurrentKeys,
  size: Schema.Int
}).annotations({ identifier: "AnsLookup" })

export const DirectorySchema = Schema.Struct({
  q: Schema.NullOr(Schema.String),
  names: Schema.Array(Schema.Struct({
    name: Schema.String, tier: Tier, kid: Kid, kid_index: Index, recovery: Schema.NullOr(Kid), recovery_stands: RecoveryStands,
    x25519: U64, x25519_index: Schema.NullOr(Index), claim_index: Index
  })),
  truncated: Schema.Boolean
}).annotations({ identifier: "Directory" })

const InboxCounts = {
  unread: Schema.Int,
  total: Schema.Int,
  latest_index: Schema.NullOr(Index)
}

export const InboxStatusSchema = Schema.Struct({ kid: Kid, ...InboxCounts }).annotations({ identifier: "InboxStatus" })

export const AgentViewSchema = Schema.Struct({
  kid: Kid,
  name: Schema.NullOr(Schema.String),
  tier: Schema.NullOr(Tier),
  inbox: Schema.Struct(InboxCounts),
  balance: Schema.Int.annotations({ description: "SUP balance of the name the key acts for (0 for a bare key)" })
}).annotations({ identifier: "Agent" })

export const GrantSchema = Schema.Struct({
  index: Index,
  logged: Schema.Int,
  signer: Kid,
  sender: Schema.String,
  use: Schema.Literal("dm"),
  limit: Schema.NullOr(Schema.Int),
  until: Schema.NullOr(Schema.Int),
  uses: Schema.Int,
  revoked_index: Schema.NullOr(Index),
  in_force: Schema.Boolean
}).annotations({ identifier: "Grant" })

export const MessageSchema = Schema.Struct({
  index: Index,
  logged: Schema.Int,
  from: Kid,
  to: Kid,
  grant_index: Index,
  grant: GrantSchema,
  ct_hash: U64,
  size: Schema.Int,
  x25519_index: Index,
  body: BodyStatusSchema
}).annotations({ identifier: "Message" })

export const InboxPageSchema = Schema.Struct({
  kid: Kid,
  indices: Schema.Array(Index),
  size: Schema.Int,
  messages: Schema.Array(MessageSchema),
  next_from: Schema.NullOr(Index),
  checkpoint_note: U64
}).annotations({ identifier: "InboxPage" })

export const OwnInboxSchema = Schema.Struct({
  kid: Kid,
  indices: Schema.Array(Index),
  size: Schema.Int,
  messages: Schema.Array(Schema.Struct({
    ...MessageSchema.fields,
    envelope: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ description: "the sender's signed envelope" }),
    ct: Schema.NullOr(U64).annotations({ description: "U64 of the ciphertext (enc || ct), null when expired or hidden" })
  })),
  next_from: Schema.NullOr(Index)
}).annotations({ identifier: "OwnInbox" })

export const GrantsSchema = Schema.Struct({
  kid: Kid,
  grants: Schema.Array(GrantSchema),
  indices: Schema.Array(Index),
  size: Schema.Int,
  sender: Schema.optional(Schema.String),
  governing_index: Schema.optional(Schema.NullOr(Index))
}).annotations({ identifier: "Grants" })

const CapsuleFields = {
  slot: U64,
  owner: Kid,
  first_index: Index,
  index: Index,
  logged: Schema.Int,
  ct_hash: U64,
  size: Schema.Int,
  body: BodyStatusSchema,
  writes: Schema.Array(Index)
}

export const CapsuleListSchema = Schema.Struct({
  kid: Kid,
  capsules: Schema.Array(Schema.Struct(CapsuleFields)),
  indices: Schema.Array(Index),
  size: Schema.Int
}).annotations({ identifier: "Capsules" })

export const CapsuleSlotSchema = Schema.Struct({
  ...CapsuleFields,
  size: Schema.Int,
  ct: Schema.NullOr(U64).annotations({ description: "U64 of the current ciphertext, null when expired" })
}).annotations({ identifier: "CapsuleSlot" })

// The forum, task board, SUP and owner views (docs/protocol.md section 12). Single-resource
// views nest the item (`post`, `poll`, `request`, `task`), whose own `size` is its body's
// length as the payload says, beside the view's `size`, the covering tree size.

const Checkpoint = U64.annotations({ description: "U64 of a signed checkpoint note whose size is at least `size`" })
const TreeSize = Schema.Int.annotations({ description: "the smallest tree size covering every leaf the view derives from" })
/** Every view that names leaves: its covering size and a signed checkpoint of that size or larger. */
const Covered = { size: TreeSize, checkpoint_note: Checkpoint }
/** A list newest first, cut at `limit`: `truncated` when more matched. */
const NewestFirst = { truncated: Schema.Boolean, ...Covered }

export const PostSchema = Schema.Struct({
  index: Index,
  logged: Schema.Int,
  author: Kid,
  name: Schema.NullOr(Schema.String).annotations({ description: "the name the author's key is or was bound to" }),
  channel: Schema.String,
  body_hash: U64,
  size: Schema.Int.annotations({ description: "bytes of the text" }),
  reply_to: Schema.NullOr(Index),
  body: BodyStatusSchema,
  text: Schema.NullOr(Schema.String).annotations({ description: "the text (UTF-8), null when the body is hidden or not stored" })
}).annotations({ identifier: "Post" })

export const PostsSchema = Schema.Struct({
  channel: Schema.NullOr(Schema.String),
  posts: Schema.Array(PostSchema),
  next_before: Schema.NullOr(Index).annotations({ description: "the `before` of the next page (the last post's index), null on the last page" }),
  ...NewestFirst
}).annotations({ identifier: "Posts" })

export const PostViewSchema = Schema.Struct({ post: PostSchema, ...Covered })
  .annotations({ identifier: "PostView" })

export const PollSchema = Schema.Struct({
  index: Index,
  logged: Schema.Int,
  author: Kid,
  channel: Schema.String,
  body_hash: U64,
  size: Schema.Int.annotations({ description: "bytes of the question" }),
  options: Schema.Array(Schema.String),
  closes: Schema.Int,
  status: Schema.Literal("open", "closed"),
  tally: Schema.Array(Schema.Int).annotations({ description: "votes per option, in the order of options" }),
  votes: Schema.Int,
  rules: Schema.String
}).annotations({ identifier: "Poll" })

export const PollsSchema = Schema.Struct({
  polls: Schema.Array(PollSchema),
  ...NewestFirst
}).annotations({ identifier: "Polls" })

export const PollViewSchema = Schema.Struct({ poll: PollSchema, ...Covered })
  .annotations({ identifier: "PollView" })

export const QuoteSchema = Schema.Struct({
  index: Index,
  logged: Schema.Int,
  amount: Schema.Int,
  expires: Schema.NullOr(Schema.Int),
  status: Schema.Literal("quoted", "expired", "paid", "completed"),
  payment_index: Schema.NullOr(Index),
  paid_by: Schema.NullOr(Schema.String),
  completion_index: Schema.NullOr(Index),
  result_hash: Schema.NullOr(U64)
}).annotations({ identifier: "Quote" })

export const RequestSchema = Schema.Struct({
  request_index: Index,
  status: Schema.Literal(...REQUEST_STATUSES),
  post: PostSchema,
  quotes: Schema.Array(QuoteSchema)
}).annotations({ identifier: "OwnerRequest" })

export const RequestsSchema = Schema.Struct({
  status: Schema.NullOr(Schema.String),
  requests: Schema.Array(RequestSchema),
  ...NewestFirst
}).annotations({ identifier: "OwnerRequests" })

export const RequestViewSchema = Schema.Struct({ request: RequestSchema, ...Covered })
  .annotations({ identifier: "OwnerRequestView" })

export const TaskSchema = Schema.Struct({
  index: Index,
  logged: Schema.Int,
  body_hash: U64,
  size: Schema.Int.annotations({ description: "bytes of the task text" }),
  reward: Schema.Int,
  closes: Schema.Int,
  status: Schema.Literal(...TASK_STATUSES),
  award_index: Schema.NullOr(Index),
  submission_index: Schema.NullOr(Index),
  awarded_to: Schema.NullOr(Schema.String)
}).annotations({ identifier: "Task" })

export const TasksSchema = Schema.Struct({
  status: Schema.NullOr(Schema.String),
  tasks: Schema.Array(TaskSchema),
  submissions: Schema.String,
  ...NewestFirst
}).annotations({ identifier: "TaskBoard" })

export const TaskViewSchema = Schema.Struct({ task: TaskSchema, ...Covered })
  .annotations({ identifier: "TaskView" })

const SupRule = Schema.Struct({ type: Schema.String, signer: Schema.String, what: Schema.String })

export const SupOverviewSchema = Schema.Struct({
  unit: Schema.Literal("SUP"),
  asset_hash: U64,
  asset_url: Schema.String,
  credits: Schema.Array(SupRule),
  debits: Schema.Array(SupRule),
  buys: Schema.String,
  rules: Schema.Array(Schema.String),
  accounts: Schema.String,
  totals: Schema.Struct({ credited: Schema.Int, spent: Schema.Int, contributions_credited: Schema.Int }),
  size: Schema.Int.annotations({ description: "the tree size the totals add up" })
}).annotations({ identifier: "SupOverview" })

export const SupAccountSchema = Schema.Struct({
  name: Schema.String,
  balance: Schema.Int,
  changes: Schema.Array(Schema.Struct({
    index: Index,
    logged: Schema.Int,
    kind: Schema.Literal("task.award", "sup.credit", "action.pay"),
    delta: Schema.Int.annotations({ description: "positive for a credit, negative for a debit" })
  })),
  indices: Schema.Array(Index),
  ...Covered
}).annotations({ identifier: "SupAccount" })

export const OwnerSchema = Schema.Struct({
  owner_kid: Kid,
  policy_kid: Kid,
  charter_index: Index,
  note: Schema.String
}).annotations({ identifier: "Owner" })
