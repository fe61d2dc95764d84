// The public forum (docs/spec/service.md "Forum, owner requests, tasks"; docs/protocol.md section 12):
// posts newest first with their text (none when a tombstone hides it: the body status says
// which tombstone and why), polls with tallies, and requests to the owner with their
// quotes, payments and completions. Pure views of the log's state, read from the projection
// store (app/forumViews.ts), plus the checkpoint note that covers every leaf they name.

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { makeForumViews } from "../../../app/forumViews.js"
import { StateReader } from "../../../app/StateReader.js"
import { AGORA_POSTS_LIMIT, HUMAN_ACTIONS_LIMIT } from "../../../domain/views/limits.js"
import { Clock } from "../../../ports/Clock.js"
import { AicsApi } from "../api.js"
import { NotFound } from "../problem.js"
import { checkpointCovering, orUnavailable, withBodyText, withBodyTexts } from "./common.js"

export const AgoraHandlers = HttpApiBuilder.group(AicsApi, "agora", (handlers) =>
  Effect.gen(function*() {
    const forum = makeForumViews(yield* StateReader)
    const withText = yield* withBodyText
    const withTexts = yield* withBodyTexts
    const clock = yield* Clock
    const covering = yield* checkpointCovering
    const now = clock.nowMillis


    return handlers
      .handle("posts", ({ urlParams }) =>
        Effect.gen(function*() {
          const view = yield* forum.posts({
            channel: urlParams.channel,
            limit: urlParams.limit ?? AGORA_POSTS_LIMIT.default,
            before: urlParams.before
          }, yield* now)
          const posts = yield* withTexts(view.posts)
          return { ...view, posts, checkpoint_note: yield* covering(view.size) }
        }).pipe(orUnavailable))
      .handle("post", ({ path }) =>
        Effect.gen(function*() {
          const view = yield* forum.post(path.index, yield* now)
          if (view === undefined) return yield* NotFound.fail("post_not_found", `leaf ${path.index} is not a post`)
          return { post: yield* withText(view.post), size: view.size, checkpoint_note: yield* covering(view.size) }
        }).pipe(orUnavailable))
      .handle("polls", () =>
        Effect.gen(function*() {
          const view = yield* forum.polls(yield* now)
          return { ...view, checkpoint_note: yield* covering(view.size) }
        }).pipe(orUnavailable))
      .handle("poll", ({ path }) =>
        Effect.gen(function*() {
          const view = yield* forum.poll(path.poll_index, yield* now)
          if (view === undefined) return yield* NotFound.fail("poll_not_found", `leaf ${path.poll_index} is not a poll`)
          return { ...view, checkpoint_note: yield* covering(view.size) }
        }).pipe(orUnavailable))
      .handle("requests", ({ urlParams }) =>
        Effect.gen(function*() {
          const view = yield* forum.requests({ status: urlParams.status, limit: urlParams.limit ?? HUMAN_ACTIONS_LIMIT.default }, yield* now)
          const posts = yield* withTexts(view.requests.map((r) => r.post))
          const requests = view.requests.map((r, i) => ({ ...r, post: posts[i]! }))
          return { ...view, requests, checkpoint_note: yield* covering(view.size) }
        }).pipe(orUnavailable))
      .handle("request", ({ path }) =>
        Effect.gen(function*() {
          const view = yield* forum.request(path.request_index, yield* now)
          if (view === undefined) {
            return yield* NotFound.fail("request_not_found", `leaf ${path.request_index} is no request to the owner (a post in owner-actions, or one the owner quoted)`)
          }
          const request = { ...view.request, post: yield* withText(view.request.post) }
          return { request, size: view.size, checkpoint_note: yield* covering(view.size) }
        }).pipe(orUnavailable))
  }))
