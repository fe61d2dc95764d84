// Polls (docs/spec/service.md "Forum, owner requests, tasks": `/v2/agora/polls` with tallies, one vote
// per key, each counting one; `/v2/agora/polls/{poll_index}` with poll, tally and rules;
// docs/protocol.md section 12). The poll's own view is forum/polls.ts's; this lists them
// newest first and says which leaves each rests on: the poll and the last vote counted.

import { newestFirst } from "./chunks.js"
import { sizeCovering } from "./coverage.js"
import { pollOf, pollView } from "../forum/polls.js"
import type { LogState } from "../write/logState.js"
import { POLLS_LISTED } from "./limits.js"
import type { LeafPage } from "./leafPage.js"

const pollSize = (state: LogState, index: number): number => {
  const poll = pollOf(state, index)!
  return sizeCovering([poll.index, poll.lastVoteIndex])
}

/** `GET /v2/agora/polls` of a page of poll leaves, newest first (a state or a slice holding their rows). */
export const pollsOfPage = (state: LogState, page: LeafPage, now: number) => ({
  polls: page.items.map((i) => pollView(state, i, now)!),
  truncated: page.truncated,
  size: Math.max(0, ...page.items.map((i) => pollSize(state, i)))
})

/** `GET /v2/agora/polls`: the newest POLLS_LISTED polls with their tallies. */
export const pollsView = (state: LogState, now: number) => pollsOfPage(state, newestFirst(state.forum.pollOrder, POLLS_LISTED), now)

/** `GET /v2/agora/polls/{poll_index}`, or undefined when the leaf is no poll. */
export const pollDetail = (state: LogState, index: number, now: number) => {
  const poll = pollView(state, index, now)
  return poll === undefined ? undefined : { poll, size: pollSize(state, index) }
}
