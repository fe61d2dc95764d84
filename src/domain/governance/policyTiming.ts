// Policy timing (docs/spec/service.md "States and transitions", "Policy"; "Owner operations"
// `POST /v2/admin/policy`; "Versioning" 4). A `policy` leaf of kind `change` or `card` names
// its document by hash and takes effect at `not_before` (Unix seconds):
//
//   announced --time reaches effective_at--> in force (until a later one of its kind is)
//
// Without `order_hash`: not_before must be at least the charter's notice period after the
// leaf is logged (`policy_too_soon`), and effective_at = not_before * 1000.
// With `order_hash`: the document must cite the order, i.e. contain its hash as U64 text
// (`order_not_cited`); then the notice period does not apply and
// effective_at = max(not_before * 1000, logged). An auditor re-checks both from the leaf
// and the document, which rides in the wire bundle.
//
// The policy of a kind in force at t is the one with the latest effective_at <= t (the later
// leaf on a tie). None is ever in force before its effective_at.

import * as Chunk from "effect/Chunk"
import { fromUtf8 } from "../bytes.js"
import type { LogState } from "../write/logState.js"
import { refuse, type Refusal } from "../write/refusal.js"

export type PolicyKind = "change" | "card"

export interface PolicyRecord {
  readonly index: number
  readonly logged: number
  readonly kind: PolicyKind
  readonly documentHash: string
  readonly size: number
  readonly notBefore: number
  readonly orderHash: string | null
  /** Unix ms from which it is in force. */
  readonly effectiveAt: number
}

export interface PolicyAnnouncement {
  readonly kind: PolicyKind
  readonly document_hash: string
  readonly size: number
  readonly not_before: number
  readonly order_hash?: string | undefined
}

/** True when the document's text contains the order hash (U64). */
export const documentCites = (document: Uint8Array | null | undefined, orderHash: string): boolean => {
  if (document === null || document === undefined) return false
  try {
    return fromUtf8(document).includes(orderHash)
  } catch {
    return false
  }
}

export const effectiveAt = (policy: PolicyAnnouncement, logged: number): number =>
  policy.order_hash === undefined ? policy.not_before * 1000 : Math.max(policy.not_before * 1000, logged)

export const policyRefusal = (
  noticePeriodSeconds: number,
  policy: PolicyAnnouncement,
  logged: number,
  document: Uint8Array | null | undefined
): Refusal | undefined => {
  if (policy.order_hash !== undefined) {
    return documentCites(document, policy.order_hash)
      ? undefined
      : refuse("order_not_cited", `the document does not cite order ${policy.order_hash}`)
  }
  const earliest = logged + noticePeriodSeconds * 1000
  return policy.not_before * 1000 < earliest
    ? refuse("policy_too_soon", `not_before must be at least ${Math.ceil(earliest / 1000)} (the notice period is ${noticePeriodSeconds} s)`)
    : undefined
}

export const policyRecord = (policy: PolicyAnnouncement, index: number, logged: number): PolicyRecord => ({
  index,
  logged,
  kind: policy.kind,
  documentHash: policy.document_hash,
  size: policy.size,
  notBefore: policy.not_before,
  orderHash: policy.order_hash ?? null,
  effectiveAt: effectiveAt(policy, logged)
})

/** The policy of the kind in force at `now` (Unix ms), or undefined. */
export const policyInForce = (state: Pick<LogState, "governance">, kind: PolicyKind, now: number): PolicyRecord | undefined => {
  let best: PolicyRecord | undefined
  for (const p of state.governance.policies) {
    if (p.kind === kind && p.effectiveAt <= now && (best === undefined || p.effectiveAt >= best.effectiveAt)) best = p
  }
  return best
}

/** Policies announced but not yet in force at `now`. */
export const policiesPending = (state: Pick<LogState, "governance">, now: number): ReadonlyArray<PolicyRecord> =>
  Chunk.toReadonlyArray(Chunk.filter(state.governance.policies, (p) => p.effectiveAt > now))

const policyItem = (p: PolicyRecord) => ({
  index: p.index,
  logged: p.logged,
  kind: p.kind,
  document_hash: p.documentHash,
  size: p.size,
  not_before: p.notBefore,
  order_hash: p.orderHash,
  effective_at: p.effectiveAt
})

/**
 * GET /v2/governance/policy (docs/protocol.md 11.4, 12.6): the policy of each kind in force at
 * `now`, those announced and not yet in force (log order), and the smallest tree size
 * covering the leaves shown (0 when none is). A policy's own `size` is its document's.
 */
export const policyView = (state: Pick<LogState, "governance">, now: number) => {
  const change = policyInForce(state, "change", now)
  const card = policyInForce(state, "card", now)
  const pending = policiesPending(state, now)
  const shown = [change, card, ...pending].filter((p): p is PolicyRecord => p !== undefined)
  return {
    change: change === undefined ? null : policyItem(change),
    card: card === undefined ? null : policyItem(card),
    pending: pending.map(policyItem),
    size: shown.reduce((size, p) => Math.max(size, p.index + 1), 0)
  }
}
