// The sequencer's decision (docs/spec/profile.md sections 3 to 5): given the state of the log and a
// submission that passed the stateless checks (submission.ts), accept it as the next leaf
// or refuse it. Pure: the time comes in as `logged`. Accepting returns the leaf bytes and
// the state after it; refusing leaves no trace (the key's chain does not advance).
//
// Before the chain and the type's own rules, the checks every entry of a kind of signer
// passes (docs/protocol.md section 11.1): an owner-signed type must be signed by the owner
// key leaf 0 names (`not_owner`), a policy-signed one by the policy key (`not_policy`); an
// agent-signed one is refused while agent writes are frozen (`writes_frozen`,
// governance/freeze.ts) and when its key or name is suspended (`suspended`,
// governance/suspension.ts). A policy-signed leaf written for a secret-bound name (payload
// `as`, docs/protocol.md 17.5) is that name's own write, so it passes the agent checks
// too, for the name it speaks for.

import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import { encodeU64 } from "../encoding.js"
import { entryBytesFromJcs } from "../envelope/leaf.js"
import { signerOf } from "../entries/entryRule.js"
import { frozenRefusal } from "../governance/freeze.js"
import { suspendedRefusal } from "../governance/suspension.js"
import { applyEntry } from "./applyEntry.js"
import type { LogState } from "./logState.js"
import { refuse, type Refusal } from "./refusal.js"
import type { Submission } from "./submission.js"

export interface Decision {
  readonly state: LogState
  readonly index: number
  readonly logged: number
  readonly entryBytes: Uint8Array
}

export const decide = (state: LogState, submission: Submission, now: number): Either.Either<Decision, Refusal> => {
  const { envelope } = submission
  const index = state.size
  // `logged` never goes backwards, even if the clock does.
  const logged = Math.max(now, state.lastLogged)

  const generic = signerRefusal(state, submission, logged)
  if (generic !== undefined) return Either.left(generic)

  const head = HashMap.get(state.chains, envelope.kid)
  const expectedSeq = head._tag === "Some" ? head.value.seq + 1 : 0
  if (envelope.seq !== expectedSeq) {
    return Either.left(refuse("seq_mismatch", `seq is ${envelope.seq}, expected ${expectedSeq}`))
  }
  const expectedPrev = head._tag === "Some" ? encodeU64(head.value.hash) : null
  if (envelope.prev !== expectedPrev) {
    return Either.left(refuse("prev_mismatch", `prev must be ${expectedPrev === null ? "null" : expectedPrev}`))
  }

  const facts = { envelope, payload: submission.payload, index, logged }
  const refusal = submission.rule.check(state, { ...facts, verify: submission.verify, body: submission.body?.bytes ?? null })
  if (refusal !== undefined) return Either.left(refusal)

  const entryBytes = entryBytesFromJcs(submission.envelopeJcs, index, logged)
  if (Either.isLeft(entryBytes)) return Either.left(refuse("entry_too_large", `the leaf would be ${entryBytes.left.size} bytes`))

  return Either.right({
    state: applyEntry(state, { ...facts, rule: submission.rule, envelopeHash: submission.envelopeHash }),
    index,
    logged,
    entryBytes: entryBytes.right
  })
}

/** The checks that depend on who signs: the owner's and policy key's identity, freeze, suspension. */
const signerRefusal = (state: LogState, submission: Submission, logged: number): Refusal | undefined => {
  const { envelope, rule, payload } = submission
  switch (signerOf(rule, payload)) {
    case "owner":
      return state.service === undefined || envelope.kid !== state.service.ownerKid
        ? refuse("not_owner", `a ${rule.type} is signed by the owner key leaf 0 names`)
        : undefined
    case "policy":
      // The charter (leaf 0) names the policy key itself; its rule checks that.
      if (state.service === undefined) return undefined
      if (envelope.kid !== state.service.policyKid) return refuse("not_policy", `a ${rule.type} is signed by the policy key leaf 0 names`)
      return secretNameRefusal(state, envelope.kid, payload, logged)
    case "agent":
      return frozenRefusal(state) ?? suspendedRefusal(state, envelope.kid, payload, logged)
  }
}

/** Freeze and suspension for a policy-signed leaf that speaks for a secret-bound name (`as`). */
const secretNameRefusal = (state: LogState, kid: string, payload: unknown, logged: number): Refusal | undefined => {
  const as = (payload as { as?: unknown } | null)?.as
  if (typeof as !== "string") return undefined
  return frozenRefusal(state) ?? suspendedRefusal(state, kid, { name: as }, logged)
}
