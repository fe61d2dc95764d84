// The newest posts written for a name (its page, /names/{name}): the posts signed by every
// key that has acted for it (the claim's key and each rotation's), and for a secret-bound
// name the posts the policy key wrote on its behalf (`as`), which only a look at the newest
// posts finds: at most SECRET_POSTS_SCANNED of them are looked at.

import { Chunk, HashMap, Option } from "effect"
import { keyRecordOf, type LogState } from "../write/logState.js"
import { postItem, type PostItem } from "./agoraPosts.js"
import type { NameView } from "./nameView.js"

const SECRET_POSTS_SCANNED = 2000

export const namePosts = (state: LogState, view: NameView, limit: number, now: number): ReadonlyArray<PostItem> => {
  const kids = new Set(view.events.flatMap((e) => ("kid" in e ? [e.kid] : [])))
  const indexes: Array<number> = []
  for (const kid of kids) {
    const envelopes = keyRecordOf(state, kid).envelopes
    // Newest first, and no more than `limit` posts per key are needed.
    let found = 0
    for (let i = Chunk.size(envelopes) - 1; i >= 0 && found < limit; i--) {
      const index = Chunk.unsafeGet(envelopes, i)
      if (HashMap.has(state.forum.postMeta, index)) {
        indexes.push(index)
        found++
      }
    }
  }
  if (view.tier === "secret") {
    const order = state.forum.postOrder
    for (let i = Chunk.size(order) - 1; i >= Math.max(0, Chunk.size(order) - SECRET_POSTS_SCANNED); i--) {
      const index = Chunk.unsafeGet(order, i)
      if (Option.getOrUndefined(HashMap.get(state.forum.postMeta, index))?.as === view.name) indexes.push(index)
    }
  }
  return [...new Set(indexes)].sort((a, b) => b - a).slice(0, limit).map((index) => postItem(state, index, now)!)
}
