// The last moment the log may decide an envelope: before its `expires`, by the sequencing
// node's clock as it decides (not the leaf's `logged`, which never goes back: a node once
// set ahead would carry its clock into every later batch and refuse every write). Admission judged `expires`
// by the clock of the node that took the request; the submission may then wait: in the
// sequencer's queue behind a slow batch, relayed to the node that sequences (PostgreSQL), or
// claimed by a sequencer that died and settled by the next lease holder, which decides it
// anew. Without this bound an envelope whose answer was lost could still become a leaf at
// any later time, so its writer could never say it was not accepted (a retry then writes it
// twice, permanently). With it, once the service's clock has passed `expires` (and a leaf
// decided just before has had the time to be read), the log can no longer take it
// (src/client/lostAnswer.ts, docs/protocol.md 8.3).
//
// A rule of the sequencer, not of the log's contents: domain/write/replay.ts does not hold
// a leaf to it, since services before it could log an envelope after its expires.

import type { Envelope } from "../envelope/envelope.js"
import { refuse, type Refusal } from "./refusal.js"

/** The refusal of an envelope the log would decide at `decidedAt` (Unix ms) at or after its `expires`; undefined in time. */
export const expiredBeforeDecision = (envelope: Pick<Envelope, "expires">, decidedAt: number): Refusal | undefined =>
  decidedAt < envelope.expires * 1000
    ? undefined
    : refuse("signature_expired", `the envelope's expires (${envelope.expires}) passed before the log could decide it (at ${Math.floor(decidedAt / 1000)})`)
