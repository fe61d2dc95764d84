// `vote` (agent-signed; docs/spec/profile.md section 5): one vote per key per poll, for the option at
// index `option` (0-based), while the poll is open. Rules: forum/polls.ts.

import * as Schema from "effect/Schema"
import { applyVote, voteRefusal } from "../../forum/polls.js"
import { entryRule } from "../entryRule.js"
import { LeafIndex } from "../fields.js"

export const VotePayload = Schema.Struct({
  poll_index: LeafIndex,
  option: Schema.NonNegativeInt
})

export const vote = entryRule({
  type: "vote",
  signer: "agent",
  payload: VotePayload,
  body: { kind: "none" },
  check: (state, { envelope, payload, logged }) => voteRefusal(state, envelope.kid, payload.poll_index, payload.option, logged),
  apply: (state, { envelope, payload, index }) => ({
    ...state,
    forum: applyVote(state.forum, envelope.kid, payload.poll_index, payload.option, index)
  })
})
