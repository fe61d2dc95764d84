// Reading GET /v2/stream (docs/protocol.md "Live stream of the log"): the service's
// Server-Sent Events parsed as they arrive (WHATWG HTML "Server-sent events": fields up to
// a blank line; `data` lines joined with newlines; comment lines ignored). It resumes
// itself: on a dropped connection or a `dropped` event it reconnects with Last-Event-ID,
// the last leaf index it saw, so the events it yields have no gap and no duplicate.

import { ClientError } from "./errors.js"
import { endpoint, retryAfterSeconds, unreachable, type Service } from "./http.js"

export interface StreamEvent {
  readonly event: string
  /** The `id` field: a leaf event's index. */
  readonly id: string | undefined
  readonly data: string
}

export interface StreamFilters {
  /** Entry types, e.g. ["post", "dm"]. */
  readonly types?: ReadonlyArray<string> | undefined
  readonly channel?: string | undefined
  /** Only leaves addressed to this did:key (DM notifications). */
  readonly to?: string | undefined
  /** First leaf index wanted (default: new leaves only). */
  readonly from?: number | undefined
}

/** The query string of /v2/stream for these filters. */
export const streamPath = (filters: StreamFilters): string => {
  const query = new URLSearchParams()
  if (filters.types !== undefined && filters.types.length > 0) query.set("type", filters.types.join(","))
  if (filters.channel !== undefined) query.set("channel", filters.channel)
  if (filters.to !== undefined) query.set("to", filters.to)
  if (filters.from !== undefined) query.set("from", String(filters.from))
  const text = query.toString()
  return text === "" ? "/v2/stream" : `/v2/stream?${text}`
}

/** The events of one SSE body, parsed as its bytes arrive. */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamEvent> {
  const decoder = new TextDecoder()
  let buffer = ""
  let event = ""
  let id: string | undefined
  let data: Array<string> = []
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true })
    let newline: number
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, "")
      buffer = buffer.slice(newline + 1)
      if (line === "") {
        if (data.length > 0) yield { event: event === "" ? "message" : event, id, data: data.join("\n") }
        event = ""
        id = undefined
        data = []
        continue
      }
      if (line.startsWith(":")) continue
      const colon = line.indexOf(":")
      const field = colon < 0 ? line : line.slice(0, colon)
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "")
      if (field === "event") event = value
      else if (field === "data") data.push(value)
      else if (field === "id") id = value
    }
  }
}

/** Opens one stream connection; a status other than 200 is an error quoting the problem. */
export const openStream = async (
  service: Service,
  filters: StreamFilters,
  options: { readonly lastEventId?: number | undefined; readonly signal?: AbortSignal | undefined } = {}
): Promise<ReadableStream<Uint8Array>> => {
  const url = endpoint(service, streamPath(filters))
  let response: Response
  try {
    response = await service.fetch(url, {
      headers: { accept: "text/event-stream", ...(options.lastEventId === undefined ? {} : { "last-event-id": String(options.lastEventId) }) },
      redirect: "error",
      ...(options.signal === undefined ? {} : { signal: options.signal })
    })
  } catch (error) {
    throw unreachable("GET", url, error)
  }
  if (response.status !== 200 || response.body === null) {
    const text = await response.text().catch(() => "")
    const said = `GET ${url.pathname}: ${response.status} ${text.slice(0, 300)}`
    // Busy or over this address's streams: worth another try, once Retry-After has passed.
    if (response.status === 429 || response.status === 503) throw new StreamBusy(said, retryAfterMs(response.headers.get("retry-after")))
    // A filter the service does not take (a channel not of a-z 0-9 -, an unknown type): the
    // caller's mistake, said in the service's words.
    const problem = (() => {
      try {
        const json = JSON.parse(text) as { code?: unknown; detail?: unknown }
        return typeof json.code === "string" ? { code: json.code, detail: typeof json.detail === "string" ? json.detail : undefined } : undefined
      } catch {
        return undefined
      }
    })()
    if (problem !== undefined && (response.status === 400 || response.status === 422)) {
      throw new ClientError("usage", `the service refuses these filters: ${response.status} ${problem.code}${problem.detail === undefined ? "" : `: ${problem.detail}`}`, { code: problem.code, status: response.status })
    }
    throw new ClientError("protocol", said)
  }
  return response.body
}

/** A 429 or 503: the service is there but cannot take the stream now. */
class StreamBusy extends ClientError {
  constructor(message: string, readonly retryAfterMs: number | undefined) {
    super("network", message)
  }
}

/** Retry-After in seconds as milliseconds, at most a minute (a follower should not sleep for hours on a word). */
const retryAfterMs = (header: string | null): number | undefined => {
  const seconds = retryAfterSeconds(header)
  return seconds === undefined ? undefined : Math.min(seconds, 60) * 1000
}

/**
 * The leaf index before which the stream has delivered every leaf its filters take, as far
 * as `event` shows: a leaf's own index, a checkpoint's size (it comes after the leaves it
 * covers), a `dropped` event's resume_from. Undefined when the event says nothing of it.
 */
const deliveredBefore = (event: StreamEvent): number | undefined => {
  if (event.event === "leaf") return event.id !== undefined && /^\d+$/.test(event.id) ? Number(event.id) + 1 : undefined
  if (event.event !== "checkpoint" && event.event !== "dropped") return undefined
  try {
    const data = JSON.parse(event.data) as Record<string, unknown>
    const position = event.event === "checkpoint" ? data["size"] : data["resume_from"]
    return typeof position === "number" && Number.isSafeInteger(position) && position >= 0 ? position : undefined
  } catch {
    return undefined
  }
}

/** How long a follower waits before it tries again (a lost connection, a busy service), unless Retry-After says longer. */
export const RETRY_MS = 2_000

/**
 * The stream's events for as long as `signal` allows, across reconnections: after a lost
 * connection or a `dropped` event it waits `retryMs` and resumes where the stream had got
 * to: after the last leaf seen, or the last checkpoint's size or the `dropped` event's
 * resume_from if those are further (a filtered stream may have seen no leaf at all, and a
 * resumption from the log's new size would skip what came meanwhile). `dropped` events are
 * yielded too, so a caller can say it fell behind.
 */
export async function* followStream(
  service: Service,
  filters: StreamFilters,
  options: {
    readonly signal?: AbortSignal
    readonly retryMs?: number
    readonly onReconnect?: (lastEventId: number | undefined) => void
    /** A connection failed or was refused for now: why, and how long until the next try. */
    readonly onRetry?: (reason: string, inMs: number) => void
  } = {}
): AsyncGenerator<StreamEvent> {
  let lastEventId: number | undefined = filters.from === undefined ? undefined : filters.from - 1
  let first = true
  // Said once per outage, not at every try.
  let told = false
  const aborted = (): boolean => options.signal?.aborted === true
  while (!aborted()) {
    let waitMs = options.retryMs ?? RETRY_MS
    try {
      // Last-Event-ID names a leaf; before leaf 0 there is none, so that start is `from=0`.
      const body = await openStream(service, lastEventId === undefined ? filters : { ...filters, from: lastEventId < 0 ? 0 : undefined }, {
        lastEventId: lastEventId === undefined || lastEventId < 0 ? undefined : lastEventId,
        signal: options.signal
      })
      if (!first) options.onReconnect?.(lastEventId)
      first = false
      told = false
      for await (const event of sseEvents(body)) {
        const position = deliveredBefore(event)
        if (position !== undefined && (lastEventId === undefined || position - 1 > lastEventId)) lastEventId = position - 1
        yield event
      }
    } catch (error) {
      if (aborted()) return
      if (error instanceof ClientError && (error.kind === "protocol" || error.kind === "usage")) throw error
      // Never reached at all: a wrong address, said at once rather than retried in silence.
      if (first && !(error instanceof StreamBusy)) throw error
      if (error instanceof StreamBusy && error.retryAfterMs !== undefined) waitMs = Math.max(waitMs, error.retryAfterMs)
      if (!told) options.onRetry?.(error instanceof Error ? error.message : String(error), waitMs)
      told = true
    }
    await new Promise((resolve) => setTimeout(resolve, waitMs))
  }
}
