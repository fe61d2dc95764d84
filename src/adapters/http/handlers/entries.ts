// POST /v2/entries (the signed write, app/EntryWrites.ts), GET /v2/entries/{index} (the AICS-1 section 14.3 wire bundle, with X-AICS-Body-Status),
// GET /v2/entries/{index}/receipt (the write's accepted answer again, app/ReissuedReceipts.ts)
// and GET /v2/bodies/{digest} (200 bytes, 410 when hidden or expired, 404 when no entry
// names it, which proves nothing).

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { Bodies } from "../../../app/Bodies.js"
import { EntryWrites } from "../../../app/EntryWrites.js"
import { reissuedReceipts } from "../../../app/ReissuedReceipts.js"
import { writeTracing } from "../../../app/Tracing.js"
import { decodeU64 } from "../../../domain/encoding.js"
import { AicsApi } from "../api.js"
import { answerWrite, arrivalOf } from "../writeRoute.js"
import { NotFound } from "../problem.js"
import { orUnavailable } from "./common.js"
import { type EntryBundle, entryBundles } from "./entryBundle.js"

const BODY_STATUS = "x-aics-body-status"

/** GET /v2/entries/{index}'s answer: the bundle as JSON, the body's status as X-AICS-Body-Status. */
export const entryResponse = ({ bundle, bodyStatus }: EntryBundle) =>
  HttpServerResponse.json(bundle, { headers: bodyStatus === undefined ? {} : { [BODY_STATUS]: bodyStatus } }).pipe(Effect.orDie)

export const EntriesHandlers = HttpApiBuilder.group(AicsApi, "entries", (handlers) =>
  Effect.gen(function*() {
    const bodies = yield* Bodies
    const writes = yield* EntryWrites
    const bundleOf = yield* entryBundles
    const tracing = yield* writeTracing
    const receiptOf = yield* reissuedReceipts

    return handlers
      .handleRaw("write", ({ request }) => answerWrite(tracing, arrivalOf(request), writes.write, writes.tooLarge))
      .handle("entry", ({ path: { index } }) => Effect.flatMap(bundleOf(index), entryResponse).pipe(orUnavailable))
      .handle("receipt", ({ path: { index } }) =>
        Effect.flatMap(receiptOf(index), (found) =>
          found._tag === "Reissued"
            ? Effect.succeed(found.body)
            // The entry route's own problem (coveringCheckpoint), with the same words.
            : NotFound.fail("entry_not_found", `the log has ${found.size} entries`)).pipe(orUnavailable))
      .handle("body", ({ path: { digest } }) =>
        Effect.gen(function*() {
          const body = yield* bodies.ofDigest(decodeU64(digest)!)
          switch (body.state) {
            case "available":
              return HttpServerResponse.uint8Array(body.bytes, {
                contentType: "application/octet-stream",
                // A body never changes under its hash, but it can be hidden or expire.
                headers: { "cache-control": "public, max-age=60" }
              })
            case "unavailable":
              return yield* NotFound.fail("body_not_found", "no stored body has this hash; absence proves nothing")
            case "gone":
              return yield* Effect.fail({ ...body.status, state: body.status.state as "tombstoned" | "expired" })
          }
        }).pipe(orUnavailable))
  }))
