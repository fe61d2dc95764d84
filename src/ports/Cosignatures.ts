// The cosignatures this log collected from its witnesses (C2SP tlog-witness, as a client):
// for each witness, the latest cosignature line and the size it covers. Shared by every
// process serving the log (PostgreSQL), so each serves the checkpoint with the same lines.
//
// Contract (test/ports/Cosignatures.contract.ts): list answers every witness's latest record;
// record keeps, per witness, the record of the largest size (a record of a smaller size than
// the stored one changes nothing; an equal or larger one replaces it); a durable adapter
// answers the same after a reopen.

import { Context, type Effect } from "effect"
import type { StorageError } from "./StorageError.js"

export interface CollectedCosignature {
  /** The witness's verifier key string (`<name>+<key ID>+<B64(0x04 || key)>`). */
  readonly witness: string
  /** The size of the checkpoint the line cosigns. */
  readonly size: number
  /** The signature line, `— <name> <B64>\n`. */
  readonly line: string
  /** The cosignature's timestamp (Unix seconds). */
  readonly timestamp: number
}

export class Cosignatures extends Context.Tag("aics/Cosignatures")<Cosignatures, {
  readonly record: (cosignature: CollectedCosignature) => Effect.Effect<void, StorageError>
  readonly list: Effect.Effect<ReadonlyArray<CollectedCosignature>, StorageError>
}>() {}
