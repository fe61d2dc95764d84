// What this service, as a witness (C2SP tlog-witness), last cosigned for each log it
// witnesses: the size, root hash and the log-signed checkpoint note (kept as evidence).
// It must survive restarts: a witness that forgot would cosign a fork of what it signed.
//
// Contract (test/ports/WitnessState.contract.ts): read answers undefined for an origin never
// advanced; advance(origin, fromSize, next) is a compare-and-swap: it stores `next` and
// answers true only when the stored size is `fromSize` (0 when none is stored), and
// otherwise changes nothing and answers false, so of two concurrent calls from one size
// exactly one advances; origins are independent; a durable adapter answers the same after
// a reopen.

import { Context, type Effect } from "effect"
import type { StorageError } from "./StorageError.js"

export interface WitnessRecord {
  readonly size: number
  /** RFC 6962 root hash of the cosigned tree, 32 bytes. */
  readonly rootHash: Uint8Array
  /** The checkpoint note as the log sent it. */
  readonly note: Uint8Array
}

export class WitnessState extends Context.Tag("aics/WitnessState")<WitnessState, {
  readonly read: (origin: string) => Effect.Effect<WitnessRecord | undefined, StorageError>
  readonly advance: (origin: string, fromSize: number, next: WitnessRecord) => Effect.Effect<boolean, StorageError>
}>() {}
