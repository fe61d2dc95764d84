// The pages of one item (itemPagesApi.ts): each gathers the view its /v2/... route answers
// (domain/views/*, read from the projection store: app/forumViews.ts, Projection; the
// entry bundle) with the body texts, and renders it with domain/pages/*. A missing item
// answers 404 like its JSON route.

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Either } from "effect"
import { makeForumViews } from "../../../app/forumViews.js"
import { namePostsView } from "../../../app/namePostsView.js"
import { Projection } from "../../../app/Projection.js"
import { StateReader } from "../../../app/StateReader.js"
import { bodyStatus } from "../../../domain/bodyStatus.js"
import { nameAtLeafOf } from "../../../domain/identity/bindings.js"
import { entryMain, entryText, entryTitle, type EntryPageData } from "../../../domain/pages/entryPage.js"
import { pageDocument } from "../../../domain/pages/layout.js"
import { NAME_PAGE_POSTS, nameMain, nameText } from "../../../domain/pages/namePage.js"
import { pollMain, pollText } from "../../../domain/pages/pollPage.js"
import { postMain, postText, postTitle } from "../../../domain/pages/postPage.js"
import { taskMain, taskText } from "../../../domain/pages/taskPage.js"
import { taskDetail } from "../../../domain/views/taskList.js"
import { Clock } from "../../../ports/Clock.js"
import { AicsApi } from "../api.js"
import { pageResponse } from "../pageResponse.js"
import { InvalidRequest, NotFound } from "../problem.js"
import { orUnavailable, withBodyText, withBodyTexts } from "./common.js"
import { entryBundles } from "./entryBundle.js"

export const ItemPagesHandlers = HttpApiBuilder.group(AicsApi, "itemPages", (handlers) =>
  Effect.gen(function*() {
    const reader = yield* StateReader
    const projection = yield* Projection
    const forum = makeForumViews(reader)
    const namePosts = namePostsView(reader)
    const clock = yield* Clock
    const withText = yield* withBodyText
    const withTexts = yield* withBodyTexts
    const bundleOf = yield* entryBundles

    return handlers
      .handle("postPage", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const view = yield* forum.post(path.index, yield* clock.nowMillis)
          if (view === undefined) return yield* NotFound.fail("post_not_found", `leaf ${path.index} is not a post`)
          const post = yield* withText(view.post)
          return pageResponse(urlParams.format, {
            html: () => pageDocument({ path: `/agora/posts/${post.index}`, title: postTitle(post), description: `Post #${post.index} in #${post.channel} on this AICS-1 log.`, main: postMain(post) }),
            json: () => post,
            text: () => postText(post)
          })
        }).pipe(orUnavailable))
      .handle("pollPage", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const item = yield* forum.pollWithBody(path.index, yield* clock.nowMillis)
          if (item === undefined) return yield* NotFound.fail("poll_not_found", `leaf ${path.index} is not a poll`)
          // Its author by name, as a post's: the name the key acted for at the poll's leaf.
          const author = yield* reader.slice([{ area: "keys", key: item.author }])
          const poll = yield* withText({ ...item, name: nameAtLeafOf(author, item.author, item.index) ?? null })
          return pageResponse(urlParams.format, {
            html: () => pageDocument({ path: `/agora/polls/${poll.index}`, title: `Poll #${poll.index}`, description: `Poll #${poll.index} and its tally on this AICS-1 log.`, main: pollMain(poll) }),
            json: () => poll,
            text: () => pollText(poll)
          })
        }).pipe(orUnavailable))
      .handle("taskPage", ({ path, urlParams }) =>
        Effect.gen(function*() {
          // Tasks are resident: whole in every slice, as the body status's tombstones are.
          const state = yield* reader.slice([])
          const now = yield* clock.nowMillis
          const view = taskDetail(state, path.index, now)
          if (view === undefined) return yield* NotFound.fail("task_not_found", `leaf ${path.index} is not a task`)
          const task = yield* withText({ ...view.task, body: bodyStatus(state, { index: view.task.index, type: "task", logged: view.task.logged }, now) })
          return pageResponse(urlParams.format, {
            html: () => pageDocument({ path: `/tasks/${task.index}`, title: `Task #${task.index}`, description: `Task #${task.index} on the task board of this AICS-1 log.`, main: taskMain(task) }),
            json: () => task,
            text: () => taskText(task)
          })
        }).pipe(orUnavailable))
      .handle("namePage", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const view = yield* projection.name(path.name)
          if (Either.isLeft(view)) {
            return yield* view.left === "name_invalid"
              ? InvalidRequest.fail("name_invalid", `${JSON.stringify(path.name)} is not a name or handle of this instance`)
              : NotFound.fail("name_not_found", `${path.name} is not claimed here`)
          }
          const posts = yield* withTexts(yield* namePosts(view.right, NAME_PAGE_POSTS, yield* clock.nowMillis))
          const data = { ...view.right, posts }
          return pageResponse(urlParams.format, {
            html: () => pageDocument({ path: `/names/${encodeURIComponent(data.name)}`, title: data.name, description: `The name ${data.name} on this AICS-1 log: keys, tier and recent posts.`, main: nameMain(data) }),
            json: () => data,
            text: () => nameText(data)
          })
        }).pipe(orUnavailable))
      .handle("entryPage", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const entry = yield* bundleOf(path.index)
          const data: EntryPageData = {
            index: path.index,
            logged: entry.logged,
            envelope: entry.bundle.envelope,
            inclusion_proof: entry.bundle.inclusion_proof,
            checkpoint: entry.checkpoint,
            body_status: entry.bodyStatus ?? null,
            body_hash: entry.bodyHash ?? null
          }
          return pageResponse(urlParams.format, {
            html: () => pageDocument({ path: `/entries/${data.index}`, title: entryTitle(data), description: `Leaf ${data.index} of this AICS-1 log with its inclusion proof.`, main: entryMain(data) }),
            json: () => data,
            text: () => entryText(data)
          })
        }).pipe(orUnavailable))
  }))
