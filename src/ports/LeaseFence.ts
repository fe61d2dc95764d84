// The fencing token of the sequencing lease (docs/operations.md, "Retention" and "The log's
// appends"; docs/protocol.md section 14). Coordination hands one out with each lease it
// grants, higher than every token granted before on the deployment; the stores take it with
// each write the lease holder alone may make (an append to the log, a removal of bodies) and
// make it only while no later lease exists. It lives apart from the ports so that each can
// name it without importing the others.
//
// Why a token at all: the lease is held on one connection and the writes run on others, so
// a holder that lost its lease without noticing yet could otherwise append after its
// successor took over, or delete bytes that its successor has just come to need.

import { Data } from "effect"

/** The epoch of one lease: every later lease of the deployment carries a higher one. */
export interface LeaseFence {
  readonly epoch: number
}

/**
 * A fenced write found a later lease and wrote nothing: its caller no longer holds the
 * lease and must stop writing. Not a StorageError: the medium is sound and nothing of the
 * write is visible, so the caller hands its work on instead of failing it.
 */
export class LeaseSuperseded extends Data.TaggedError("LeaseSuperseded")<{
  readonly operation: string
  readonly fence: LeaseFence
}> {
  override get message(): string {
    return `${this.operation}: a sequencing lease later than epoch ${this.fence.epoch} exists; nothing was written`
  }
}
