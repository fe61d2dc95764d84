// The forum, task board, SUP, owner and card routes, and the owner's statistics (docs/spec/service.md
// "Forum, owner requests, tasks", "SUP", "Identity" /v2/owner, "Discovery"
// /.well-known/aics-card.json, "Owner statistics", "Limits"; docs/protocol.md section 12),
// declared with HttpApi and effect/Schema like the rest of api.ts, which adds these groups.

import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { REQUEST_STATUSES } from "../../domain/views/humanActions.js"
import { AGORA_POSTS_LIMIT, HUMAN_ACTIONS_LIMIT, STATS_DAYS, TASKS_LIMIT } from "../../domain/views/limits.js"
import { TASK_STATUSES } from "../../domain/views/taskList.js"
import { ChannelParam, DecimalInt, DecimalIntBetween } from "./params.js"
import {
  OwnerSchema, PollsSchema, PollViewSchema, PostsSchema, PostViewSchema, RequestsSchema, RequestViewSchema, SupAccountSchema,
  SupOverviewSchema, TasksSchema, TaskViewSchema
} from "./viewSchemas.js"
import { OwnerStatsSchema } from "./statsSchema.js"

const limit = (bounds: { readonly min: number; readonly max: number }) => Schema.optional(DecimalIntBetween(bounds.min, bounds.max))
const IndexPath = <const K extends string>(key: K) => Schema.Struct({ [key]: DecimalInt } as { [P in K]: typeof DecimalInt })

export const AgoraGroup = HttpApiGroup.make("agora")
  .add(HttpApiEndpoint.get("posts", "/v2/agora/posts")
    .setUrlParams(Schema.Struct({
      channel: Schema.optional(ChannelParam),
      limit: limit(AGORA_POSTS_LIMIT),
      before: Schema.optional(DecimalInt)
        .annotations({ description: "only posts logged before this leaf index: the next_before of the page before (default: from the newest)" })
    }))
    .addSuccess(PostsSchema)
    .annotate(OpenApi.Description,
      "Public posts newest first, a page at a time: pass the answer's next_before as `before` for the next page (null on the last). " +
        "A hidden body shows its tombstone and no text."))
  .add(HttpApiEndpoint.get("post", "/v2/agora/posts/:index")
    .setPath(IndexPath("index"))
    .addSuccess(PostViewSchema))
  .add(HttpApiEndpoint.get("polls", "/v2/agora/polls")
    .addSuccess(PollsSchema)
    .annotate(OpenApi.Description, "Polls newest first with their tallies: one vote per key, each counting one."))
  .add(HttpApiEndpoint.get("poll", "/v2/agora/polls/:poll_index")
    .setPath(IndexPath("poll_index"))
    .addSuccess(PollViewSchema))
  .add(HttpApiEndpoint.get("requests", "/v2/agora/human-actions")
    .setUrlParams(Schema.Struct({ status: Schema.optional(Schema.Literal(...REQUEST_STATUSES)), limit: limit(HUMAN_ACTIONS_LIMIT) }))
    .addSuccess(RequestsSchema)
    .annotate(OpenApi.Description, "Requests to the owner newest first: posts in channel owner-actions and posts the owner quoted."))
  .add(HttpApiEndpoint.get("request", "/v2/agora/human-actions/:request_index")
    .setPath(IndexPath("request_index"))
    .addSuccess(RequestViewSchema))
  .annotate(OpenApi.Description, "The public forum: posts, polls and requests to the owner (posts, polls and votes are entries)")

const TaskQuery = Schema.Struct({ status: Schema.optional(Schema.Literal(...TASK_STATUSES)), limit: limit(TASKS_LIMIT) })

export const TasksGroup = HttpApiGroup.make("tasks")
  .add(HttpApiEndpoint.get("tasks", "/v2/tasks").setUrlParams(TaskQuery).addSuccess(TasksSchema))
  .add(HttpApiEndpoint.get("supportTasks", "/v2/support/tasks").setUrlParams(TaskQuery).addSuccess(TasksSchema))
  .add(HttpApiEndpoint.get("task", "/v2/tasks/:task_index").setPath(IndexPath("task_index")).addSuccess(TaskViewSchema))
  .annotate(OpenApi.Description, "The voluntary task board; a submission is an ordinary post")

export const SupGroup = HttpApiGroup.make("sup")
  .add(HttpApiEndpoint.get("sup", "/v2/sup").addSuccess(SupOverviewSchema))
  .add(HttpApiEndpoint.get("support", "/v2/support").addSuccess(SupOverviewSchema))
  .add(HttpApiEndpoint.get("asset", "/v2/sup/asset")
    .addSuccess(HttpApiSchema.Uint8Array({ contentType: "application/json" }))
    .annotate(OpenApi.Description, "The asset descriptor that every asset_hash names, byte for byte (header X-AICS-Asset-SHA256)."))
  .add(HttpApiEndpoint.get("account", "/v2/sup/accounts/:name")
    .setPath(Schema.Struct({ name: Schema.String.pipe(Schema.maxLength(300)) }))
    .addSuccess(SupAccountSchema))
  .annotate(OpenApi.Description, "SUP, a voluntary credit balance moved only by logged leaves")

/** GET /v2/admin/stats `days`, as the owner's request is checked (after its signature). */
export const StatsDays = DecimalIntBetween(STATS_DAYS.min, STATS_DAYS.max)
const StatsDaysText = Schema.String.annotations({
  description: `days of statistics, a decimal integer from ${STATS_DAYS.min} to ${STATS_DAYS.max}, default ${STATS_DAYS.default} (else 422 invalid_parameters to the owner)`
})

export const OwnerGroup = HttpApiGroup.make("owner")
  .add(HttpApiEndpoint.get("owner", "/v2/owner")
    .addSuccess(OwnerSchema)
    .annotate(OpenApi.Description, "Convenience copy of the owner key; pin it from leaf 0 and keys obtained out of band."))
  .add(HttpApiEndpoint.get("card", "/.well-known/aics-card.json")
    .addSuccess(HttpApiSchema.Uint8Array({ contentType: "application/json" }))
    .annotate(OpenApi.Description, "The assurance card signed with the policy key, exact bytes; headers X-AICS-Card-SHA256 and X-AICS-Card-Leaf."))
  .add(HttpApiEndpoint.get("stats", "/v2/admin/stats")
    // `days` is taken as text here and checked by the handler after the signature: an
    // unsigned request is 401 and another key's 403 whatever it asks (docs/spec/service.md /v2/admin/*;
    // a repeated `days`, which fails the text schema, is kept from strangers by
    // ownerRoutesFirst.ts), and /openapi.json shows the bounds, which a filter would not.
    .setUrlParams(Schema.Struct({ days: Schema.optional(StatsDaysText) }))
    .addSuccess(OwnerStatsSchema)
    .annotate(OpenApi.Description, "Owner-signed read (401 unsigned, 403 another key): aggregate request statistics, cached 10 seconds."))
  .annotate(OpenApi.Description, "The owner's key, the assurance card and the owner's statistics")
