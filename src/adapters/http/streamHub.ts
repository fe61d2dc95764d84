// GET /v2/stream's subscribers on this node (docs/protocol.md "Live stream of the log"):
// the events written straight to Node's response, so the socket's backpressure is visible.
//
// Subscribers are live or catching up. One dispatcher fiber per node hands each new batch
// of events (LogStream's ring) to the live subscribers: the batch is sorted once into the
// filter groups it has events for (streamGroups.ts), each group's events are joined and
// framed once, and that one Buffer is written to the socket of each live member of the
// group (sseWire.ts): a batch costs a subscriber one write, wakes no fiber of its own and
// allocates nothing per subscriber. A live subscriber's position is the dispatcher's: a
// cursor into the shared ring, kept by no one but the dispatcher. A subscriber whose client
// accepts gzip gets the same pieces compressed, once per group too (StreamWire, sharedGzip.ts).
//
// A subscriber catches up in a fiber of its own: from where it asked to start
// (Last-Event-ID, `from`) until it reaches the dispatcher, reading pages from LogStream
// (memory, or the store 64 leaves at a time), each page's events in one write, and then it
// goes live. Whichever writes, it stops once Node's buffer for the socket holds
// HIGH_WATER_BYTES: the subscriber leaves the live set and waits for a drain, then catches
// up again. A client that lets the buffer stay full for the stall time
// (AICS_STREAM_STALL_SECONDS) gets the `dropped` event, which names where to resume, and is
// closed: the memory a consumer costs is bounded by HIGH_WATER_BYTES and one page, however
// slow it is and however fast the log grows.
//
// That fiber is the hub's, not the request's. Once the head is written the request is
// answered (the lean route, leanStreamRoute.ts, counts it then), and the stream runs on
// in a fiber started from the hub's runtime, with nothing on its stack but its own loop:
// a request's fiber, kept for the stream's life, held the whole of HttpApi's router and
// middlewares (54 frames, with the effects and closures they hold): about 40 KB of heap a
// subscriber, 40 MiB at a thousand, each full collection marking it again (bench/README.md
// "Session 30"). Its client's leaving (the response's `close`) interrupts it.
//
// A caller address holds at most AICS_STREAMS_PER_ADDRESS streams at once (429 beyond).

import type { EventEmitter } from "node:events"
import type { ServerResponse } from "node:http"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Context, Deferred, Duration, Effect, Exit, FiberId, Layer, Runtime } from "effect"
import { LogStream, RING_CAPACITY } from "../../app/LogStream.js"
import { StreamConfig } from "../../app/StreamConfig.js"
import { restAfter } from "../../domain/stream/dispatchPace.js"
import { checkpointEvent, droppedEvent, KEEP_ALIVE, matches, type LeafEvent, type StreamFilter } from "../../domain/stream/logEvents.js"
import { currentRateLimit, rateLimitHeaders, tarpit } from "./admission.js"
import { callerAddress } from "./callerAddress.js"
import { DRAINING_EVENT } from "./closeDraining.js"
import { problemResponse } from "./problem.js"
import { acceptsGzip, attached, codingHeaders, drained, SharedBytes, StreamWire, unsentBytes } from "./sseWire.js"
import { StreamGroups, type Group } from "./streamGroups.js"
import type { StreamUrlParams } from "./streamApi.js"

/**
 * Unsent bytes a subscriber may leave in Node's buffer before it waits for a drain (it
 * writes a batch at a time, so the buffer holds at most this and one batch).
 */
export const HIGH_WATER_BYTES = 64 * 1024
/** A comment line this often keeps proxies from closing an idle stream (sent to every stream: one timer, no per-stream clock). */
const KEEP_ALIVE_INTERVAL = Duration.seconds(15)
/**
 * How long a dropped consumer's socket may take to take its last bytes before it is cut. The
 * kernel's buffers of a loopback or fast link hold megabytes ahead of the `dropped` event, so
 * a consumer that reads again must drain them first: 5 s cut some short of their end on a
 * loaded machine (test/adapters/http/logStream.test.ts), and until the cut the socket costs
 * only the bounded buffer it already had.
 */
const DROP_GRACE_MS = 30_000
/** The reconnection delay browsers' EventSource uses (SSE `retry`). */
const RETRY_MS = 2_000
const KEEP_ALIVE_BYTES = SharedBytes.of(KEEP_ALIVE)
/** The first bytes of every stream (compressed once for all gzip subscribers). */
const RETRY_BYTES = SharedBytes.of(`retry: ${RETRY_MS}\n\n`)

/** The stream's head, but for its coding and the RateLimit fields. */
const STREAM_HEAD = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store",
  // nginx would otherwise buffer the stream.
  "x-accel-buffering": "no"
}

const filterOf = (params: { readonly type?: string | undefined; readonly channel?: string | undefined; readonly to?: string | undefined }): StreamFilter => {
  const types = params.type?.split(",").map((t) => t.trim()).filter((t) => t !== "")
  return {
    types: types === undefined || types.length === 0 ? undefined : new Set(types),
    channel: params.channel === undefined || params.channel === "" ? undefined : params.channel,
    to: params.to === undefined || params.to === "" ? undefined : params.to
  }
}

/** The last event of a consumer that stopped reading, then the end; the socket is cut if it never takes it. */
const drop = (wire: StreamWire, next: number, stallSeconds: number) =>
  Effect.sync(() => {
    const { res } = wire
    wire.end(droppedEvent(`the client read nothing for ${stallSeconds} s while events waited`, next))
    const cut = setTimeout(() => res.destroy(), DROP_GRACE_MS)
    cut.unref()
    res.once("close", () => clearTimeout(cut))
  })

interface Subscriber {
  readonly res: ServerResponse
  /** Every byte of the body after the head goes through it (its coding: identity or gzip). */
  readonly wire: StreamWire
  readonly filter: StreamFilter
  /**
   * The next leaf index this subscriber owes its client. While it is live the dispatcher
   * moves on for it: its position is then the dispatcher's, if that is further.
   */
  next: number
  /** The size of the last checkpoint sent. */
  sentCheckpoint: number
  /** The group it is live in; undefined while it catches up or waits for a drain. */
  group: Group<Subscriber> | undefined
  /** Completed when the dispatcher stops writing to it (its buffer is full). */
  blocked: Deferred.Deferred<void>
}

const overfull = (sub: Subscriber) => unsentBytes(sub.res) > HIGH_WATER_BYTES
const ended = (sub: Subscriber) => sub.res.destroyed || sub.res.writableEnded


/**
 * Marks the response of a client that went as ended (nothing reaches a closed socket), so
 * that HttpApi writes no answer after the stream's head when its handler's fiber ends:
 * Node would refuse that second head, and the stream would be counted a 500
 * (countRequests.ts counts it with the 200 its client was sent).
 */
export const markGone = (res: ServerResponse): void => {
  if (res.destroyed && !res.writableEnded) res.end()
}

/** What a request for the stream brings: its method, coding, address, filter and start. */
export interface StreamRequest {
  readonly method: string
  readonly acceptEncoding: string | undefined
  /** The TCP peer, undefined when the socket is gone. */
  readonly remoteAddress: string | undefined
  readonly forwardedFor: string | undefined
  readonly params: typeof StreamUrlParams.Type
  readonly lastEventId: number | undefined
  readonly res: ServerResponse
  /** The HTTP server the request came through, whose shutdown ends its streams (closeDraining.ts). */
  readonly server: EventEmitter | undefined
}

/**
 * What `open` did: answered the request (a HEAD's head, a 429, a client gone before its
 * turn), or wrote the stream's head and left the stream running, `ended` completed when it
 * stops.
 */
export type Opened =
  | { readonly answer: HttpServerResponse.HttpServerResponse; readonly ended?: undefined }
  | { readonly answer?: undefined; readonly ended: Deferred.Deferred<void> }

export class StreamHub extends Context.Tag("aics/StreamHub")<StreamHub, {
  /** Opens a stream for the request (see Opened). */
  readonly open: (request: StreamRequest) => Effect.Effect<Opened>
}>() {
  static readonly layer = Layer.scoped(StreamHub, Effect.gen(function*() {
    const stream = yield* LogStream
    const settings = yield* StreamConfig
    const stall = Duration.seconds(settings.stallSeconds)
    const openByAddress = new Map<string, number>()
    const groups = new StreamGroups<Subscriber>()
    const live = new Set<Subscriber>()
    /** Events of leaves before this were handed to every live subscriber. */
    let dispatched = yield* stream.head
    let checkpoint: { readonly size: number; readonly bytes: SharedBytes } | undefined

    const position = (sub: Subscriber) => (sub.group === undefined ? sub.next : Math.max(sub.next, dispatched))

    const sendCheckpoint = (sub: Subscriber) => {
      if (checkpoint !== undefined && checkpoint.size > sub.sentCheckpoint && position(sub) >= checkpoint.size) {
        sub.sentCheckpoint = checkpoint.size
        sub.wire.write(checkpoint.bytes)
      }
    }

    const goLive = (sub: Subscriber) => {
      sub.blocked = Deferred.unsafeMake<void>(FiberId.none)
      sub.group = groups.join(sub.filter, sub)
      live.add(sub)
    }
    /** Out of the live set, its position its own again; `blocked` wakes its fiber. */
    const leaveLive = (sub: Subscriber) => {
      if (sub.group === undefined) return
      sub.next = position(sub)
      groups.leave(sub.group, sub)
      sub.group = undefined
      live.delete(sub)
      Deferred.unsafeDone(sub.blocked, Exit.void)
    }

    /**
     * Hands a batch to every live subscriber its filter takes, with the checkpoint its leaves
     * complete, in one write: the socket is corked for the two, so they leave in one writev
     * (with a thousand subscribers a dispatch is mostly syscalls, and a batch and a
     * checkpoint each cycle were two of them per subscriber). One whose buffer fills leaves
     * the live set.
     */
    const dispatch = (page: ReadonlyArray<LeafEvent>) => {
      const from = dispatched
      dispatched = page[page.length - 1]!.index + 1
      for (const group of groups.route(page)) {
        const shared = new SharedBytes(group.events.map((event) => event.bytes))
        for (const sub of group.members) {
          if (ended(sub)) {
            leaveLive(sub)
            continue
          }
          const socket = sub.res.socket
          socket?.cork()
          try {
            // Ahead of the batch's start (it caught up past it): only what it was not sent.
            sub.wire.write(sub.next <= from ? shared : new SharedBytes(group.events.filter((e) => e.index >= sub.next).map((e) => e.bytes)))
            sendCheckpoint(sub)
          } finally {
            // Whatever happened, the socket is not left corked (its bytes would wait for the stall timer).
            socket?.uncork()
          }
          if (overfull(sub)) leaveLive(sub)
        }
      }
    }

    /** The event loop's time the last dispatch took: the writes are syscalls made on the spot. */
    let busyMs = 0
    const dispatcher = Effect.gen(function*() {
      const signal = yield* stream.signal
      busyMs = 0
      // The checkpoint first (its leaves are in the log, so within the head read next): each
      // subscriber's last batch of this round carries it (dispatch), and those the batches
      // skipped (their filters took none of the leaves) get it alone after them, in every
      // round, so a round that failed before that pass leaves nobody without it.
      const latest = yield* stream.checkpoint
      if (latest !== undefined && latest.size !== checkpoint?.size) checkpoint = { size: latest.size, bytes: SharedBytes.of(checkpointEvent(latest)) }
      for (let head = yield* stream.head; dispatched < head; head = yield* stream.head) {
        if (live.size === 0) {
          // No one to hand them to (a stream catching up goes live only once level with this).
          dispatched = head
          break
        }
        const page = yield* stream.page(dispatched, RING_CAPACITY)
        if (page.length === 0) break
        const started = performance.now()
        dispatch(page)
        busyMs += performance.now() - started
      }
      // One comparison a live subscriber when there is nothing new to send.
      const started = performance.now()
      for (const sub of live) sendCheckpoint(sub)
      busyMs += performance.now() - started
      yield* Deferred.await(signal)
      // What else arrives while it rests goes out in the same writes (domain/stream/dispatchPace.ts).
      yield* Effect.sleep(Duration.millis(restAfter(busyMs)))
    })
    // Nothing may end the dispatcher: a failure (a store read) or a defect is logged and it goes on.
    yield* Effect.forkScoped(Effect.forever(dispatcher.pipe(
      Effect.catchAllCause((cause) => Effect.zipRight(Effect.logWarning("the live stream's dispatcher failed", cause), Effect.sleep(Duration.seconds(1))))
    )))
    // Keeps idle streams (and the proxies on their way) open.
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep(KEEP_ALIVE_INTERVAL), Effect.sync(() => {
      for (const sub of live) if (!ended(sub)) sub.wire.write(KEEP_ALIVE_BYTES)
    }))))

    /**
     * Catches the subscriber up to the dispatcher (its head sent), then leaves it live until
     * its buffer fills; waits for the drain and does it again. Ends only by dropping it.
     */
    const serve = (sub: Subscriber) =>
      Effect.gen(function*() {
        const { res } = sub
        while (!ended(sub)) {
          // Behind the dispatcher: read and write a page at a time, until level with it.
          while (!overfull(sub)) {
            if (sub.next >= dispatched) {
              // Level with (or ahead of) the dispatcher: from now on it writes here.
              goLive(sub)
              sendCheckpoint(sub)
              yield* Deferred.await(sub.blocked)
              break
            }
            const page = yield* Effect.mapError(stream.page(sub.next), (e) => ({ detail: e.detail, next: sub.next }))
            // The page's events in one write, stopped once past the mark, so a stalled
            // client's buffer holds at most one event past it.
            const parts: Array<Uint8Array> = []
            let unsent = unsentBytes(res)
            for (const event of page) {
              if (event.index < sub.next) continue
              sub.next = event.index + 1
              if (matches(sub.filter, event)) {
                parts.push(event.bytes)
                unsent += event.bytes.length
                if (unsent > HIGH_WATER_BYTES) break
              }
            }
            sub.wire.write(new SharedBytes(parts))
            sendCheckpoint(sub)
          }
          // Ended meanwhile (the shutdown's last event, endAllOnDrain): nothing more to send.
          if (ended(sub)) return
          if (!(yield* drained(res, stall))) return ended(sub) ? undefined : yield* drop(sub.wire, sub.next, settings.stallSeconds)
        }
      })

    /** Every open stream, and the servers whose shutdown ends them (closeDraining.ts). */
    const openStreams = new Set<Subscriber>()
    const watchedServers = new WeakSet<object>()
    const endAllOnDrain = (server: EventEmitter | null | undefined) => {
      if (server === null || server === undefined || watchedServers.has(server)) return
      watchedServers.add(server)
      server.once(DRAINING_EVENT, () => {
        for (const sub of openStreams) {
          // One whose head is not written yet (behind an earlier response on its connection)
          // has no stream to end: an event now would go out as a body without its head.
          if (!sub.res.headersSent) continue
          const next = position(sub)
          if (!sub.res.writableEnded) sub.wire.end(droppedEvent("the service is shutting down; reconnect to another node or later", next))
          leaveLive(sub)
          Deferred.unsafeDone(sub.blocked, Exit.void)
        }
      })
    }


    /** Ends the stream's bookkeeping once its fiber is done, however it ended. */
    const release = (sub: Subscriber, address: string) => {
      markGone(sub.res)
      leaveLive(sub)
      openStreams.delete(sub)
      const left = (openByAddress.get(address) ?? 1) - 1
      if (left === 0) openByAddress.delete(address)
      else openByAddress.set(address, left)
    }

    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    /** The streams' fibers, interrupted when the hub's scope closes. */
    const running = new Set<{ readonly interrupt: () => void }>()
    yield* Effect.addFinalizer(() => Effect.sync(() => {
      for (const fiber of running) fiber.interrupt()
    }))

    /** Serves the subscriber in a fiber of the hub's own; `ended` completes when it stops. */
    const runStream = (sub: Subscriber, address: string, ended: Deferred.Deferred<void>) => {
      const fiber = runFork(stream.watching(serve(sub)).pipe(
        // A store read failed mid-stream: the status is sent already, so the last event says it.
        Effect.catchAll((error) => Effect.sync(() => sub.wire.end(droppedEvent(`the log could not be read (${error.detail}); reconnect`, error.next)))),
        // A defect: logged, and the stream ended (the head is sent; there is no other answer).
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause) ? Effect.void : Effect.zipRight(Effect.logError("a live stream failed", cause), Effect.sync(() => sub.res.destroy()))),
        Effect.ensuring(Effect.sync(() => {
          release(sub, address)
          Deferred.unsafeDone(ended, Exit.void)
        }))
      ))
      const handle = { interrupt: () => fiber.unsafeInterruptAsFork(FiberId.none) }
      running.add(handle)
      fiber.addObserver(() => running.delete(handle))
      // The client's leaving ends it (a live stream's fiber waits on nothing the socket wakes).
      sub.res.once("close", handle.interrupt)
      if (sub.res.destroyed) handle.interrupt()
    }

    const open = (request: StreamRequest): Effect.Effect<Opened> =>
      Effect.gen(function*() {
        const { res } = request
        const gzip = acceptsGzip(request.acceptEncoding)
        // HEAD: the head a GET would get, and no stream (Node sends a HEAD answer's head only
        // when it ends, so a stream would never show it, and would hold a slot).
        if (request.method === "HEAD") {
          return { answer: HttpServerResponse.empty({ status: 200, headers: { ...STREAM_HEAD, ...codingHeaders(gzip) } }) }
        }
        const address = callerAddress(request.remoteAddress, request.forwardedFor)
        const open = openByAddress.get(address) ?? 0
        if (open >= settings.perAddress) {
          // Held for AICS_LIMIT_REFUSAL_DELAY_MS, as every 429 (admission.ts tarpit).
          return {
            answer: yield* Effect.zipRight(tarpit, Effect.map(
              problemResponse({ status: 429, code: "too_many_streams", detail: `this address already holds ${open} streams (at most ${settings.perAddress})` }),
              HttpServerResponse.setHeader("retry-after", "10")))
          }
        }
        const start = request.lastEventId !== undefined ? request.lastEventId + 1 : request.params.from ?? (yield* stream.head)
        openByAddress.set(address, open + 1)
        const sub: Subscriber = {
          res,
          wire: new StreamWire(res, gzip),
          filter: filterOf(request.params),
          next: start,
          sentCheckpoint: 0,
          group: undefined,
          blocked: Deferred.unsafeMake<void>(FiberId.none)
        }
        openStreams.add(sub)
        endAllOnDrain(request.server)
        // From here the address's count and the open set are the stream's fiber's to give
        // back; until it runs, however this ends (the client gone before its turn, an
        // interruption, a defect), they are given back here.
        let handedOver = false
        return yield* Effect.gen(function*(): Effect.fn.Return<Opened> {
          const ended = yield* Deferred.make<void>()
          // Behind an earlier response on the same connection (pipelining): its turn first.
          // The head is written here, in the request's fiber, where its RateLimit fields are.
          if (!(yield* attached(res))) return { answer: HttpServerResponse.empty({ status: 200 }) }
          res.writeHead(200, { ...STREAM_HEAD, ...sub.wire.headers(), ...rateLimitHeaders(yield* currentRateLimit) })
          // The head goes out with this, before any event (sseWire.ts writes after it).
          sub.wire.begin(RETRY_BYTES)
          runStream(sub, address, ended)
          handedOver = true
          return { ended }
        }).pipe(Effect.onExit(() => (handedOver ? Effect.void : Effect.sync(() => release(sub, address)))))
      })

    return { open }
  }))
}
