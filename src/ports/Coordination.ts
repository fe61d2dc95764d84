// How the API processes of one deployment share the writing of the log (issue "PostgreSQL
// storage and several nodes"; docs/protocol.md section 14). Exactly one process sequences
// at a time: the one holding the lease. Every other process hands its submissions to it
// through this port and waits for the outcome, so its own client is answered only after
// the commit, with the receipt the sequencer's outcome produces.
//
// The lifecycle of a relayed submission: `relay` stores it as waiting and wakes the
// sequencer; the sequencer `claim`s waiting submissions (noting the log size at the claim),
// decides and commits them, then `answer`s them; `relay` returns the answer. A sequencer
// that dies between its commit and its answers leaves claimed submissions without an
// answer: the next lease holder lists them (`orphans`), answers those the log holds from
// the log and `release`s the others to be decided again. A submission waits as long as it
// is claimed; one no sequencer claims within `unclaimedTimeout` is withdrawn and fails.
//
// Each lease carries a fencing token (LeaseFence.ts), higher than that of every lease before
// it, taken before the holder's first batch: what the holder appends to the log and deletes
// from the body store is fenced by it (LogStore.append, BodyStore.remove), so a holder
// deposed without noticing appends and deletes nothing once its successor holds the lease
// (docs/operations.md, "Retention" and "The log's appends").
//
// The relay's steps are fenced by it too, so a deposed holder can neither decide a
// submission its successor owns nor hand it back nor answer it (docs/operations.md, "The
// relay under a new holder"). A claimed submission records the fence it was claimed under.
//   - `claim` and `orphans` take ownership: they write only while the caller's fence is the
//     latest, and stamp what they take with it; `orphans` re-stamps every claimed,
//     unanswered submission, so from then on the earlier holders' fences match none of them.
//     Under a superseded fence both take nothing.
//   - `release` and `answer` touch only submissions claimed under the caller's fence. So a
//     deposed holder handing back its batch (it was superseded, or its lease was lost)
//     cannot put back to waiting a submission its successor took over and has not answered
//     yet: that one would be claimed twice and decided twice, the second decision refusing
//     an envelope already in the log. Nor can a deposed holder's late answer replace the
//     successor's: a batch the deposed holder failed (log_unavailable) may still have
//     reached the log, and the successor, which answers it from the log, is right.
//   - Why ownership is taken only under the latest fence: were a holder deposed before its
//     `orphans` ran, its late re-stamp would take back what the successor owns, and the
//     successor could then neither answer nor release it. The successor's own `orphans`
//     runs after its fence is the latest, so it sees every submission an earlier holder
//     claimed, and the earlier holders claim nothing after that.
// A submission released is waiting again and belongs to no fence.
//
// A process waiting for the lease is told what its tries find (`lease`): that another
// process holds the lease, which is a sequencer in sight and the storage answering; or, by a
// StorageError that ends the wait, that a try could not be made (the storage unreachable, or
// not answering in time). A wait is never taken for either: a try the storage leaves
// unanswered for a while is not another holder (docs/operations.md, "A database that stops
// answering"), and the process says storage_unavailable, not that another one sequences.
//
// Contract (test/ports/Coordination.contract.ts): one lease holder at a time (checked on
// adapters with several sessions), each new lease with a higher fence than the one before,
// a lease freed when its holder's scope closes, a wait told when a try finds the lease held
// (and not told when it is free, nor when the try fails; a later try that fails ends a wait
// already told, with several sessions), relayed
// submissions claimed once each in the order relayed, answers returned to the relaying
// caller, orphans listed until answered or released, and nothing claimed, listed, released
// or answered under a superseded fence (with several sessions also while the superseded
// holder lives on).

import type { Effect, Scope, Stream } from "effect"
import { Context } from "effect"
import type { RefusalCode } from "../domain/write/refusal.js"
import type { LeaseFence } from "./LeaseFence.js"
import type { StorageError } from "./StorageError.js"

/** What crosses to the sequencer: the checked envelope (JCS text) and its body. */
export interface RelayedSubmission {
  readonly envelopeJcs: string
  readonly body: Uint8Array | null
}

export type RelayedOutcome =
  | { readonly _tag: "Accepted"; readonly index: number; readonly logged: number; readonly leafHash: Uint8Array }
  | { readonly _tag: "Refused"; readonly code: RefusalCode; readonly detail: string; readonly at: number }

export interface ClaimedSubmission {
  readonly id: string
  readonly submission: RelayedSubmission
  /** The log size when it was claimed: its leaf, if any, is at this index or later. */
  readonly claimedAt: number
}

export interface Lease {
  /** Completes when the lease is lost while its scope is still open (the holder must stop). */
  readonly lost: Effect.Effect<void>
  /** This lease's fencing token: higher than that of every lease granted before it. */
  readonly fence: LeaseFence
}

export class Coordination extends Context.Tag("aics/Coordination")<Coordination, {
  /**
   * Waits until this process holds the sequencing lease; it is released when the scope
   * closes. Runs `heldElsewhere` (default: nothing) when a try finds the lease held by
   * another holder (once a wait: the first such try). A try that cannot be made fails the
   * wait with a StorageError instead, however long it took, and never runs `heldElsewhere`.
   */
  readonly lease: (heldElsewhere?: Effect.Effect<void>) => Effect.Effect<Lease, StorageError, Scope.Scope>
  /** Hands a submission to the lease holder and waits for its answer. */
  readonly relay: (submission: RelayedSubmission) => Effect.Effect<RelayedOutcome, StorageError>
  /** Completes when relayed submissions may be waiting (a notification or a poll interval). */
  readonly submitted: Effect.Effect<void>
  /**
   * Takes up to `max` waiting submissions, oldest first, claimed at log size `logSize` under
   * `fence`; takes none if a later lease exists.
   */
  readonly claim: (max: number, logSize: number, fence: LeaseFence) => Effect.Effect<ReadonlyArray<ClaimedSubmission>, StorageError>
  /** Answers claimed submissions (after their batch is durable): those claimed under `fence` only. */
  readonly answer: (
    answers: ReadonlyArray<{ readonly id: string; readonly outcome: RelayedOutcome }>,
    fence: LeaseFence
  ) => Effect.Effect<void, StorageError>
  /**
   * Claimed submissions without an answer, made the claims of `fence` (whoever claimed them);
   * none if a later lease exists.
   */
  readonly orphans: (fence: LeaseFence) => Effect.Effect<ReadonlyArray<ClaimedSubmission>, StorageError>
  /** Puts claimed submissions back to waiting: those claimed under `fence` only. */
  readonly release: (ids: ReadonlyArray<string>, fence: LeaseFence) => Effect.Effect<void, StorageError>
  /** Tells the other processes that the log grew (the lease holder, after each commit). */
  readonly announce: (size: number) => Effect.Effect<void, StorageError>
  /** Emits when another process may have appended: each emission is a cue to read the log. */
  readonly appended: Stream.Stream<void>
}>() {}
