// The fencing token of the sequencing lease (docs/operations.md, "Retention"; docs/protocol.md
// section 14). Coordination hands one out with each lease it grants, higher than every
// token granted before on the deployment; the store of bodies takes it with each removal and
// deletes only while no later lease exists. It lives apart from both ports so that each can
// name it without importing the other.
//
// Why a token at all: the lease is held on one connection and the bytes are deleted on
// others, so a holder that lost its lease without noticing yet could otherwise delete bytes
// that its successor has just come to need (a leaf naming the same digest).

/** The epoch of one lease: every later lease of the deployment carries a higher one. */
export interface LeaseFence {
  readonly epoch: number
}
