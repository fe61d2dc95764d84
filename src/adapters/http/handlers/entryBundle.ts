// The AICS-1 section 14.3 wire bundle of one entry and its body status: what GET
// /v2/entries/{index} answers (JSON, with X-AICS-Body-Status) and the entry page shows
// (/entries/{index}, domain/pages/entryPage.ts). One builder, so both say the same.

import { Effect } from "effect"
import { Bodies, type BodyPresence } from "../../../app/Bodies.js"
import { LogReader } from "../../../app/LogReader.js"
import { LogStatus } from "../../../app/LogStatus.js"
import { Publisher } from "../../../app/Publisher.js"
import { ServiceConfig } from "../../../app/ServiceConfig.js"
import { bodyReference } from "../../../domain/bodyReference.js"
import { bodyStatusHeader } from "../../../domain/bodyStatus.js"
import { fromUtf8 } from "../../../domain/bytes.js"
import { encodeB64, encodeU64 } from "../../../domain/encoding.js"
import { coveringCheckpoint } from "./tlog.js"

/** X-AICS-Body-Status of a lookup. */
const statusHeader = (body: BodyPresence): string =>
  body.state === "gone" ? bodyStatusHeader(body.status) : body.state

export interface EntryBundle {
  readonly bundle: {
    readonly entry_bytes: string
    readonly index: number
    readonly inclusion_proof: ReadonlyArray<string>
    readonly checkpoint_note: string
    readonly envelope: Record<string, unknown>
    readonly body_or_ct: string | null
  }
  /** Unix ms the log took the leaf. */
  readonly logged: number
  /** The checkpoint the proof is against, as text. */
  readonly checkpoint: string
  /** X-AICS-Body-Status, undefined when the entry names no body. */
  readonly bodyStatus: string | undefined
  /** U64 of the body's SHA-256, when the entry names one. */
  readonly bodyHash: string | undefined
}

export const entryBundles = Effect.gen(function*() {
  const config = yield* ServiceConfig
  const reader = yield* LogReader
  const publisher = yield* Publisher
  const status = yield* LogStatus
  const bodies = yield* Bodies
  return (index: number) =>
    Effect.gen(function*() {
      const committed = (yield* status.current).size
      const checkpoint = yield* coveringCheckpoint(publisher, index, committed, config.mmdSeconds)
      const { entry, proof, body: read } = yield* reader.entryWithProof(index, checkpoint.size)
      const leaf = JSON.parse(fromUtf8(entry)) as { envelope: Record<string, unknown>; logged: number }
      const payload = (leaf.envelope["payload"] ?? {}) as Record<string, unknown>
      const reference = bodyReference(payload)
      const named = { index, type: String(leaf.envelope["type"]), logged: leaf.logged }
      // Only a riding body's bytes go in the bundle; for a document named by hash alone
      // (up to 1 MiB) the header needs only whether it is stored.
      const riding = reference?.rides === true ? yield* bodies.ofEntry(named, reference.digest, read) : undefined
      const body = reference === undefined ? undefined : riding ?? (yield* bodies.presenceOfEntry(named, reference.digest, read))
      return {
        bundle: {
          entry_bytes: encodeU64(entry),
          index,
          inclusion_proof: proof.map(encodeB64),
          checkpoint_note: encodeU64(checkpoint.note),
          envelope: leaf.envelope,
          body_or_ct: riding?.state === "available" ? encodeU64(riding.bytes) : null
        },
        logged: leaf.logged,
        checkpoint: fromUtf8(checkpoint.note),
        bodyStatus: body === undefined ? undefined : statusHeader(body),
        bodyHash: reference === undefined ? undefined : encodeU64(reference.digest)
      } satisfies EntryBundle
    })
})
