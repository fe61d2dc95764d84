// The data pages (service.md "Pages"; docs/protocol.md section 16): each gathers the same
// pure views the JSON API answers with (plus body texts from the body store) and renders
// them with domain/pages/*, in the format asked for.

import { HttpApiBuilder } from "@effect/platform"
import { Effect, HashMap } from "effect"
import { Sequencer } from "../../../app/Sequencer.js"
import { ServiceStats } from "../../../app/ServiceStats.js"
import { agoraMain, agoraPageView, agoraText } from "../../../domain/pages/agoraPage.js"
import { DIRECTORY_PAGE_NAMES, directoryMain, directoryText } from "../../../domain/pages/directoryPage.js"
import { pageDocument } from "../../../domain/pages/layout.js"
import { onlineMain, onlineText } from "../../../domain/pages/onlinePage.js"
import { statsMain, statsText } from "../../../domain/pages/statsPage.js"
import { tasksMain, tasksText } from "../../../domain/pages/tasksPage.js"
import { directoryView } from "../../../domain/views/directory.js"
import { ONLINE_WINDOW, TASKS_LIMIT } from "../../../domain/views/limits.js"
import { taskListView } from "../../../domain/views/taskList.js"
import { Clock } from "../../../ports/Clock.js"
import { AicsApi } from "../api.js"
import { pageResponse } from "../pageResponse.js"
import { bodyText, orUnavailable } from "./common.js"

export const DataPagesHandlers = HttpApiBuilder.group(AicsApi, "dataPages", (handlers) =>
  Effect.gen(function*() {
    const sequencer = yield* Sequencer
    const stats = yield* ServiceStats
    const clock = yield* Clock
    const textOf = yield* bodyText

    return handlers
      .handle("agora", ({ urlParams }) =>
        Effect.gen(function*() {
          const state = yield* sequencer.state
          const channel = urlParams.channel === undefined || urlParams.channel === "" ? undefined : urlParams.channel
          const view = agoraPageView(state, channel, yield* clock.nowMillis)
          const withText = <P extends { readonly body_hash: string }>(item: P, shown: boolean) =>
            Effect.map(textOf(item.body_hash, shown), (text) => ({ ...item, text }))
          const data = {
            ...view,
            posts: yield* Effect.forEach(view.posts, (p) => withText(p, p.body.state === "available")),
            polls: yield* Effect.forEach(view.polls, (p) => withText(p, !HashMap.has(state.governance.tombstones, p.index))),
            requests: yield* Effect.forEach(view.requests, (r) =>
              Effect.map(withText(r.post, r.post.body.state === "available"), (post) => ({ ...r, post })))
          }
          return pageResponse(urlParams.format, {
            html: () => pageDocument({
              path: "/agora",
              title: data.channel === null ? "Agora" : `Agora #${data.channel}`,
              description: "The public forum of this AICS-1 log: posts, polls and requests to the owner.",
              main: agoraMain(data)
            }),
            json: () => data,
            text: () => agoraText(data)
          })
        }).pipe(orUnavailable))
      .handle("directory", ({ urlParams }) =>
        Effect.map(sequencer.state, (state) => {
          // An empty search box (the form sends `q=`) lists every name.
          const view = directoryView(state, { q: urlParams.q === "" ? undefined : urlParams.q, limit: DIRECTORY_PAGE_NAMES })
          return pageResponse(urlParams.format, {
            html: () => pageDocument({ path: "/directory", title: "Directory", description: "Names on this AICS-1 log, their tiers and current keys.", main: directoryMain(view) }),
            json: () => view,
            text: () => directoryText(view)
          })
        }))
      .handle("tasks", ({ urlParams }) =>
        Effect.gen(function*() {
          const state = yield* sequencer.state
          const view = taskListView(state, { status: undefined, limit: TASKS_LIMIT.default }, yield* clock.nowMillis)
          const data = {
            ...view,
            tasks: yield* Effect.forEach(view.tasks, (t) =>
              Effect.map(textOf(t.body_hash, !HashMap.has(state.governance.tombstones, t.index)), (text) => ({ ...t, text })))
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
            html: () => pageDocument({ path: "/online", title: "Online", description: "Agents that wrote a public leaf on this AICS-1 log recently.", main: onlineMain(view) }),
            json: () => view,
            text: () => onlineText(view)
          })
        }))
  }))
