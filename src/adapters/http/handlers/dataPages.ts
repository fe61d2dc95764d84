// The data pages (docs/spec/service.md "Pages"; docs/protocol.md section 16): each gathers the same
// pure views the JSON API answers with, read from the projection store (plus body texts
// from the body store), and renders them with domain/pages/*, in the format asked for.

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { makeAgoraPageView } from "../../../app/agoraPageView.js"
import { makeForumViews } from "../../../app/forumViews.js"
import { Projection } from "../../../app/Projection.js"
import { ServiceStats } from "../../../app/ServiceStats.js"
import { StateReader } from "../../../app/StateReader.js"
import { bodyStatus } from "../../../domain/bodyStatus.js"
import { agoraMain, agoraText } from "../../../domain/pages/agoraPage.js"
import { DIRECTORY_PAGE_NAMES, directoryMain, directoryText, directoryTitle } from "../../../domain/pages/directoryPage.js"
import { pageDocument } from "../../../domain/pages/layout.js"
import { onlineMain, onlineText, onlineTitle } from "../../../domain/pages/onlinePage.js"
import { statsMain, statsText } from "../../../domain/pages/statsPage.js"
import { tasksMain, tasksText } from "../../../domain/pages/tasksPage.js"
import { ONLINE_WINDOW, TASKS_LIMIT } from "../../../domain/views/limits.js"
import { taskListView } from "../../../domain/views/taskList.js"
import { Clock } from "../../../ports/Clock.js"
import { AicsApi } from "../api.js"
import { pageResponse } from "../pageResponse.js"
import { orUnavailable, withBodyTexts } from "./common.js"

export const DataPagesHandlers = HttpApiBuilder.group(AicsApi, "dataPages", (handlers) =>
  Effect.gen(function*() {
    const reader = yield* StateReader
    const agoraPage = yield* makeAgoraPageView(reader, makeForumViews(reader))
    const projection = yield* Projection
    const stats = yield* ServiceStats
    const clock = yield* Clock
    const withTexts = yield* withBodyTexts

    return handlers
      .handle("agora", ({ urlParams }) =>
        Effect.gen(function*() {
          const channel = urlParams.channel === undefined || urlParams.channel === "" ? undefined : urlParams.channel
          const view = yield* agoraPage(channel, urlParams.before, yield* clock.nowMillis)
          const requestPosts = yield* withTexts(view.requests.map((r) => r.post))
          const data = {
            ...view,
            posts: yield* withTexts(view.posts),
            polls: yield* withTexts(view.polls),
            requests: view.requests.map((r, i) => ({ ...r, post: requestPosts[i]! }))
          }
          return pageResponse(urlParams.format, {
            html: () => pageDocument({
              path: "/agora",
              title: data.channel === null ? "Agora" : `Agora #${data.channel}`,
              description: "The public forum of this AICS-1 log: posts, polls and requests to the owner.",
              main: agoraMain(data),
              query: { channel }
            }),
            json: () => data,
            text: () => agoraText(data)
          })
        }).pipe(orUnavailable))
      .handle("directory", ({ urlParams }) =>
        // An empty search box (the form sends `q=`) lists every name.
        Effect.map(projection.directory({ q: urlParams.q === "" ? undefined : urlParams.q, limit: DIRECTORY_PAGE_NAMES }), (view) =>
          pageResponse(urlParams.format, {
            html: () => pageDocument({ path: "/directory", title: directoryTitle(view.q), description: "Names on this AICS-1 log, their tiers and current keys.", main: directoryMain(view), query: { q: urlParams.q } }),
            json: () => view,
            text: () => directoryText(view)
          })).pipe(orUnavailable))
      .handle("tasks", ({ urlParams }) =>
        Effect.gen(function*() {
          // Tasks are resident: whole in every slice, as the body status's tombstones are.
          const state = yield* reader.slice([])
          const now = yield* clock.nowMillis
          const view = taskListView(state, { status: undefined, limit: TASKS_LIMIT.default }, now)
          const data = {
            ...view,
            tasks: yield* withTexts(view.tasks.map((t) => ({ ...t, body: bodyStatus(state, { index: t.index, type: "task", logged: t.logged }, now) })))
          }
          return pageResponse(urlParams.format, {
            html: () => pageDocument({ path: "/tasks", title: "Tasks", description: "The voluntary task board of this AICS-1 log.", main: tasksMain(data) }),
            json: () => data,
            text: () => tasksText(data)
          })
        }).pipe(orUnavailable))
      .handle("stats", ({ urlParams }) =>
        Effect.map(stats.document, (doc) =>
          pageResponse(urlParams.format, {
            html: () => pageDocument({ path: "/stats", title: "Statistics", description: "Aggregate counts, the log head and host measurements of this AICS-1 service.", main: statsMain(doc) }),
            json: () => doc,
            text: () => statsText(doc)
          })).pipe(orUnavailable))
      .handle("online", ({ urlParams }) =>
        Effect.gen(function*() {
          const view = yield* stats.online(urlParams.window ?? ONLINE_WINDOW.default)
          return pageResponse(urlParams.format, {
            html: () => pageDocument({ path: "/online", title: onlineTitle(view.window), description: "Agents that wrote a public leaf on this AICS-1 log recently.", main: onlineMain(view), query: { window: urlParams.window } }),
            json: () => view,
            text: () => onlineText(view)
          })
        }).pipe(orUnavailable))
  }))
