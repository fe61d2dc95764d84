// GET /v2/stream (streamApi.ts): the live stream of the log, written straight to Node's
// response so the socket's backpressure is visible.
//
// Each subscriber keeps one number, the next leaf index it owes its client, and asks
// LogStream for the page from there: from memory when it is live, from the store when it
// resumes from far back. It writes while Node's buffer for the socket stays under
// HIGH_WATER_BYTES; past it, it waits for the buffer to drain. A client that lets it stay
// full for the stall time (AICS_STREAM_STALL_SECONDS) gets the `dropped` event, which
// names where to resume, and is closed: the memory a consumer costs is bounded by
// HIGH_WATER_BYTES and one event, however slow it is and however fast the log grows.
//
// A caller address holds at most AICS_STREAMS_PER_ADDRESS streams at once (429 beyond).

import type { ServerResponse } from "node:http"
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Deferred, Duration, Effect, Option } from "effect"
import { LogStream } from "../../../app/LogStream.js"
import { StreamConfig } from "../../../app/StreamConfig.js"
import { checkpointEvent, droppedEvent, KEEP_ALIVE, matches, type StreamFilter } from "../../../domain/stream/logEvents.js"
import { AicsApi } from "../api.js"
import { callerAddress } from "../callerAddress.js"
import { problemResponse } from "../problem.js"

/** Unsent bytes a subscriber may leave in Node's buffer before it waits for a drain. */
export const HIGH_WATER_BYTES = 64 * 1024
/** A comment line after this long without an event keeps proxies from closing the stream. */
const KEEP_ALIVE_INTERVAL = Duration.seconds(15)
/** How long a dropped consumer's socket may take to take its last bytes before it is cut. */
const DROP_GRACE_MS = 5_000
/** The reconnection delay browsers' EventSource uses (SSE `retry`). */
const RETRY_MS = 2_000

const filterOf = (params: { readonly type?: string | undefined; readonly channel?: string | undefined; readonly to?: string | undefined }): StreamFilter => {
  const types = params.type?.split(",").map((t) => t.trim()).filter((t) => t !== "")
  return {
    types: types === undefined || types.length === 0 ? undefined : new Set(types),
    channel: params.channel === undefined || params.channel === "" ? undefined : params.channel,
    to: params.to === undefined || params.to === "" ? undefined : params.to
  }
}

/** True once the buffer drained; false if it stayed full for `stall` or the socket closed. */
const drained = (res: ServerResponse, stall: Duration.Duration) =>
  Effect.async<boolean>((resume) => {
    const onDrain = () => finish(true)
    const onClose = () => finish(false)
    const timer = setTimeout(() => finish(false), Duration.toMillis(stall))
    const finish = (ok: boolean) => {
      clearTimeout(timer)
      res.off("drain", onDrain)
      res.off("close", onClose)
      resume(Effect.succeed(ok))
    }
    res.once("drain", onDrain)
    res.once("close", onClose)
    return Effect.sync(() => {
      clearTimeout(timer)
      res.off("drain", onDrain)
      res.off("close", onClose)
    })
  })

/** The last event of a consumer that stopped reading, then the end; the socket is cut if it never takes it. */
const drop = (res: ServerResponse, next: number, stallSeconds: number) =>
  Effect.sync(() => {
    res.end(droppedEvent(`the client read nothing for ${stallSeconds} s while events waited`, next))
    const cut = setTimeout(() => res.destroy(), DROP_GRACE_MS)
    cut.unref()
    res.once("close", () => clearTimeout(cut))
  })

export const StreamHandlers = HttpApiBuilder.group(AicsApi, "stream", (handlers) =>
  Effect.gen(function*() {
    const stream = yield* LogStream
    const settings = yield* StreamConfig
    const stall = Duration.seconds(settings.stallSeconds)
    const openByAddress = new Map<string, number>()

    const serve = (res: ServerResponse, start: number, filter: StreamFilter) =>
      Effect.gen(function*() {
        res.writeHead(200, {
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-store",
          // nginx would otherwise buffer the stream.
          "x-accel-buffering": "no"
        })
        res.write(`retry: ${RETRY_MS}\n\n`)
        let next = start
        let sentCheckpoint = 0
        while (true) {
          const signal = yield* stream.signal
          if (next < (yield* stream.head)) {
            const page = yield* Effect.mapError(stream.page(next), (e) => ({ detail: e.detail, next }))
            for (const event of page) {
              next = event.index + 1
              if (!matches(filter, event)) continue
              res.write(event.text)
              if (res.writableLength > HIGH_WATER_BYTES && !(yield* drained(res, stall))) {
                return yield* drop(res, next, settings.stallSeconds)
              }
            }
            continue
          }
          const checkpoint = yield* stream.checkpoint
          if (checkpoint !== undefined && checkpoint.size > sentCheckpoint && next >= checkpoint.size) {
            sentCheckpoint = checkpoint.size
            res.write(checkpointEvent(checkpoint))
            continue
          }
          const woken = yield* Deferred.await(signal).pipe(Effect.timeoutOption(KEEP_ALIVE_INTERVAL))
          if (Option.isNone(woken)) res.write(KEEP_ALIVE)
        }
      })

    return handlers.handle("stream", ({ headers, request, urlParams }) =>
      Effect.gen(function*() {
        const address = callerAddress(Option.getOrUndefined(request.remoteAddress), request.headers["x-forwarded-for"])
        const open = openByAddress.get(address) ?? 0
        if (open >= settings.perAddress) {
          return yield* Effect.map(
            problemResponse({ status: 429, code: "too_many_streams", detail: `this address already holds ${open} streams (at most ${settings.perAddress})` }),
            HttpServerResponse.setHeader("retry-after", "10"))
        }
        const lastEventId = headers["last-event-id"]
        const start = lastEventId !== undefined ? lastEventId + 1 : urlParams.from ?? (yield* stream.head)
        openByAddress.set(address, open + 1)
        const res = NodeHttpServerRequest.toServerResponse(request)
        yield* serve(res, start, filterOf(urlParams)).pipe(
          // A store read failed mid-stream: the status is sent already, so the last event says it.
          Effect.catchAll((error) => Effect.sync(() => res.end(droppedEvent(`the log could not be read (${error.detail}); reconnect`, error.next)))),
          Effect.ensuring(Effect.sync(() => {
          const left = (openByAddress.get(address) ?? 1) - 1
          if (left === 0) openByAddress.delete(address)
          else openByAddress.set(address, left)
        })))
        // Written and ended above: the server sends nothing more (its response is ignored).
        return HttpServerResponse.empty({ status: 200 })
      }))
  }))
