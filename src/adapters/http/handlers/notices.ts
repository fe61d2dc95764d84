// The notice routes (app/Notices.ts): POST /notice (keyless, JSON or a form, no leaf),
// GET /v2/admin/notices (owner-signed read: 401 unsigned, 403 another key) and
// POST /v2/admin/notices/{report_id}/close (owner-signed; the service writes the report leaf).

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { Charter } from "../../../app/Charter.js"
import { MAX_WRITE_REQUEST_BYTES } from "../../../app/EntryWrites.js"
import { MAX_NOTICE_BYTES, Notices } from "../../../app/Notices.js"
import { pageDocument } from "../../../domain/pages/layout.js"
import { noticeReceivedMain, noticeRefusedMain } from "../../../domain/pages/noticePage.js"
import { AicsApi, NOTICES_LIMIT } from "../api.js"
import { negotiatedFormat, PAGE_SECURITY_HEADERS } from "../pageResponse.js"
import { readLimitedBody } from "../limitedBody.js"
import { requestHead } from "../requestHead.js"
import { Forbidden, problemResponse, storageProblem } from "../problem.js"
import { signedBy } from "../signedRead.js"
import { orUnavailable } from "./common.js"


export const NoticesHandlers = HttpApiBuilder.group(AicsApi, "notices", (handlers) =>
  Effect.gen(function*() {
    const notices = yield* Notices
    const { ownerKid } = (yield* Charter).terms
    return handlers
      .handleRaw("file", ({ request }) =>
        Effect.gen(function*() {
          const read = yield* readLimitedBody(request, MAX_NOTICE_BYTES)
          if (read._tag === "Failed") return yield* problemResponse({ status: 400, code: "malformed_request", detail: "the body could not be read" })
          if (read._tag === "TooLarge") return yield* problemResponse({ status: 413, code: "body_too_large", detail: `a notice is at most ${MAX_NOTICE_BYTES} bytes` })
          const filed = yield* notices.file(read.bytes, request.headers["content-type"])
          // A person who sent the /notice form reads a page; a program gets JSON as before.
          if (negotiatedFormat(undefined, request.headers["accept"]) === "html") {
            const [status, title, main] = filed._tag === "Problem"
              ? [filed.status, "The notice was not taken", noticeRefusedMain(filed.detail, filed.errors ?? [])] as const
              : [201, "Notice received", noticeReceivedMain(filed.view)] as const
            return HttpServerResponse.text(pageDocument({ path: "/notice", title, description: "The answer to a notice sent with the /notice form.", main }), {
              status,
              contentType: "text/html; charset=utf-8",
              headers: { "cache-control": "no-store", ...PAGE_SECURITY_HEADERS }
            })
          }
          if (filed._tag === "Problem") return yield* problemResponse(filed)
          return yield* HttpServerResponse.json(filed.view, { status: 201 }).pipe(Effect.orDie)
        }).pipe(Effect.catchTag("StorageError", storageProblem)))
      // Raw, so a refused signature answers with its own status (401, 403, 409), whatever
      // other problem shares its fields.
      .handleRaw("list", ({ request, urlParams }) =>
        Effect.gen(function*() {
          const { keyid } = yield* signedBy(request)
          if (keyid !== ownerKid) return yield* Forbidden.fail("not_owner", "the notice register is read with the owner key that leaf 0 names")
          const list = yield* notices.list(urlParams.status, urlParams.limit ?? NOTICES_LIMIT.default)
          return yield* HttpServerResponse.json({ notices: list }, { status: 200 }).pipe(Effect.orDie)
        }).pipe(
          orUnavailable,
          Effect.catchAll((p) => problemResponse({ status: p.status, code: p.code, detail: p.detail }))
        ))
      .handleRaw("close", ({ path, request }) =>
        Effect.gen(function*() {
          const read = yield* readLimitedBody(request, MAX_WRITE_REQUEST_BYTES)
          if (read._tag === "Failed") return HttpServerResponse.empty({ status: 400 })
          if (read._tag === "TooLarge") return yield* problemResponse({ status: 413, code: "body_too_large", detail: "the body is too large" })
          const closed = yield* notices.close({ ...requestHead(request), body: read.bytes }, path.report_id)
          if (closed._tag === "Problem") return yield* problemResponse(closed)
          const { answer } = closed
          return yield* HttpServerResponse.json(answer.body, {
            status: answer.status,
            headers: {
              ...(answer.location !== undefined ? { location: answer.location } : {}),
              ...(answer.retryAfter !== undefined ? { "retry-after": String(answer.retryAfter) } : {})
            }
          }).pipe(Effect.orDie)
        }).pipe(Effect.catchTag("StorageError", storageProblem)))
  }))

