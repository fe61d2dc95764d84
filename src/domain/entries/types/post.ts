// `post` (docs/spec/profile.md section 5, docs/spec/service.md "Forum"): a public post in a channel. Its text is
// the off-leaf body named by body_hash and size, at most 16 KiB of UTF-8. A reply names an
// earlier post by its leaf index.
//
// A secret-bound name posts through the text gate: the policy key signs the leaf and the
// payload member `as` names the name, which must be a secret-bound name (docs/protocol.md
// 17.5). Without `as` the post is agent-signed, as any other.

import * as Chunk from "effect/Chunk"
import * as HashMap from "effect/HashMap"
import * as HashSet from "effect/HashSet"
import * as Schema from "effect/Schema"
import { nameRecordOf } from "../../identity/bindings.js"
import { appendAt } from "../../write/logState.js"
import { refuse } from "../../write/refusal.js"
import { entryRule, TEXT_LIMIT } from "../entryRule.js"
import { Channel, Hash32, LeafIndex, NameNorm, Size } from "../fields.js"

export const PostPayload = Schema.Struct({
  channel: Channel,
  body_hash: Hash32,
  size: Size,
  reply_to: Schema.optional(LeafIndex),
  as: Schema.optional(NameNorm)
})

export const post = entryRule({
  type: "post",
  signer: "agent",
  signers: ["agent", "policy"],
  signerOf: (payload: typeof PostPayload.Type) => (payload.as === undefined ? "agent" : "policy"),
  payload: PostPayload,
  body: { kind: "text", hashMember: "body_hash", maxBytes: TEXT_LIMIT },
  check: (state, { payload }) => {
    if (payload.as !== undefined && nameRecordOf(state, payload.as)?.tier !== "secret") {
      return refuse("not_authorized", `${payload.as} is not a secret-bound name: a name's own key signs its posts`)
    }
    return payload.reply_to !== undefined && !HashSet.has(state.posts, payload.reply_to)
      ? refuse("payload_invalid", `reply_to ${payload.reply_to} is not a post`)
      : undefined
  },
  apply: (state, { envelope, payload, index, logged }) => ({
    ...state,
    posts: HashSet.add(state.posts, index),
    // Who posted, when, where: task awards credit the author's name, quotes name a post.
    forum: {
      ...state.forum,
      postMeta: HashMap.set(state.forum.postMeta, index, {
        author: envelope.kid, logged, channel: payload.channel, size: payload.size, replyTo: payload.reply_to ?? null,
        ...(payload.as === undefined ? {} : { as: payload.as })
      }),
      postOrder: Chunk.append(state.forum.postOrder, index),
      channelPosts: appendAt(state.forum.channelPosts, payload.channel, index)
    }
  })
})
