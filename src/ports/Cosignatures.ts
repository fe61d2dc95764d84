// The cosignatures this log collected from its witnesses (C2SP tlog-witness, as a client):
// for each witness, the latest cosignature line and the size it covers; and the alarms of
// the witnesses that showed another history of this log. Shared by every process serving
// the log (PostgreSQL), so each serves the checkpoint with the same lines, and each node's
// /healthz reports the same alarms whichever node (the sequencing one) found them.
//
// Contract (test/ports/Cosignatures.contract.ts): list answers every witness's latest record;
// record keeps, per witness, the record of the largest size (a record of a smaller size than
// the stored one changes nothing; an equal or larger one replaces it). alarms answers one
// alarm per witness at most: raiseAlarm adds it, or replaces the detail of the witness's
// alarm while keeping the time it was first raised and the largest witnessSize any raise
// named (a raise without one weakens nothing) and the refusedTree of the latest raise that
// named one (a raise without one keeps it); clearAlarm removes it (nothing to remove is no
// error). Cosignatures and alarms are independent: recording a cosignature clears no
// alarm (the collector clears it). A durable adapter answers the same after a reopen.

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

/**
 * A witness showed it cosigned a tree of this origin that this log does not have (it saw
 * another history: the log went back, or forked). It lasts until the witness cosigns this
 * log again, across restarts and lease handovers: the evidence is about the log, not about
 * the process that happened to submit the checkpoint.
 */
export interface AnotherHistoryAlarm {
  /** The witness's verifier key string, as in CollectedCosignature. */
  readonly witness: string
  /** What showed it: the witness's answer as the collector words it. */
  readonly detail: string
  /** When it was first raised (Unix seconds): a later raise for the witness keeps it. */
  readonly raisedAt: number
  /**
   * The size the witness said it cosigned, when the alarm is that this size is above the
   * log's: proof that the log went back (a database or data folder restored from a copy
   * older than what was published), which makes the log diverged on every node that reads
   * the alarm while the log holds fewer leaves (app/CosignatureCollector.ts). Undefined for
   * the alarms of a refused tree (below).
   */
  readonly witnessSize?: number | undefined
  /**
   * The tree of this log the witness refused at the size it cosigned (its 422: the
   * consistency proof from that size does not verify; or its 409 at that very size): `size`,
   * at most the log's, and `root`, this log's root hash at that size when refused (base64).
   * The witness holds another tree of that size signed by the log key: the log forked. Every
   * node that reads the alarm finds the log diverged while its tree at `size` is still that
   * one (or it holds fewer leaves); a log restored from the copy the witness cosigned has
   * another root there and is not.
   */
  readonly refusedTree?: RefusedTree | undefined
}

export interface RefusedTree {
  readonly size: number
  /** Base64 of the 32-byte root hash. */
  readonly root: string
}

export class Cosignatures extends Context.Tag("aics/Cosignatures")<Cosignatures, {
  readonly record: (cosignature: CollectedCosignature) => Effect.Effect<void, StorageError>
  readonly list: Effect.Effect<ReadonlyArray<CollectedCosignature>, StorageError>
  readonly raiseAlarm: (alarm: AnotherHistoryAlarm) => Effect.Effect<void, StorageError>
  readonly clearAlarm: (witness: string) => Effect.Effect<void, StorageError>
  readonly alarms: Effect.Effect<ReadonlyArray<AnotherHistoryAlarm>, StorageError>
}>() {}
