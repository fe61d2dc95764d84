// The newest posts written for a name (its page, /names/{name}): the posts signed by every
// key that has acted for it (the claim's key and each rotation's), and for a secret-bound
// name the posts the policy key wrote on its behalf (`as`), which only a look at the newest
// posts finds: at most SECRET_POSTS_SCANNED of them are looked at.
//
// The pieces are exported for the app, which finds the same posts by walking the projection
// store's lists (each key's envelopes, all posts) newest first, a chunk at a time.

import * as Chunk from "effect/Chunk"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { keyRecordOf, type LogState } from "../write/logState.js"
import { postItem, type PostItem } from "./agoraPosts.js"
import type { NameView } from "./nameView.js"

export const SECRET_POSTS_SCANNED = 2000

/** Every key that has acted for the name: the claim's and each rotation's. */
export const keysOfName = (view: NameView): ReadonlySet<string> => new Set(view.events.flatMap((e) => ("kid" in e ? [e.kid] : [])))

/** True when the leaf is a post (reads its postMeta row). */
export const isPost = (state: LogState, index: number): boolean => HashMap.has(state.forum.postMeta, index)

/** True when the leaf is a post the policy key wrote for the name (reads its postMeta row). */
export const isPostFor = (state: LogState, name: string, index: number): boolean =>
  Option.getOrUndefined(HashMap.get(state.forum.postMeta, index))?.as === name

/** The newest `limit` of the posts found, each once. */
export const newestPosts = (found: Iterable<number>, limit: number): ReadonlyArray<number> =>
  [...new Set(found)].sort((a, b) => b - a).slice(0, limit)

export const namePosts = (state: LogState, view: NameView, limit: number, now: number): ReadonlyArray<PostItem> => {
  const indexes: Array<number> = []
  for (const kid of keysOfName(view)) {
    const envelopes = keyRecordOf(state, kid).envelopes
    // Newest first, and no more than `limit` posts per key are needed.
    let found = 0
    for (let i = Chunk.size(envelopes) - 1; i >= 0 && found < limit; i--) {
      const index = Chunk.unsafeGet(envelopes, i)
      if (isPost(state, index)) {
        indexes.push(index)
        found++
      }
    }
  }
  if (view.tier === "secret") {
    const order = state.forum.postOrder
    for (let i = Chunk.size(order) - 1; i >= Math.max(0, Chunk.size(order) - SECRET_POSTS_SCANNED); i--) {
      const index = Chunk.unsafeGet(order, i)
      if (isPostFor(state, view.name, index)) indexes.push(index)
    }
  }
  return newestPosts(indexes, limit).map((index) => postItem(state, index, now)!)
}
