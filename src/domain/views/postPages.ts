// A page of the forum's posts from a page of a post list (issue 12): the leaf indexes shown,
// newest first, read by position from the projection store's list (all posts, or one
// channel's), and a slice holding their rows (forumReads.ts postReads). The answer is
// agoraPosts.ts postsView's, byte for byte: the same items and the same covering size.

import type { LogState } from "../write/logState.js"
import { postItem, postLeaves } from "./agoraPosts.js"
import { sizeCovering } from "./coverage.js"
import type { LeafPage } from "./leafPage.js"

/** `GET /v2/agora/posts` of a page of post leaves (of one channel when given). */
export const postsOfPage = (slice: LogState, channel: string | undefined, page: LeafPage, now: number) => {
  const posts = page.items.map((i) => postItem(slice, i, now)!)
  return { channel: channel ?? null, posts, truncated: page.truncated, size: sizeCovering(posts.flatMap((post) => postLeaves(slice, post))) }
}
