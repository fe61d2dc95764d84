// Following the log live (GET /v2/stream) and checking what the stream says: every
// checkpoint event is a note the log key must have signed, for this log, and it must extend
// the last checkpoint seen, which the tiles of the new one show (consistencyFromTiles,
// tiles.ts: RFC 9162 section 2.1.4). A checkpoint whose tiles give another root at the last
// size is a log that signed two histories: the watch ends with a verification error; tiles
// that do not hash to the new checkpoint prove nothing either way: it ends with a protocol
// error. Leaf events are reported as they come, unchecked: the service's notification,
// which `aics get` (the leaf under a signed checkpoint) or `aics verify` checks later.
//
// The tiles (and /checkpoint) that check a checkpoint are fetched while the stream waits: a
// network failure of those fetches (the node behind a load balancer died mid-check) is an
// outage like the stream's own. It is said once (`retrying`, with the stream's own outage
// it runs into: one outage, one line) and the same checkpoint is checked again after the
// stream's wait, so no event is lost or told twice; what the tiles do show (a rewrite,
// tiles that do not hash to the checkpoint) still ends the watch.
//
// The events are the library's (camelCase members); what `aics watch --json` prints is
// watchEventJson's projection of each, in snake_case as the service's own stream events and
// every other answer of the CLI and the tools (verificationJson, verify.ts).

import { utf8 } from "../domain/bytes.js"
import { encodeB64 } from "../domain/encoding.js"
import type { Checkpoint } from "../domain/note/checkpoint.js"
import { verifyCheckpointNote } from "./checkpoint.js"
import { ClientError, protocolError, verificationError } from "./errors.js"
import { followStream, RETRY_MS, type StreamFilters } from "./logStream.js"
import { consistencyFromTiles, tileReader } from "./tiles.js"
import { rootHashJson } from "./verify.js"
import type { LogClient } from "./write.js"

export type WatchEvent =
  | {
    readonly kind: "leaf"
    readonly index: number
    readonly type: string
    readonly kid: string
    readonly logged: number | null
    readonly payload: Record<string, unknown>
  }
  | {
    readonly kind: "checkpoint"
    readonly size: number
    /** In B64, as the checkpoint note has it. */
    readonly rootHash: string
    /** The size of the earlier checkpoint it was proved consistent with; null for the first. */
    readonly consistentWith: number | null
  }
  | { readonly kind: "dropped"; readonly reason: string; readonly resumeFrom: number }
  | { readonly kind: "reconnected"; readonly lastEventId: number | undefined }
  /** The connection was lost or refused for now (once per outage): why, and when the next try is. */
  | { readonly kind: "retrying"; readonly reason: string; readonly inMs: number }

/** Checks a checkpoint of the stream against the last one; answers the new one. */
export const checkStreamCheckpoint = async (
  client: LogClient,
  note: string,
  last: Checkpoint | undefined
): Promise<Checkpoint> => {
  const checkpoint = verifyCheckpointNote(utf8(note), client.vkey, "a checkpoint of the stream")
  if (last === undefined) return checkpoint
  if (checkpoint.size < last.size) throw verificationError(`the stream's checkpoint of size ${checkpoint.size} is older than the one of size ${last.size} seen before`)
  const shown = await consistencyFromTiles(tileReader(client.service), last, checkpoint)
  switch (shown._tag) {
    case "Extends":
      return checkpoint
    case "Forks":
      throw verificationError(`the checkpoint of size ${checkpoint.size} does not extend the one of size ${last.size}: the log was rewritten ` +
        `(the tiles it signs give the root ${encodeB64(shown.rootAtOlderSize)} at size ${last.size})`)
    case "TilesDoNotMatch":
      throw protocolError(`the tiles do not hash to the stream's checkpoint of size ${checkpoint.size}: they show nothing of its consistency with the one of size ${last.size}`)
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/** Resolves after `ms`, or at once when `signal` aborts. */
const pause = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted === true) return resolve()
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener("abort", done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener("abort", done, { once: true })
  })

/**
 * Follows the stream until `signal` aborts or `onEvent` answers false; throws a
 * verification error when a checkpoint does not verify or does not extend the last one.
 */
export const watchLog = async (
  client: LogClient,
  filters: StreamFilters,
  onEvent: (event: WatchEvent) => boolean | void,
  options: { readonly signal?: AbortSignal; readonly retryMs?: number } = {}
): Promise<void> => {
  const { signal } = options
  const aborted = (): boolean => signal?.aborted === true
  const retryMs = options.retryMs ?? RETRY_MS
  let last: Checkpoint | undefined
  // An outage is said once, whichever fetch ran into it first (a check's, the stream's), and
  // is over once the stream is back: reconnected, or an event of its connection.
  let outage = false
  const retrying = (reason: string, inMs: number) => {
    if (!outage) onEvent({ kind: "retrying", reason, inMs })
    outage = true
  }
  const stream = followStream(client.service, filters, {
    ...(signal === undefined ? {} : { signal }),
    retryMs,
    onReconnect: (lastEventId) => {
      outage = false
      onEvent({ kind: "reconnected", lastEventId })
    },
    onRetry: retrying
  })
  /** The checkpoint checked, the check tried again while its fetches fail on the network; undefined once aborted. */
  const checked = async (note: string): Promise<Checkpoint | undefined> => {
    for (;;) {
      try {
        return await checkStreamCheckpoint(client, note, last)
      } catch (error) {
        if (aborted()) return undefined
        if (!(error instanceof ClientError && error.kind === "network")) throw error
        retrying(error.message, retryMs)
        await pause(retryMs, signal)
        if (aborted()) return undefined
      }
    }
  }
  for await (const event of stream) {
    outage = false
    let data: unknown
    try {
      data = JSON.parse(event.data)
    } catch {
      continue
    }
    if (!isRecord(data)) continue
    let seen: WatchEvent | undefined
    if (event.event === "leaf") {
      seen = {
        kind: "leaf",
        index: Number(data["index"]),
        type: String(data["type"]),
        kid: String(data["kid"]),
        logged: typeof data["logged"] === "number" ? data["logged"] : null,
        payload: isRecord(data["payload"]) ? data["payload"] : {}
      }
    } else if (event.event === "checkpoint" && typeof data["note"] === "string") {
      const before = last
      const verified = await checked(data["note"])
      if (verified === undefined) break
      last = verified
      seen = { kind: "checkpoint", size: last.size, rootHash: encodeB64(last.rootHash), consistentWith: before?.size ?? null }
    } else if (event.event === "dropped") {
      seen = { kind: "dropped", reason: String(data["reason"]), resumeFrom: Number(data["resume_from"]) }
    }
    if (seen !== undefined && onEvent(seen) === false) {
      await stream.return(undefined)
      return
    }
  }
}

/**
 * One event as `aics watch --json` prints it (a JSON object per line): the members in
 * snake_case, as the service's stream events (`resume_from`, `last_event_id`) and every
 * other --json answer; a checkpoint's root as the stream's own event and verify's report give
 * it (rootHashJson, verify.ts). A member without a value is null, never left out.
 */
export const watchEventJson = (event: WatchEvent) => {
  switch (event.kind) {
    case "leaf":
      return { kind: event.kind, index: event.index, type: event.type, kid: event.kid, logged: event.logged, payload: event.payload }
    case "checkpoint":
      return {
        kind: event.kind,
        size: event.size,
        ...rootHashJson(event.rootHash),
        consistent_with: event.consistentWith
      }
    case "dropped":
      return { kind: event.kind, reason: event.reason, resume_from: event.resumeFrom }
    case "reconnected":
      return { kind: event.kind, last_event_id: event.lastEventId ?? null }
    case "retrying":
      return { kind: event.kind, reason: event.reason, in_ms: event.inMs }
  }
}
