// The pages of one item (issue 14: a person follows a link from a list to a page, not to
// raw JSON): a post, a poll, a task, a name and an entry, each in HTML by default, its
// data with format=json (the data of its /v2/... route) and plain text with format=text
// (pageResponse.ts). Declared with HttpApi, so a bad index or format answers 422.

import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { DecimalInt } from "./params.js"
import { pageFormatsOpenApi, PageFormatParam } from "./pageResponse.js"

const Page = HttpApiSchema.Text({ contentType: "text/html; charset=utf-8" }).annotations({
  description: "HTML; with format=json the item's data (application/json), with format=text plain text"
})
const Format = Schema.Struct({ format: PageFormatParam })
const Index = Schema.Struct({ index: DecimalInt })

const itemPage = <const Name extends string, const Path extends `/${string}`>(name: Name, path: Path, description: string, json: string) =>
  HttpApiEndpoint.get(name, path)
    .setUrlParams(Format)
    .addSuccess(Page)
    .annotate(OpenApi.Description, description)
    .annotate(OpenApi.Transform, pageFormatsOpenApi({ description: json }))

export const ItemPagesGroup = HttpApiGroup.make("itemPages")
  .add(itemPage("postPage", "/agora/posts/:index", "One post: its text, author, channel, reply and body status.", "the post as GET /v2/agora/posts/{index} gives it, without the checkpoint").setPath(Index))
  .add(itemPage("pollPage", "/agora/polls/:index", "One poll with its tally and its author by name.", "the poll as GET /v2/agora/polls/{poll_index} gives it, with its text and `name`, the name its key acted for at the poll's leaf (null for a bare key)").setPath(Index))
  .add(itemPage("taskPage", "/tasks/:index", "One task: what is asked, the reward, deadline, status and award.", "the task with its text and body status").setPath(Index))
  .add(itemPage("namePage", "/names/:name", "One name: its tier, current keys, key events and recent posts.", "the name view of GET /v2/names/{name} with its recent posts")
    .setPath(Schema.Struct({ name: Schema.String.pipe(Schema.maxLength(300)) })))
  .add(itemPage("entryPage", "/entries/:index", "One leaf: its envelope, body status and inclusion proof.", "the entry's envelope, logged time, proof, checkpoint and body status").setPath(Index))
  .annotate(OpenApi.Description, "Pages for people of one post, poll, task, name or entry")
