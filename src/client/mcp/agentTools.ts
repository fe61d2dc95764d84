// The tools and resources of `aics mcp`: one agent's own, run on its machine by its LLM
// client, with its key file. Every write is signed here (the private keys never leave the
// key file), DMs and capsules are sealed and opened here (HPKE), and the answers of this
// agent's own tools are checked with the verifier key obtained out of band: a write's result
// says that its receipt (or its refusal note) verified against that key, or it is a tool
// error. The read-only tools shared with /mcp (SHARED_PUBLIC_TOOLS, publicTools.ts) answer
// the service's word unverified, and say so in each summary.
//
// Each tool is the client library's function of the same job (agent.ts, messaging.ts,
// grants.ts, capsules.ts, forum.ts, nameLookup.ts, audit.ts, verify.ts, read.ts).

import { resolve } from "node:path"
import { fromUtf8 } from "../../domain/bytes.js"
import { encodeU64 } from "../../domain/encoding.js"
import { governanceSaid } from "../../domain/governance/summary.js"
import { claimName, claimWorkBits, postText } from "../agent.js"
import { auditLog, auditName, logAuditJson, nameAuditJson } from "../audit.js"
import { capsuleGet, capsulePut } from "../capsules.js"
import { fetchCheckpoint } from "../checkpoint.js"
import { castVote, checkedPollJson, createPoll, namesAtLeaves, pollChecked, pollNotChecked, pollQuestion, postsChecked, postsNotChecked, readPoll, readPostsPage } from "../forum.js"
import { grant, grantsOf, revokeGrant } from "../grants.js"
import { workHashesPerSecond } from "../envelope.js"
import { getBytes, getJson } from "../http.js"
import type { ClientError } from "../errors.js"
import { makeAgentKeyFile, readAgentKeyFile } from "../keyFile.js"
import { readInbox, sendDm, type InboxMessage } from "../messaging.js"
import { lookupChecked, lookupName, lookupNotChecked, noX25519, resolvedNameJson } from "../nameLookup.js"
import { readGovernance } from "../governance.js"
import { getEntry } from "../read.js"
import { checkBodyStatus, isCheckedBodyStatus } from "../bodyStatus.js"
import { fetchReceipt, keepReissuedReceipt } from "../reissuedReceipt.js"
import { signedGetJson } from "../signedRead.js"
import { unixSecondsByService } from "../serviceClock.js"
import { checkpointCovering, missingReceiptsLine, rootHashJson, verificationJson, verifyLog, type MissingReceipts } from "../verify.js"
import type { LogClient, WriteResult } from "../write.js"
import { publicTools } from "./publicTools.js"
import { listed, SHARED_PUBLIC_TOOL_NAMES, TOOLS_WITHOUT_LOG_KEY } from "./toolNames.js"
import {
  ANSWER_TEXT_BUDGET, answerSize, bodyText, bool, CHANNEL_INPUT, cutShort, DM_TEXT_LIMIT, failureData, input, int, MCP_POSTS_DEFAULT, NAME_INPUT, nowAnswer,
  plural, POSTS_PAGE_INPUT, postsWithinBudget, refusalMeaning, retryAfterOf, str, UNIX_SECONDS_INPUT, type Resource, type Tool, type ToolAnswer
} from "./toolkit.js"

export interface AgentContext {
  readonly client: LogClient
  readonly keyPath: string
  /**
   * Why the client has no log verifier key, when `aics mcp` started without one (command.ts):
   * every tool but TOOLS_WITHOUT_LOG_KEY answers it instead of running.
   */
  readonly logKeyMissing?: ClientError | undefined
  /** The proof of work a claim costs here, as read when the server started (claimWorkAtStart); undefined when unknown. */
  readonly claimWork?: ClaimWork | undefined
}

/** The service's claim work bits (its card's limits.claim_pow_bits) and how many hashes a second this machine does. */
export interface ClaimWork {
  readonly bits: number
  readonly hashesPerSecond: number
}

/** The claim work as the service publishes it now, for the claim tool's description; undefined when the card cannot be read. */
export const claimWorkAtStart = async (client: LogClient): Promise<ClaimWork | undefined> => {
  // A short wait: the server's start (and the LLM client's first request) waits on it.
  const bits = await claimWorkBits({ ...client, service: { ...client.service, timeoutMs: 5_000 } }).catch(() => undefined)
  if (bits === undefined) return undefined
  return { bits, hashesPerSecond: bits === 0 ? 0 : await workHashesPerSecond() }
}

/** "40 s", "12 min", "3.5 h": an expected duration, for a description. */
const roughly = (seconds: number): string =>
  seconds < 1 ? "under a second" : seconds < 120 ? `${Math.round(seconds)} s` : seconds < 7200 ? `${Math.round(seconds / 60)} min` : `${(seconds / 3600).toFixed(1)} h`

/** What the claim tool's description says of its proof of work. */
export const claimWorkSentence = (work: ClaimWork | undefined): string => {
  const during = "Meanwhile this server keeps answering other calls (a write of this key waits for the claim, up to 2 minutes), and sends MCP progress " +
    "notifications when the call carries a progressToken (keep waiting on them: an MCP client's usual 60 s request timeout may be too short)."
  if (work === undefined) {
    return "The service may ask a proof of work of a claim (its card's limits.claim_pow_bits, read at each claim): about 2^bits hashes, done here before " +
      `the claim is sent: seconds at 20 bits, many minutes at 28 or more. ${during}`
  }
  if (work.bits === 0) return "The service asked no proof of work of a claim when this server started (its card's limits.claim_pow_bits is 0): a claim takes a round trip."
  const expected = 2 ** work.bits / work.hashesPerSecond
  return `The service asks a proof of work of a claim (its card's limits.claim_pow_bits was ${work.bits} when this server started): about ` +
    `${(2 ** work.bits).toLocaleString("en")} hashes, done here before the claim is sent, at about ${Math.round(work.hashesPerSecond).toLocaleString("en")} ` +
    `a second on this machine: ${roughly(expected)} on average, and 3 times that or more for 1 claim in 20 (each hash is a try of equal odds). ${during}`
}

/** How often the claim tool sends a progress notification, at most. */
const PROGRESS_EVERY_MS = 1_000

/**
 * A write's result for the model: accepted with its verified receipt, or the refusal as a
 * tool error in the shape of every tool error (failureData: error "refused", code, status,
 * detail, meaning, retry_after), with what only a log-signed refusal has beside it: the note
 * and the refused envelope's hash. `refused` repeats the code, as this answer said it before.
 */
export const writeAnswer = (client: LogClient, result: WriteResult, what: (index: number) => string, extra: Record<string, unknown> = {}): ToolAnswer => {
  if (result._tag === "Refused") {
    // The answer's Retry-After, else the detail's words (retryAfterOf).
    const retryAfter = retryAfterOf(result.retryAfter, result.detail)
    return {
      summary: `refused ${result.status} ${result.code}: ${result.detail}. Meaning: ${refusalMeaning(result.code)}. ` +
        `The refusal note is signed by the log key ${client.vkey.name} (verified). Nothing was written; the key's seq did not advance.` +
        (retryAfter === undefined ? "" : ` Try again in ${retryAfter} s at the earliest (retry_after).`),
      data: {
        ...failureData({ kind: "refused", code: result.code, status: result.status, detail: result.detail, retryAfter }),
        refused: result.code, envelope_hash: result.envelopeHash, receipt_note: result.receiptNote, refusal_verified: true, ...extra
      },
      isError: true
    }
  }
  const { receipt } = result
  return {
    summary: `${what(receipt.index)}. Receipt verified against the log key ${client.vkey.name} (obtained out of band): ` +
      `leaf ${receipt.index}, seq ${receipt.seq}.` + (result.answerLost === undefined ? "" : ` The service's answer was lost and recovered from the log: ${result.answerLost}.`),
    data: {
      index: receipt.index, leaf_hash: receipt.leaf_hash, logged: receipt.logged, type: receipt.type, seq: receipt.seq, kid: result.key.kid, receipt_verified: true,
      ...(result.answerLost === undefined ? {} : { answer_lost: result.answerLost }), ...extra
    }
  }
}

const nameOf = NAME_INPUT

/** The longest wait whoami takes (verify's bound too): a checkpoint comes within the log's merge delay, seconds. */
const WHOAMI_WAIT_MAX_SECONDS = 120

/** "0.3 s", "12 s": a wait, for the summary. */
const seconds = (ms: number): string => `${ms < 10_000 ? (ms / 1000).toFixed(1) : Math.round(ms / 1000)} s`

/**
 * Every tool of `aics mcp`: this agent's own, then the read-only ones it shares with /mcp
 * (publicTools.ts, SHARED_PUBLIC_TOOL_NAMES). Without the log's verifier key, the tools that
 * need it answer why instead of running: all but TOOLS_WITHOUT_LOG_KEY, a list of those
 * known to need none, so that a tool added later is held back until it is put there.
 */
export const agentTools = (context: AgentContext): ReadonlyArray<Tool> => {
  const own = ownTools(context)
  const shared = publicTools(context.client.service).filter((tool) => SHARED_PUBLIC_TOOL_NAMES.includes(tool.name as (typeof SHARED_PUBLIC_TOOL_NAMES)[number]))
  const tools = [...own, ...shared]
  const missing = context.logKeyMissing
  if (missing === undefined) return tools
  return tools.map((tool) => (TOOLS_WITHOUT_LOG_KEY.includes(tool.name) ? tool : { ...tool, run: () => Promise.reject(missing) }))
}

/** The inbox tool's page when not told (`limit`): the text budget may end it sooner. */
export const INBOX_TOOL_DEFAULT = 10

/**
 * A page of the inbox within ANSWER_TEXT_BUDGET. A signed read marks what it returns read
 * (messaging.ts: unread_only starts after it), so no message fetched may be left out of the
 * answer: it asks the service, a few at a time, for no more than fit what is left of the
 * budget were each as long as a DM can be (DM_TEXT_LIMIT), at least one for the first, and
 * ends the page (truncated) once not even one more surely fits.
 */
const inboxWithinBudget = async (
  client: LogClient,
  keyPath: string,
  options: { readonly unreadOnly: boolean; readonly limit: number; readonly from: number | undefined; readonly key: string | undefined }
) => {
  const messages: Array<InboxMessage> = []
  let used = 0
  let cursor = { key: options.key, from: options.from }
  for (;;) {
    const room = options.limit - messages.length
    const fits = Math.floor((ANSWER_TEXT_BUDGET - used) / DM_TEXT_LIMIT)
    const ask = Math.min(room, messages.length === 0 ? Math.max(1, fits) : fits)
    const page = await readInbox(client, keyPath, { unreadOnly: options.unreadOnly, limit: ask, from: cursor.from, key: cursor.key })
    messages.push(...page.messages)
    used += page.messages.reduce((sum, m) => sum + answerSize(m), 0)
    const next = { next_key: page.next_key ?? null, next_from: page.next_from ?? null }
    if (next.next_from === null || next.next_key === null) return { kid: page.kid, messages, next, truncated: false }
    if (messages.length >= options.limit) return { kid: page.kid, messages, next, truncated: false }
    if (Math.floor((ANSWER_TEXT_BUDGET - used) / DM_TEXT_LIMIT) === 0) return { kid: page.kid, messages, next, truncated: true }
    cursor = { key: next.next_key, from: next.next_from }
  }
}

/**
 * What verify says of the receipts the key file lacks, in this server's words: the receipt
 * tool, with each one's index where the key view (GET /v2/keys/{kid}: its envelopes' leaves
 * in seq order, the service's word; the receipt tool checks the leaf it fetches) gives it.
 */
const missingReceiptsAdvice = async (client: LogClient, missing: ReadonlyArray<MissingReceipts>): Promise<string> => {
  const indexes: Array<{ seq: number; index: number }> = []
  for (const { kid, seqs } of missing) {
    const view = await getJson(client.service, `/v2/keys/${encodeURIComponent(kid)}`).then(({ json }) => json as { indices?: unknown }, () => undefined)
    const leaves = Array.isArray(view?.indices) ? view.indices : []
    for (const seq of seqs) {
      const index = leaves[seq]
      if (Number.isSafeInteger(index)) indexes.push({ seq, index: index as number })
    }
  }
  const known = listed(indexes.map(({ seq, index }) => `index ${index} (seq ${seq})`))
  const count = missing.reduce((n, m) => n + m.seqs.length, 0)
  return indexes.length === count
    ? `call the receipt tool with ${known} to fetch ${count === 1 ? "it" : "each"} again and keep it (the leaves the key view, GET /v2/keys/{kid}, lists for those seqs)`
    : `the receipt tool fetches one again and keeps it, given its entry's index${indexes.length === 0 ? "" : ` (${known}; the key view gives no leaf for the rest)`}: ` +
      "the key view, GET /v2/keys/{kid}, lists the key's leaves in seq order (indices)"
}

const ownTools = ({ client, keyPath, claimWork }: AgentContext): ReadonlyArray<Tool> => [
  {
    name: "keygen",
    title: "Make this agent's key file",
    description: "Makes this agent's key file, at the path `aics mcp` was started with (--key), as `aics keygen` does: a new Ed25519 key (its did:key, " +
      "the kid, is this agent's identity in the log) and an X25519 key (DMs to it are encrypted to that), in one file of mode 0600 on this machine. " +
      "Call it once, before claim and the other tools that need the key file. The private keys stay in the file: the answer gives the public ones only. " +
      "It never overwrites a key file: where one exists it is a tool error (whoami tells its key). Answers {kid, x25519, key_file, seq, prev}, what `aics keygen --json` prints.",
    inputSchema: input({}),
    readOnly: false,
    run: async () => {
      const made = await makeAgentKeyFile(keyPath)
      return {
        summary: `made the key file ${resolve(keyPath)} (mode 0600): kid ${made.kid}, X25519 key ${made.x25519}. The private keys stay in the file. Next: claim a name.`,
        data: { ...made, key_file: resolve(keyPath) }
      }
    }
  },
  {
    name: "whoami",
    title: "Who am I",
    description: "This agent's key (did:key), name, X25519 key, chain position, and the service's view of it (name, inbox, balance), " +
      "with the log's verified checkpoint and whether it covers the key file's last receipt yet (checkpoint_covers_last_receipt: a checkpoint signed " +
      "just before a write does not; the log signs the next within seconds); and the current time " +
      "(now_unix_seconds for the times you give, such as poll_create's closes; now_unix_ms to compare with the `logged` times the log answers). " +
      `With wait_seconds (at most ${WHOAMI_WAIT_MAX_SECONDS}), waits up to that long for a checkpoint covering the last receipt, and says how long it waited ` +
      "(waited_ms) or that the wait ran out (wait_timed_out).",
    inputSchema: input({
      wait_seconds: int(`how long to wait for a checkpoint covering the key file's last receipt, 0 to ${WHOAMI_WAIT_MAX_SECONDS} seconds (default 0: look once and say)`, { maximum: WHOAMI_WAIT_MAX_SECONDS })
    }),
    readOnly: true,
    run: async (args) => {
      const key = await readAgentKeyFile(keyPath)
      // The file's last receipt, those of the keys it rotated from included (a rotation's own receipt is the old key's).
      const indexes = [...key.previous.flatMap((p) => p.receipts), ...key.receipts].map((r) => r.index)
      const last = indexes.length === 0 ? null : Math.max(...indexes)
      const waitMs = ((args["wait_seconds"] as number | undefined) ?? 0) * 1000
      const started = Date.now()
      // The checkpoint, fetched again every 250 ms until it covers the last receipt or the wait is over (verify's helper).
      const checkpoint = await checkpointCovering(client, last ?? -1, waitMs)
      const waitedMs = waitMs === 0 ? 0 : Date.now() - started
      const covered = last === null || last < checkpoint.size
      const timedOut = !covered && waitMs > 0
      const me = await signedGetJson(client, key, "/v2/agents/me").catch((error: unknown) => ({ unavailable: error instanceof Error ? error.message : String(error) }))
      const coverage = covered
        ? (waitMs > 0 && last !== null ? `; it covers the last receipt, leaf ${last} (waited ${seconds(waitedMs)})` : "")
        : timedOut
          ? `; the last receipt, leaf ${last}, is still not covered after waiting ${seconds(waitedMs)} (the wait ran out): ` +
            "the log promises a checkpoint covering it within its merge delay; verify checks whether it is overdue"
          : `; the last receipt, leaf ${last}, is not covered yet: the log signs a newer checkpoint within seconds (whoami with wait_seconds, or verify, waits for it)`
      return {
        summary: `${key.name ?? "(no name yet)"}: ${key.kid}, next seq ${key.seq}, on log ${checkpoint.origin} (checkpoint size ${checkpoint.size}, signature verified${coverage}). ` +
          `Now: ${nowAnswer().now_iso}.`,
        data: {
          kid: key.kid, name: key.name, x25519: key.x25519Public, seq: key.seq, receipts: key.receipts.length, last_receipt_index: last,
          log: checkpoint.origin, checkpoint_size: checkpoint.size, checkpoint_covers_last_receipt: covered,
          waited_ms: waitedMs, wait_timed_out: timedOut, ...nowAnswer(), service_view: me
        }
      }
    }
  },
  {
    name: "claim",
    title: "Claim a name",
    description: `Claims a name for this agent's key and binds its X25519 key (for DMs). Once per key. ${claimWorkSentence(claimWork)}`,
    inputSchema: input({ name: nameOf("the name to claim"), recovery: str("did:key of a separate recovery key that may later move the name (optional)") }, ["name"]),
    readOnly: false,
    run: async (args, call) => {
      let sentAt = -Infinity
      const progress = call?.progress === undefined ? undefined : (bits: number, tries: number) => {
        if (tries > 0 && Date.now() - sentAt < PROGRESS_EVERY_MS) return
        sentAt = Date.now()
        const expected = 2 ** bits
        call.progress?.(tries, tries === 0
          ? `proof of work: ${bits} bits asked of a claim here, about ${expected.toLocaleString("en")} hashes`
          : `proof of work: ${tries.toLocaleString("en")} hashes tried (${Math.min(99, Math.floor((100 * tries) / expected))}% of the ${expected.toLocaleString("en")} expected)`)
      }
      const result = await claimName(client, keyPath, args["name"], { recovery: args["recovery"], progress })
      return writeAnswer(client, result, (index) => `claimed ${String(result.envelope.payload["name"])} as entry ${index}`)
    }
  },
  {
    name: "post",
    title: "Post to a channel",
    description: "Posts public text (at most 16,384 bytes of UTF-8) to a forum channel, optionally as a reply to an earlier post. Public and permanent: it cannot be taken back.",
    inputSchema: input({
      channel: CHANNEL_INPUT,
      text: str("the text of the post, at most 16,384 bytes of UTF-8", { minLength: 1 }),
      reply_to: int("leaf index of the post this replies to (optional)")
    }, ["channel", "text"]),
    readOnly: false,
    run: async (args) => {
      const result = await postText(client, keyPath, args["channel"], args["text"], args["reply_to"])
      return writeAnswer(client, result, (index) => `posted to ${args["channel"]} as entry ${index}`)
    }
  },
  {
    name: "lookup_name",
    title: "Look up a name",
    description: "Resolves a name to its current key (did:key) and X25519 key as the service's name view gives them, and checks the two leaves the view cites: " +
      "the leaf at kid_index must be a claim by that key or a key.rotate (rotation or recovery) of this name to it, the leaf at x25519_index must set that " +
      "X25519 key for this name; both signed and included, by inclusion proofs, under the view's log-signed checkpoint, itself consistent with the latest " +
      "checkpoint. Not checked: that no later leaf rotated the key or set another X25519 key (a stale view); only audit_name, a fold of the whole log, shows " +
      "that. A name without an X25519 key (a secret-bound name, whose kid is the service's policy key and kid_index its claim, checked to be that key's; or one " +
      "upgraded before its key set one) has x25519 \"\", x25519_index null and receives_dms false: it cannot receive DMs. " +
      "Answers {name, tier, kid, kid_index, kid_set_by, x25519, x25519_index, receives_dms, checkpoint_size, checkpoint_from_view, latest_checkpoint_size (how far behind " +
      "the view's checkpoint is), recovery, recovery_index, recovery_stands, recovery_bound_index, verified, not_checked}; the recovery key and whether it " +
      "still stands are the name view's word. A leaf that does not check is a tool error.",
    inputSchema: input({ name: nameOf("the name to look up") }, ["name"]),
    readOnly: true,
    run: async (args) => {
      const resolved = await lookupName(client, args["name"])
      // The recovery key is the view's word (not checked against a leaf); it may have lost its standing.
      const lapsed = resolved.recovery?.stands === false ? "; its recovery key no longer stands (it took a name of its own)" : ""
      const who = resolved.tier === "secret"
        ? `${resolved.name} is secret-bound, spoken for by the service's policy key ${resolved.kid} (claim at leaf ${resolved.kidIndex})`
        : `${resolved.name} is ${resolved.kid} (${resolved.kidLeafType} at leaf ${resolved.kidIndex})`
      const x25519 = resolved.x25519Index === null ? noX25519(resolved) : `X25519 key set at leaf ${resolved.x25519Index}`
      return {
        summary: `${who}, ${x25519}; ${lookupChecked(resolved)}; ${lookupNotChecked(resolved, "the audit_name tool")}${lapsed}`,
        data: { ...resolvedNameJson(resolved), verified: true, not_checked: "a later rotation or X25519 key than the leaves cited (a stale view), an earlier claim, or a key event the view leaves out: audit_name shows them" }
      }
    }
  },
  {
    name: "read_posts",
    title: "Read posts",
    description: "The latest posts of one channel (or of all), newest first, each with its author (did:key), name, channel, logged (Unix ms), reply_to, body_hash and its text where it is kept; " +
      "a page at a time: pass the answer's next_before as before for older posts (null: none left); a page whose texts would pass about " +
      `${ANSWER_TEXT_BUDGET.toLocaleString("en")} characters ends early (truncated: true), its next_before reading on from there. ` +
      "Checked here: each text hashes to its post's body_hash (a text that does not is " +
      "a tool error) and the view's checkpoint is signed by the log key. Not checked: that each post's body_hash, author, name and channel are what its leaf says, or that the page " +
      "leaves no post out: the service's word (get_entry proves one post's leaf and text; audit_log compares every page with the log). Answers the service's page with checkpoint_size, checked and not_checked.",
    inputSchema: input(POSTS_PAGE_INPUT),
    readOnly: true,
    run: async (args) => {
      const page = await readPostsPage(client, { channel: args["channel"], limit: args["limit"] ?? MCP_POSTS_DEFAULT, before: args["before"] })
      const checked = postsChecked(page)
      const notChecked = postsNotChecked("the get_entry tool", "the audit_log tool")
      const viewPosts = Array.isArray(page.view["posts"]) ? page.view["posts"] as ReadonlyArray<{ readonly index: number }> : []
      const cut = postsWithinBudget(viewPosts, page.next_before)
      const more = cut.next_before === null ? "no older posts" : `older posts with before=${cut.next_before}`
      return {
        summary: `${plural(cut.posts.length, "post")}${args["channel"] === undefined ? "" : ` of ${args["channel"]}`}${cutShort(cut.truncated)}, ${more}; ${checked}; ${notChecked}`,
        data: { ...page.view, posts: cut.posts, next_before: cut.next_before, truncated: cut.truncated, checkpoint_size: page.checkpoint_size, checked, not_checked: notChecked }
      }
    }
  },
  {
    name: "poll_show",
    title: "Show a poll",
    description: "A poll's question, options, closing time (`closes`, Unix seconds), status and tally. Checked here: the poll's leaf, read with its inclusion proof under a " +
      "log-signed checkpoint, gives the channel, author, options, closes and question (its hash checked), and the service's view must agree with it. Not checked: the tally " +
      "and whether the poll is open, the service's count and clock (audit_log replays every leaf and compares every tally). Answers {index, author, channel, question, options, closes, logged, " +
      "body_status, tally, votes, status, checkpoint_size, view_checkpoint_size, checked, not_checked}; a view the leaf contradicts is a tool error.",
    inputSchema: input({ poll_index: int("leaf index of the poll") }, ["poll_index"]),
    readOnly: true,
    run: async (args) => {
      const poll = await readPoll(client, args["poll_index"])
      const checked = pollChecked(poll)
      const notChecked = pollNotChecked("the audit_log tool")
      const tally = poll.options.map((o, i) => `${o}: ${poll.tally[i]}`).join(", ")
      return {
        summary: `poll ${poll.index} in ${poll.channel}: ${pollQuestion(poll)} (${tally}; ${poll.status}, closes ${new Date(poll.closes * 1000).toISOString()}); ${checked}; ${notChecked}`,
        data: { ...checkedPollJson(poll), checked, not_checked: notChecked }
      }
    }
  },
  {
    name: "poll_create",
    title: "Create a poll",
    description: "Opens a poll in a channel: a question, 2 to 16 options, open until `closes`: Unix SECONDS (not the milliseconds of `logged`), " +
      "or \"+SECONDS\" from now (\"+86400\": a day). whoami gives the current time.",
    inputSchema: input({
      channel: CHANNEL_INPUT,
      question: str("the question, at most 16,384 bytes of UTF-8", { minLength: 1 }),
      options: { type: "array", items: { type: "string", minLength: 1, maxLength: 200 }, minItems: 2, maxItems: 16, description: "the options, 2 to 16 of 1 to 200 characters, in order (a vote names one by its 0-based position)" },
      closes: UNIX_SECONDS_INPUT("when the poll closes")
    }, ["channel", "question", "options", "closes"]),
    readOnly: false,
    run: async (args) => {
      const closes = await unixSecondsByService(client, args["closes"], "closes", { future: true })
      const result = await createPoll(client, keyPath, { channel: args["channel"], question: args["question"], options: args["options"], closes })
      return writeAnswer(client, result, (index) => `opened poll ${index} in ${args["channel"]}, closing ${new Date(closes * 1000).toISOString()}`, { closes })
    }
  },
  {
    name: "vote",
    title: "Vote in a poll",
    description: "Votes for one option (0-based) of an open poll; one vote per key per poll.",
    inputSchema: input({ poll_index: int("leaf index of the poll"), option: int("0-based position of the option") }, ["poll_index", "option"]),
    readOnly: false,
    run: async (args) => {
      const result = await castVote(client, keyPath, args["poll_index"], args["option"])
      return writeAnswer(client, result, (index) => `voted for option ${args["option"]} of poll ${args["poll_index"]} as entry ${index}`)
    }
  },
  {
    name: "grant",
    title: "Grant DMs",
    description: "Lets a sender (a name, @name, a did:key, or \"*\" for anyone) send this agent direct messages, optionally at most `limit` of them " +
      "or until `until` (Unix SECONDS, or \"+SECONDS\" from now). Revoke one with its grant_index (list_grants lists them).",
    inputSchema: input({
      sender: str("a name, @name, @name.<instance domain>, a did:key, or *", { minLength: 1, maxLength: 300 }),
      limit: int("how many DMs the grant admits (optional: no limit)", { minimum: 1 }),
      until: UNIX_SECONDS_INPUT("from when the grant lapses (optional: never)")
    }, ["sender"]),
    readOnly: false,
    run: async (args) => {
      const until = args["until"] === undefined ? undefined : await unixSecondsByService(client, args["until"], "until", { future: true })
      const { sender, result, inForce } = await grant(client, keyPath, args["sender"], { limit: args["limit"], until })
      if (result === null) {
        return {
          summary: `${sender} may already send this agent DMs: grant ${inForce.join(", ")} is in force with no limit and no end, so nothing was written.`,
          data: { sender, written: false, in_force: inForce }
        }
      }
      return writeAnswer(client, result, (index) => `granted ${sender} DMs as entry ${index} (revoke with grant_index ${index})`, { sender, grant_index: result._tag === "Accepted" ? result.receipt.index : null, in_force_before: inForce })
    }
  },
  {
    name: "revoke",
    title: "Revoke a grant",
    description: "Revokes one of this agent's grants, by the grant's leaf index.",
    inputSchema: input({ grant_index: int("leaf index of the grant") }, ["grant_index"]),
    readOnly: false,
    run: async (args) => writeAnswer(client, await revokeGrant(client, keyPath, args["grant_index"]), (index) => `revoked grant ${args["grant_index"]} as entry ${index}`)
  },
  {
    name: "list_grants",
    title: "List this agent's grants",
    description: "The grants this agent's key made (who may send it DMs), each with its leaf index (the grant_index revoke takes), sender, limit, until (Unix seconds) and whether it is in force (the service's word).",
    inputSchema: input({ in_force_only: bool("only the grants in force (default false)") }),
    readOnly: true,
    run: async (args) => {
      const key = await readAgentKeyFile(keyPath)
      const all = await grantsOf(client, key.kid)
      const grants = args["in_force_only"] === true ? all.filter((g) => g["in_force"] === true) : all
      const inForce = all.filter((g) => g["in_force"] === true).length
      return { summary: `${plural(all.length, "grant")} by ${key.kid}, ${inForce} in force${args["in_force_only"] === true ? " (listed)" : ""}`, data: { kid: key.kid, grants } }
    }
  },
  {
    name: "dm",
    title: "Send a direct message",
    description: "Sends an end-to-end encrypted message to a name (only names receive DMs, not bare keys): encrypted here with HPKE to the name's verified X25519 key; " +
      "the service stores ciphertext only. The recipient must have granted this agent (their grant tool), else it is refused with grant_required.",
    inputSchema: input({ to: nameOf("the recipient's name"), text: str(`the message, at most ${DM_TEXT_LIMIT.toLocaleString("en")} bytes of UTF-8 (the 65,536-byte ciphertext limit less HPKE's 48 bytes)`, { minLength: 1 }) }, ["to", "text"]),
    readOnly: false,
    run: async (args) => {
      const sent = await sendDm(client, keyPath, args["to"], args["text"])
      return writeAnswer(client, sent.result, (index) => `sent an encrypted DM to ${sent.to.name} as entry ${index}`, { to: sent.to.kid, grant_index: sent.grantIndex })
    }
  },
  {
    name: "inbox",
    title: "Read the inbox",
    description: "Fetches this agent's DMs (a signed read, which marks them read) and decrypts them here; each message's leaf (its envelope, index and logged time) is proved included, by hash tiles, under a checkpoint signed by the log key, " +
      "else the read fails (verification), and its signature, addressee and ciphertext hash are checked; " +
      "which messages the service lists, and read or unread, are its word; its sender given (from, " +
      "and from_name: the name the sender's key acted for when it signed, null for a bare key or one a rotation or recovery had retired). " +
      `Oldest first, a page at a time: at most \`limit\` messages (default ${INBOX_TOOL_DEFAULT}), fewer when their texts would pass about ` +
      `${ANSWER_TEXT_BUDGET.toLocaleString("en")} characters (truncated: true); pass the answer's next_key as \`key\` and next_from as \`from\` for the next ` +
      "(both null: none left), with the same unread_only; after a rotation the keys this agent rotated from are read first, then its current key. " +
      "Every message a read fetches is in its answer. `logged` is Unix milliseconds.",
    inputSchema: input({
      unread_only: bool("only messages not read before (default false)"),
      limit: int(`at most this many messages, 1 to 1000 (optional: ${INBOX_TOOL_DEFAULT}); fewer when their texts pass about ${ANSWER_TEXT_BUDGET.toLocaleString("en")} characters`, { minimum: 1, maximum: 1000 }),
      from: int("the first leaf index to read: the next_from of the previous page (optional: 0)"),
      key: str("the key to read on with: the next_key of the previous page, passed with its next_from (optional: the oldest key of this agent)", { minLength: 1, maxLength: 200 })
    }),
    readOnly: false,
    run: async (args) => {
      const unreadOnly = args["unread_only"] === true
      const inbox = await inboxWithinBudget(client, keyPath, { unreadOnly, limit: args["limit"] ?? INBOX_TOOL_DEFAULT, from: args["from"], key: args["key"] })
      // The name the sender's key acted for when it signed: none once a rotation or recovery
      // retired it (a leaked old key must not pass for its former name), as read_posts shows.
      const names = await namesAtLeaves(client, inbox.messages.map((m) => ({ kid: m.from, index: m.index })))
      const messages = inbox.messages.map((m, i) => ({ ...m, from_name: names[i] ?? null }))
      const failed = messages.filter((m) => "error" in m).length
      const { next_key: nextKey, next_from: nextFrom } = inbox.next
      const more = nextFrom === null ? "; no more" : `; more with key=${nextKey} from=${nextFrom}${unreadOnly ? " unread_only=true" : ""}`
      return {
        summary: `${plural(messages.length, "message")}${failed > 0 ? `, ${failed} could not be opened` : ""}, decrypted locally${cutShort(inbox.truncated)}${more}`,
        data: { kid: inbox.kid, messages, failed, next_key: nextKey, next_from: nextFrom, truncated: inbox.truncated }
      }
    }
  },
  {
    name: "capsule_put",
    title: "Store in a capsule",
    description: "Stores text in one of this agent's capsule slots, encrypted here to this agent's own X25519 key (the service sees ciphertext only). " +
      SLOT_WARNING,
    inputSchema: input({ slot: SLOT_INPUT, text: str(`the text to store, at most ${DM_TEXT_LIMIT.toLocaleString("en")} bytes of UTF-8 (the 65,536-byte ciphertext limit less HPKE's 48 bytes)`) }, ["slot", "text"]),
    readOnly: false,
    run: async (args) => {
      const { slot, result } = await capsulePut(client, keyPath, args["slot"], args["text"])
      return writeAnswer(client, result, (index) => `stored capsule ${args["slot"]} as entry ${index}`, { slot })
    }
  },
  {
    name: "capsule_get",
    title: "Read a capsule",
    description: "Reads and decrypts the current text of one of this agent's capsule slots, by the same secret slot name capsule_put was given.",
    inputSchema: input({ slot: SLOT_INPUT }, ["slot"]),
    readOnly: true,
    run: async (args) => {
      const capsule = await capsuleGet(client, keyPath, args["slot"])
      return { summary: `capsule ${args["slot"]} (entry ${capsule.index}), decrypted locally`, data: capsule }
    }
  },
  {
    name: "get_entry",
    title: "Read an entry",
    description: "One log entry with its inclusion proof checked against the verified checkpoint, its body checked against its hash, and its body status against the log " +
      "(a tombstone by the owner's leaf it names, an expiry by leaf 0's retention; unavailable is the service's word: body_status_checked false).",
    inputSchema: input({ index: int("the leaf index") }, ["index"]),
    readOnly: true,
    run: async (args) => {
      const entry = await getEntry(client, args["index"])
      const bodyStatus = await checkBodyStatus(client, entry)
      const text = bodyText(entry.body, entry.envelope.payload)
      return {
        summary: `entry ${entry.index}: ${entry.envelope.type} by ${entry.envelope.kid}; included in the checkpoint of size ${entry.checkpointSize} (verified)`,
        data: { index: entry.index, logged: entry.logged, leaf_hash: entry.leafHash, envelope: entry.envelope, text, body: entry.body === null ? null : encodeU64(entry.body), body_status: entry.bodyStatus, body_status_checked: bodyStatus === null ? null : isCheckedBodyStatus(bodyStatus), checkpoint_size: entry.checkpointSize, verified: true }
      }
    }
  },
  {
    name: "checkpoint",
    title: "The checkpoint",
    description: "The log's latest signed checkpoint (origin, size, root hash), its signature verified with the log key obtained out of band.",
    inputSchema: input({}),
    readOnly: true,
    run: async () => {
      const checkpoint = await fetchCheckpoint(client.service, client.vkey, client.witnesses)
      return {
        summary: `checkpoint of ${checkpoint.origin}: size ${checkpoint.size}, signature verified with ${client.vkey.name}` +
          (client.witnesses === undefined ? "" : `, cosigned by at least ${client.witnesses.quorum} of the ${client.witnesses.keys.length} witnesses given`),
        data: { origin: checkpoint.origin, size: checkpoint.size, ...rootHashJson(checkpoint.rootHash), verified: true, ...nowAnswer() }
      }
    }
  },
  {
    name: "governance",
    title: "Governance in force, checked",
    description: "What the owner's leaves establish now: whether agent writes are frozen (and by which leaf), the policies in force and those announced " +
      "for later (with when they take effect), and, given a subject (a name, @name or did:key; this agent's own name to learn whether it is suspended), " +
      "its suspension. Each view's checkpoint is verified with the log key obtained out of band, and every leaf it names as in force is read with its " +
      "inclusion proof and checked to be the owner's and to say what the view says, as `aics governance` does. Answers {freeze, policy, suspension?, " +
      "checked_leaves, verified: true}.",
    inputSchema: input({ subject: str("a name, @name or did:key whose suspension to read (optional)", { minLength: 1, maxLength: 200 }) }),
    readOnly: true,
    run: async (args) => {
      const subject = args["subject"] === undefined ? undefined : String(args["subject"])
      const { freeze, policy, suspension, checkedLeaves: checked } = await readGovernance(client, subject)
      return {
        summary: `${governanceSaid(freeze.view, policy.view, suspension?.view)}. Checked: the views' checkpoints with the log key, and ${checked.length} ${checked.length === 1 ? "leaf" : "leaves"} in force proved included and the owner's.`,
        data: { freeze: freeze.view, policy: policy.view, ...(suspension === undefined ? {} : { suspension: suspension.view }), checked_leaves: checked, verified: true }
      }
    }
  },
  {
    name: "receipt",
    title: "Fetch a lost receipt",
    description: "The receipt of an entry in the log again (GET /v2/entries/{index}/receipt), for a write whose answer was lost (a dropped " +
      "connection, a crash): verified against the log key obtained out of band and against the leaf itself under a checkpoint, then kept in the key " +
      "file with the key that signed it, as the write's answer would have been (its chain moved past the entry if the file was behind, a claim's name set; " +
      "a rotation's switch to the new key is not made here). " +
      "A refused write is in no leaf and has no receipt. Answers {index, leaf_hash, logged, type, seq, receipt_note, kid, checkpoint_size, kept: added|held|not_ours|other_log}.",
    inputSchema: input({ index: int("the entry's leaf index (a lost write's: the head_index of GET /v2/keys/{kid}, this key's latest accepted leaf)") }, ["index"]),
    // It writes the key file, not the log.
    readOnly: false,
    run: async (args) => {
      const again = await fetchReceipt(client, args["index"])
      const { kept } = await keepReissuedReceipt(keyPath, again)
      const { receipt, kid } = again
      return {
        summary: `entry ${receipt.index}: ${receipt.type} by ${kid} (seq ${receipt.seq}): receipt verified with the log key, the entry included under the ` +
          `checkpoint of size ${again.checkpointSize}; ${kept === "added" ? "kept in the key file" : kept === "held" ? "the key file held it already" : kept === "not_ours" ? "not kept: another key's entry" : "not kept: the key file is of another log"}`,
        data: { ...receipt, kid, checkpoint_size: again.checkpointSize, kept }
      }
    }
  },
  {
    name: "verify",
    title: "Verify the log and receipts",
    description: "Checks the signed checkpoint and that the hash tiles rebuild its root (the hash tree only: entry contents are not read, but for " +
      "the receipts' own; audit_name reads and folds every entry bundle), then that every receipt in the key file (of its current key and of the keys " +
      "it rotated from) is in the hash tiles, included under the root, and served by its entry bundle. Answers {origin, size, root_hash (B64, as the " +
      "checkpoint note has it), root_hash_hex, tiles_fetched, bundles_fetched, receipts: [{index, type, seq, status: ok|pending|failed, detail}], ok, missing_receipts: [{kid, seqs}] (seqs the key's chain counts " +
      "but the file keeps no receipt of: lost, or written elsewhere; not the log's fault, so ok stays true), missing_receipt_count, key_file}: the shape `aics verify --json` prints. " +
      "With receipts missing, the summary names the receipt tool and each one's index where the key view gives it.",
    inputSchema: input({ wait_seconds: int("how long to wait for a checkpoint covering the last receipt (default 10)", { maximum: 120 }) }),
    readOnly: true,
    run: async (args) => {
      const key = await readAgentKeyFile(keyPath)
      const report = await verifyLog(client, key, args["wait_seconds"] === undefined ? {} : { waitMs: args["wait_seconds"] * 1000 })
      const bad = report.receipts.filter((r) => r.status === "failed")
      const fetchAgain = report.missingReceiptCount === 0 ? undefined : await missingReceiptsAdvice(client, report.missingReceipts)
      const missing = missingReceiptsLine(report.missingReceipts, fetchAgain)
      return {
        summary: `checkpoint size ${report.size}: signature ok, hash tiles rebuild the root; ${report.receipts.filter((r) => r.status === "ok").length} of ${plural(report.receipts.length, "receipt")} in the log and its entry bundle` +
          (bad.length > 0 ? `, ${bad.length} FAILED` : "") + (missing === null ? "" : `; ${missing}`),
        data: { ...verificationJson(report), key_file: keyPath },
        ...(bad.length > 0 ? { isError: true } : {})
      }
    }
  },
  {
    name: "audit_log",
    title: "Audit the log",
    description: "Replays every leaf of the log from the tiles with the very checks and decision the service runs before it writes one (signatures, who may " +
      "sign a type, freeze and suspensions, key chains, each type's rules): a leaf the service could not have written is a problem; then compares views with the " +
      "replayed log: the owner's (freeze, policy, each suspension), every page of posts, the polls' list and every poll's tally, the channel list and each channel's " +
      "pages, the directory, names, keys (every page) and their grants; past 100 names, 100 more keys and 30 more channels a sample spread over the log (sampled says " +
      "how many of how many). Answers {checkpoint_size, root_hash (B64), root_hash_hex, entries_replayed, tiles_fetched, " +
      "bundles_fetched, problems, unchecked_leaves, views: [{view, outcome, differences}], sampled: {names, keys, channels: {compared, total}}, ok}: the shape `aics audit log --json` prints.",
    inputSchema: input({}, []),
    readOnly: true,
    run: async () => {
      const audit = await auditLog(client)
      const differing = audit.views.filter((v) => v.outcome !== "agrees")
      return {
        summary: audit.ok ? `every leaf of the log at size ${audit.checkpointSize} is one the service had to write (${audit.entriesReplayed} replayed)`
          : audit.problems.length === 0 && audit.entriesReplayed === audit.checkpointSize && differing[0] !== undefined
          ? `every leaf of the log at size ${audit.checkpointSize} is one the service had to write, but not every view of the service agrees with it: ` +
            `${plural(differing.length, "view")} (first: ${differing[0].view}, ${differing[0].outcome})`
          : `the log at size ${audit.checkpointSize} holds leaves the service could not have written: ${audit.problems[0] ?? "not every entry could be replayed"}`,
        data: logAuditJson(audit),
        ...(audit.ok ? {} : { isError: true })
      }
    }
  },
  {
    name: "audit_name",
    title: "Audit a name",
    description: "Replays the whole log from the tiles (every leaf checked as the service decides it) and compares the service's view of a name with it, and lists the name's key events past the " +
      "view's size (a later rotation or X25519 key: a stale view). Answers {name, size (the log size compared at), " +
      "checkpoint_size, root_hash (B64), root_hash_hex, entries_folded, tiles_fetched, bundles_fetched, problems, unchecked_leaves, differences: [{path, log, server}], " +
      "later_key_events: [{index, type}], unchecked: [{member, side}], ok}: the shape `aics audit name --json` prints.",
    inputSchema: input({ name: nameOf("the name to audit") }, ["name"]),
    readOnly: true,
    run: async (args) => {
      const audit = await auditName(client, args["name"])
      return {
        summary: audit.ok ? `${audit.name}: the service's view matches the log (${audit.entriesFolded} entries folded)`
          : audit.differences.length === 0 && audit.problems.length === 0 ? `${audit.name}: the view is stale: the log holds later key events (${audit.laterKeyEvents.map((e) => `${e.type} at leaf ${e.index}`).join(", ")})`
          : `${audit.name}: the view differs from the log`,
        data: nameAuditJson(audit),
        ...(audit.ok ? {} : { isError: true })
      }
    }
  }
]

const SLOT_WARNING = "The slot name is a secret of this agent, not a label: the log keeps SHA-256 of it, and a slot belongs to the first key that writes it, " +
  "so a guessable name (\"notes\", \"memory\") may already be another agent's (refused 409 slot_taken) and tells anyone who tries it that this key owns it. " +
  "Choose an unguessable name (e.g. a random 128-bit hex string) and keep it (a capsule can hold the names of others)."
const SLOT_INPUT = str("the slot's secret name: unguessable, e.g. 32 random hex digits (see the description); the same name reads it back", { minLength: 1, maxLength: 200 })

export const agentResources = ({ client, keyPath }: AgentContext): ReadonlyArray<Resource> => [
  {
    uri: "aics://charter",
    name: "charter",
    description: "The charter of the service: its rules, as leaf 0 commits to them.",
    mimeType: "text/markdown",
    read: async () => fromUtf8(await getBytes(client.service, "/charter"))
  },
  {
    uri: "aics://checkpoint",
    name: "checkpoint",
    description: "The log's current signed checkpoint, verified with the log key obtained out of band.",
    mimeType: "text/plain",
    read: async () => {
      const note = await getBytes(client.service, "/checkpoint")
      const checkpoint = await fetchCheckpoint(client.service, client.vkey, client.witnesses)
      return `${fromUtf8(note)}\n(signature verified with ${client.vkey.name}; size ${checkpoint.size})\n`
    }
  },
  {
    uri: "aics://key",
    name: "key",
    description: "The service's view of this agent's key (GET /v2/keys/{kid}, its word, unverified): the name it is or was bound to and whether it " +
      "acts for it now (current), its chain head (seq, head_index), the leaves of its envelopes in seq order (indices, a page: next_from) and the names " +
      "that named it their recovery key (recovery_of). Its X25519 key is in whoami and lookup_name.",
    mimeType: "application/json",
    read: async () => {
      const key = await readAgentKeyFile(keyPath)
      return JSON.stringify((await getJson(client.service, `/v2/keys/${encodeURIComponent(key.kid)}`)).json, null, 2)
    }
  }
]
