// POST /v2/entries (the signed write, app/EntryWrites.ts), GET /v2/entries/{index} (the AICS-1 section 14.3 wire bundle, with X-AICS-Body-Status)
// and GET /v2/bodies/{digest} (200 bytes, 410 when hidden or expired, 404 when no entry
// names it, which proves nothing).

import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { Bodies, type BodyPresence } from "../../../app/Bodies.js"
import { bodyStatusHeader } from "../../../domain/bodyStatus.js"
import { EntryWrites } from "../../../app/EntryWrites.js"
import { LogReader } from "../../../app/LogReader.js"
import { LogStatus } from "../../../app/LogStatus.js"
import { Publisher } from "../../../app/Publisher.js"
import { ServiceConfig } from "../../../app/ServiceConfig.js"
import { fromUtf8 } from "../../../domain/bytes.js"
import { bodyReference } from "../../../domain/bodyReference.js"
import { decodeU64, encodeB64, encodeU64 } from "../../../domain/encoding.js"
import { LogStore } from "../../../ports/LogStore.js"
import { AicsApi } from "../api.js"
import { answerWrite } from "../writeRoute.js"
import { NotFound } from "../problem.js"
import { orUnavailable } from "./common.js"
import { coveringCheckpoint } from "./tlog.js"

const BODY_STATUS = "x-aics-body-status"

/** X-AICS-Body-Status of a lookup. */
const statusHeader = (body: BodyPresence): string =>
  body.state === "gone" ? bodyStatusHeader(body.status) : body.state

export const EntriesHandlers = HttpApiBuilder.group(AicsApi, "entries", (handlers) =>
  Effect.gen(function*() {
    const config = yield* ServiceConfig
    const store = yield* LogStore
    const reader = yield* LogReader
    const publisher = yield* Publisher
    const status = yield* LogStatus
    const bodies = yield* Bodies
    const writes = yield* EntryWrites

    return handlers
      .handleRaw("write", ({ request }) => answerWrite(request, writes.write, writes.tooLarge))
      .handle("entry", ({ path: { index } }) =>
        Effect.gen(function*() {
          const committed = (yield* status.current).size
          const checkpoint = yield* coveringCheckpoint(publisher, index, committed, config.mmdSeconds)
          const [entry] = yield* store.readEntries(index, index + 1)
          const proof = yield* reader.inclusionProof(index, checkpoint.size)
          const leaf = JSON.parse(fromUtf8(entry!)) as { envelope: Record<string, unknown>; logged: number }
          const payload = (leaf.envelope["payload"] ?? {}) as Record<string, unknown>
          const reference = bodyReference(payload)
          const named = { index, type: String(leaf.envelope["type"]), logged: leaf.logged }
          // Only a riding body's bytes go in the bundle; for a document named by hash alone
          // (up to 1 MiB) the header needs only whether it is stored.
          const riding = reference?.rides === true ? yield* bodies.ofEntry(named, reference.digest) : undefined
          const body = reference === undefined ? undefined : riding ?? (yield* bodies.presenceOfEntry(named, reference.digest))
          const bundle = {
            entry_bytes: encodeU64(entry!),
            index,
            inclusion_proof: proof.map(encodeB64),
            checkpoint_note: encodeU64(checkpoint.note),
            envelope: leaf.envelope,
            body_or_ct: riding?.state === "available" ? encodeU64(riding.bytes) : null
          }
          const headers = body === undefined ? {} : { [BODY_STATUS]: statusHeader(body) }
          return yield* HttpServerResponse.json(bundle, { headers }).pipe(Effect.orDie)
        }).pipe(orUnavailable))
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
