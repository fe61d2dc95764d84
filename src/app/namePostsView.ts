// The newest posts written for a name (its page, /names/{name}; domain/views/namePosts.ts),
// read from the projection store (issue 12): each key that acted for the name has its
// envelopes walked newest first, a chunk at a time with their postMeta rows, until `limit`
// posts are found or the key's envelopes end; a secret-bound name's posts by the policy key
// are looked for among the newest SECRET_POSTS_SCANNED posts.
//
// A key's walk is bounded by what that key wrote, not by the log: a key that wrote many
// leaves and few posts makes its walk long (the store keeps no list of an author's posts).

import { Effect } from "effect"
import { postReads, postMetaReads } from "../domain/views/forumReads.js"
import { postItem, type PostItem } from "../domain/views/agoraPosts.js"
import { isPost, isPostFor, keysOfName, newestPosts, SECRET_POSTS_SCANNED } from "../domain/views/namePosts.js"
import type { NameView } from "../domain/views/nameView.js"
import type { StorageError } from "../ports/StorageError.js"
import { firstOf, keepChunks, listPage, newestFirst, type Reader } from "./listStreams.js"

/** Envelopes read per chunk of a key's walk. */
const ENVELOPES_CHUNK = 200

export const namePostsView = (reader: Reader) => (view: NameView, limit: number, now: number): Effect.Effect<ReadonlyArray<PostItem>, StorageError> =>
  Effect.gen(function*() {
    const found: Array<number> = []
    for (const kid of keysOfName(view)) {
      found.push(...yield* firstOf(
        newestFirst(reader, "envelopes", kid, { chunk: ENVELOPES_CHUNK }).pipe(keepChunks((chunk) =>
          Effect.map(reader.slice(postMetaReads(chunk)), (slice) => chunk.filter((index) => isPost(slice, index))))),
        limit
      ))
    }
    if (view.tier === "secret") {
      const newest = (yield* listPage(reader, "postOrder", "", SECRET_POSTS_SCANNED)).items
      const slice = yield* reader.slice(postMetaReads(newest))
      found.push(...newest.filter((index) => isPostFor(slice, view.name, index)))
    }
    const shown = newestPosts(found, limit)
    const slice = yield* reader.sliceFor((s) => postReads(s, shown))
    return shown.map((index) => postItem(slice, index, now)!)
  })
