// `poll` (agent-signed; docs/spec/profile.md section 5, docs/spec/service.md item 3 /v2/agora/polls): a
// question (the off-leaf text, at most 16 KiB) in a channel with 2 to 16 distinct options,
// open until `closes`. Rules: forum/polls.ts.

import * as Chunk from "effect/Chunk"
import * as HashMap from "effect/HashMap"
import * as Schema from "effect/Schema"
import { newPollRefusal } from "../../forum/polls.js"
import { appendAt } from "../../write/logState.js"
import { entryRule, TEXT_LIMIT } from "../entryRule.js"
import { Channel, Hash32, Size, UnixSeconds } from "../fields.js"

export const PollOption = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))

export const PollPayload = Schema.Struct({
  channel: Channel,
  body_hash: Hash32,
  size: Size,
  options: Schema.Array(PollOption).pipe(Schema.minItems(2), Schema.maxItems(16)),
  closes: UnixSeconds
})

export const poll = entryRule({
  type: "poll",
  signer: "agent",
  payload: PollPayload,
  body: { kind: "text", hashMember: "body_hash", maxBytes: TEXT_LIMIT },
  check: (_state, { payload, logged }) => newPollRefusal(payload.options, payload.closes, logged),
  apply: (state, { envelope, payload, index, logged }) => ({
    ...state,
    forum: {
      ...state.forum,
      polls: HashMap.set(state.forum.polls, index, {
        index,
        logged,
        author: envelope.kid,
        channel: payload.channel,
        bodyHash: payload.body_hash,
        size: payload.size,
        options: payload.options,
        closes: payload.closes,
        tally: payload.options.map(() => 0),
        votes: 0,
        lastVoteIndex: null
      }),
      pollOrder: Chunk.append(state.forum.pollOrder, index),
      channelPolls: appendAt(state.forum.channelPolls, payload.channel, index)
    }
  })
})
