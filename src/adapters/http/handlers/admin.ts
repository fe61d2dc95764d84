// /v2/admin/*: the owner's signed operations (app/AdminWrites.ts), one route per kind of
// operation, each taking only its entry types, and requests large enough for an owner's
// document when the head is the owner's (AdminWrites.bodyLimit).

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect } from "effect"
import { AdminWrites } from "../../../app/AdminWrites.js"
import { EntryWrites } from "../../../app/EntryWrites.js"
import { writeTracing } from "../../../app/Tracing.js"
import { ADMIN_ROUTES } from "../../../domain/http/adminRoutes.js"
import { AicsApi } from "../api.js"
import { requestHead } from "../requestHead.js"
import { answerWrite, arrivalOf } from "../writeRoute.js"

export const AdminHandlers = HttpApiBuilder.group(AicsApi, "admin", (handlers) =>
  Effect.gen(function*() {
    const admin = yield* AdminWrites
    const { tooLarge } = yield* EntryWrites
    const tracing = yield* writeTracing
    const route = (name: keyof typeof ADMIN_ROUTES) =>
      ({ request }: { request: HttpServerRequest.HttpServerRequest }) =>
        Effect.flatMap(admin.bodyLimit(requestHead(request)), (limit) =>
          answerWrite(tracing, arrivalOf(request), (write) => admin.write(write, ADMIN_ROUTES[name].types), tooLarge, limit))
    return handlers
      .handleRaw("tombstones", route("tombstones"))
      .handleRaw("suspensions", route("suspensions"))
      .handleRaw("freeze", route("freeze"))
      .handleRaw("audits", route("audits"))
      .handleRaw("policy", route("policy"))
      .handleRaw("tasks", route("tasks"))
      .handleRaw("actions", route("actions"))
  }))
