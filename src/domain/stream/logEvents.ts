// The live stream of the log (docs/protocol.md section "Live stream of the log"): what
// GET /v2/stream sends, as Server-Sent Events (WHATWG HTML "Server-sent events").
//
//   event: leaf         id: <leaf index>   one per leaf, in log order, with the leaf's
//                                          public metadata: index, type, kid, seq, logged
//                                          and the payload (which is on the leaf already).
//                                          Never a body: bodies are off the leaf.
//   event: checkpoint   (no id)            each new signed checkpoint, once the leaves it
//                                          covers were sent: size, root hash, the note.
//   event: dropped      (no id)            the last event of a consumer too slow to keep
//                                          up: reconnect with Last-Event-ID to resume.
//
// The id of a leaf event is its index, so a client that reconnects with Last-Event-ID
// (browsers do it by themselves) resumes at the next leaf, with no gap and no duplicate.
// Checkpoint and dropped events carry no id: the last id stays the last leaf's.

import { fromUtf8, utf8 } from "../bytes.js"

/**
 * A leaf as the stream knows it: what filters read, and its event, serialized and encoded
 * once: the same bytes go to every subscriber whose filter takes it.
 */
export interface LeafEvent {
  readonly index: number
  readonly type: string
  readonly kid: string
  /** `payload.channel` of a post or poll. */
  readonly channel: string | undefined
  /** `payload.to` of a dm: the recipient key. */
  readonly to: string | undefined
  /** The whole SSE event, UTF-8, ready to write. */
  readonly bytes: Uint8Array
}

/** What a subscriber asked for; every filter given must match (an absent one matches all). */
export interface StreamFilter {
  /** Entry types (`post`, `dm`, ...). */
  readonly types: ReadonlySet<string> | undefined
  readonly channel: string | undefined
  /** Only leaves addressed to this key: DM notifications. */
  readonly to: string | undefined
}

export const matches = (filter: StreamFilter, event: LeafEvent): boolean =>
  (filter.types === undefined || filter.types.has(event.type)) &&
  (filter.channel === undefined || event.channel === filter.channel) &&
  (filter.to === undefined || event.to === filter.to)

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined)

/** One SSE event; `data` is JSON on one line (JSON.stringify never emits a raw newline). */
export const sseEvent = (event: string, data: unknown, id?: number): string =>
  `event: ${event}\n${id === undefined ? "" : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`

/**
 * The event of the leaf at `index`, from its entry bytes (docs/spec/profile.md section 4:
 * JCS of {envelope, index, logged}). The service wrote these bytes itself, so they parse;
 * should one not, the event still names its index, and says so.
 */
export const leafEventOf = (index: number, entryBytes: Uint8Array): LeafEvent => {
  let entry: unknown
  try {
    entry = JSON.parse(fromUtf8(entryBytes))
  } catch {
    entry = undefined
  }
  const envelope = isRecord(entry) && isRecord(entry["envelope"]) ? entry["envelope"] : {}
  const payload = isRecord(envelope["payload"]) ? envelope["payload"] : {}
  const type = str(envelope["type"]) ?? "unreadable"
  const kid = str(envelope["kid"]) ?? ""
  const data = {
    index,
    type,
    kid,
    seq: envelope["seq"] ?? null,
    logged: isRecord(entry) ? entry["logged"] ?? null : null,
    payload
  }
  return { index, type, kid, channel: str(payload["channel"]), to: str(payload["to"]), bytes: utf8(sseEvent("leaf", data, index)) }
}

/** The checkpoint event: the note as published, with what a client reads from it first. */
export const checkpointEvent = (checkpoint: { readonly size: number; readonly rootHash: string; readonly note: string }): string =>
  sseEvent("checkpoint", { size: checkpoint.size, root_hash: checkpoint.rootHash, note: checkpoint.note })

/** The last event a dropped consumer gets: why, and where to resume. */
export const droppedEvent = (reason: string, resumeFrom: number): string =>
  sseEvent("dropped", { reason, resume_from: resumeFrom, last_event_id: resumeFrom - 1 })

/** A comment line: keeps idle connections (and the proxies on their way) open. */
export const KEEP_ALIVE = ": keep-alive\n\n"
