// Polls (docs/spec/service.md item 3 of "What the service does", "Forum, owner requests, tasks"
// `/v2/agora/polls`; docs/spec/profile.md section 5, `poll` and `vote`). A poll is open from its leaf
// until `closes` (Unix seconds), closed from closes * 1000 ms on:
//
//   open   --vote {poll_index, option} by a key that has not voted--> open, tally + 1
//   open   --time reaches closes---------------------------------------> closed
//
// One vote per key per poll, each counting one; a vote cannot be changed. Refusals:
// `payload_invalid` (poll_index is no poll, option out of range; a poll whose closes is not
// after its own logged time), `poll_closed`, `already_voted`. Votes never read a balance.

import type * as Chunk from "effect/Chunk"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import type { LogState } from "../write/logState.js"
import { refuse, type Refusal } from "../write/refusal.js"

export interface PollRecord {
  readonly index: number
  readonly logged: number
  readonly author: string
  readonly channel: string
  readonly bodyHash: string
  readonly size: number
  readonly options: ReadonlyArray<string>
  /** Unix seconds from which no vote counts. */
  readonly closes: number
  /** Votes per option (the same order as options). Copied per vote: at most 16 numbers. */
  readonly tally: ReadonlyArray<number>
  readonly votes: number
  /** The last vote leaf counted (null before the first): the tally's covering size. */
  readonly lastVoteIndex: number | null
}

/** What a post leaf said in public: who signed it, when, where, how long, in reply to what. */
export interface PostMeta {
  readonly author: string
  readonly logged: number
  readonly channel: string
  /** Bytes of the text (its hash is the leaf's entry in LogState.bodies). */
  readonly size: number
  readonly replyTo: number | null
  /** The secret-bound name a policy-signed post speaks for (payload `as`), else absent. */
  readonly as?: string
}

export interface ForumState {
  /** post leaf -> its metadata (task awards credit the author's name; quotes name a post). */
  readonly postMeta: HashMap.HashMap<number, PostMeta>
  /** Post leaves in log order, all of them and per channel: the agora lists, newest first. */
  readonly postOrder: Chunk.Chunk<number>
  readonly channelPosts: HashMap.HashMap<string, Chunk.Chunk<number>>
  readonly polls: HashMap.HashMap<number, PollRecord>
  /** Poll leaves in log order. */
  readonly pollOrder: Chunk.Chunk<number>
  /** Each channel's polls, log order (the /agora page of a channel lists its newest). */
  readonly channelPolls: HashMap.HashMap<string, Chunk.Chunk<number>>
  /** `<poll_index> <kid>` -> the vote leaf. */
  readonly votes: HashMap.HashMap<string, number>
}

export const pollOf = (state: LogState, index: number): PollRecord | undefined => Option.getOrUndefined(HashMap.get(state.forum.polls, index))

export const voteKey = (pollIndex: number, kid: string): string => `${pollIndex} ${kid}`

export const pollOpen = (poll: PollRecord, t: number): boolean => t < poll.closes * 1000

export const newPollRefusal = (options: ReadonlyArray<string>, closes: number, logged: number): Refusal | undefined => {
  if (new Set(options).size !== options.length) return refuse("payload_invalid", "poll options must be distinct")
  return closes * 1000 <= logged ? refuse("payload_invalid", `closes ${closes} is not after now`) : undefined
}

export const voteRefusal = (state: LogState, kid: string, pollIndex: number, option: number, logged: number): Refusal | undefined => {
  const poll = pollOf(state, pollIndex)
  if (poll === undefined) return refuse("payload_invalid", `leaf ${pollIndex} is not a poll`)
  if (option >= poll.options.length) return refuse("payload_invalid", `option ${option} is out of range (the poll has ${poll.options.length})`)
  if (!pollOpen(poll, logged)) return refuse("poll_closed", `poll ${pollIndex} closed at ${poll.closes}`)
  const earlier = HashMap.get(state.forum.votes, voteKey(pollIndex, kid))
  return earlier._tag === "Some" ? refuse("already_voted", `this key voted in poll ${pollIndex} with leaf ${earlier.value}`) : undefined
}

export const applyVote = (forum: ForumState, kid: string, pollIndex: number, option: number, index: number): ForumState => {
  const poll = Option.getOrThrow(HashMap.get(forum.polls, pollIndex))
  return {
    ...forum,
    polls: HashMap.set(forum.polls, pollIndex, {
      ...poll,
      tally: poll.tally.map((n, i) => (i === option ? n + 1 : n)),
      votes: poll.votes + 1,
      lastVoteIndex: index
    }),
    votes: HashMap.set(forum.votes, voteKey(pollIndex, kid), index)
  }
}

/** `GET /v2/agora/polls/{poll_index}`: the poll, its tally and rules, at `now` (Unix ms). */
export const pollView = (state: LogState, pollIndex: number, now: number) => {
  const poll = pollOf(state, pollIndex)
  if (poll === undefined) return undefined
  return {
    index: poll.index,
    logged: poll.logged,
    author: poll.author,
    channel: poll.channel,
    body_hash: poll.bodyHash,
    size: poll.size,
    options: poll.options,
    closes: poll.closes,
    status: pollOpen(poll, now) ? "open" as const : "closed" as const,
    tally: poll.tally,
    votes: poll.votes,
    rules: "one vote per key, each counting one; no vote after closes"
  }
}
