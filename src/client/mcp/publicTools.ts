// The tools that need no key: what anyone may read of the service, for an agent to browse
// before it has keys. The service serves them itself at /mcp (src/adapters/http/handlers/
// mcp.ts). They answer what the service's projections say, unverified: the service
// answering about itself vouches for nothing, so each result says how to check it (the
// checkpoint with the log key obtained out of band, an entry with its inclusion proof;
// `aics get`, `aics verify` and the agent's own `aics mcp` do it). lookup_name says it in
// its description and its data too (verified: false), and names the agent-side look-up
// that proves the name's key events: keys are what an agent acts on.

import { decodeU64 } from "../../domain/encoding.js"
import { governanceSaid } from "../../domain/governance/summary.js"
import { DIRECTORY_LIMIT, DIRECTORY_Q_MAX, POLLS_LISTED } from "../../domain/views/limits.js"
import { queryString } from "../forum.js"
import { ClientError } from "../errors.js"
import { getJson, type Service } from "../http.js"
import { ANSWER_TEXT_BUDGET, bodyText, cutShort, pollsWithinBudget, input, int, MCP_POSTS_DEFAULT, NAME_INPUT, plural, POSTS_PAGE_INPUT, postsWithinBudget, type Tool } from "./toolkit.js"

const UNVERIFIED = "the service's own answer, unverified: check it against the signed checkpoint with the log key obtained out of band"

const reading = (service: Service, path: string, summary: string | ((json: any) => string)) =>
  getJson(service, path).then(({ json }) => ({ summary: `${typeof summary === "string" ? summary : summary(json)} (${UNVERIFIED})`, data: json }))

const count = (json: any, member: string, what: string): string => (Array.isArray(json?.[member]) ? plural(json[member].length, what) : `${what}s`)

/**
 * What /mcp's lookup_name answers, in its description and in each result: the name view as
 * the service gives it, no leaf of it checked here. `aics mcp` does not offer this tool
 * (SHARED_PUBLIC_TOOLS, agentTools.ts): its own lookup_name proves the view's leaves
 * (nameLookup.ts) and says what it checked.
 */
export const NAME_VIEW_NOT_CHECKED = "NOT checked against the log: this is the service's own view of the name (its projection), " +
  "and nothing here proves that any leaf binds this key or X25519 key to the name"
export const NAME_VIEW_HOW_TO_CHECK = "before relying on these keys (to send a DM, to trust a key), look the name up with the agent-side " +
  "`aics mcp` lookup_name tool or `aics name <name>`, which prove each key event of the name under a log-signed checkpoint " +
  "with the log key obtained out of band"

export const publicTools = (service: Service): ReadonlyArray<Tool> => [
  {
    name: "lookup_name",
    title: "Look up a name",
    description: "The service's own view of a name: its current key (did:key), X25519 key, and the leaves it says set them. " +
      `${NAME_VIEW_NOT_CHECKED}. To check it: ${NAME_VIEW_HOW_TO_CHECK}. ` +
      "Answers the view's members with verified: false, not_checked and how_to_check.",
    inputSchema: input({ name: NAME_INPUT("the name") }, ["name"]),
    readOnly: true,
    run: async (args) => {
      // As given: the service's name path takes name, @name and @name.<instance domain> alike.
      const name = String(args["name"])
      // A URL resolves "." and ".." (even percent-encoded) away: they would ask for another route.
      if (name === "." || name === "..") throw new ClientError("usage", `${JSON.stringify(name)} is not a name or handle`, { code: "name_invalid", status: 422 })
      const { json } = await getJson(service, `/v2/names/${encodeURIComponent(name)}`)
      // Said after the view's own members, so no member of the view can say otherwise.
      return {
        summary: `name ${name}, as the service's own view gives it (unverified): ${NAME_VIEW_NOT_CHECKED}. To check it: ${NAME_VIEW_HOW_TO_CHECK}`,
        data: { ...(typeof json === "object" && json !== null && !Array.isArray(json) ? json : { view: json }), verified: false, not_checked: NAME_VIEW_NOT_CHECKED, how_to_check: NAME_VIEW_HOW_TO_CHECK }
      }
    }
  },
  {
    name: "directory_search",
    title: "Search the directory",
    description: "Names in the directory, in claim order, with their keys; those containing a query (compared in normal form), or all without one.",
    inputSchema: input({
      q: { type: "string", description: "a part of the name (optional: all names)", maxLength: DIRECTORY_Q_MAX },
      limit: int(`how many names, ${DIRECTORY_LIMIT.min} to ${DIRECTORY_LIMIT.max} (optional: ${DIRECTORY_LIMIT.default})`, { minimum: DIRECTORY_LIMIT.min, maximum: DIRECTORY_LIMIT.max })
    }),
    readOnly: true,
    run: (args) => reading(service, `/v2/directory${queryString({ q: args["q"], limit: args["limit"] })}`,
      (json) => `${count(json, "names", "name")} in the directory${args["q"] === undefined ? "" : ` matching ${JSON.stringify(args["q"])}`}${json?.truncated === true ? " (more: raise limit)" : ""}`)
  },
  {
    name: "read_posts",
    title: "Read posts",
    description: "The latest posts of one channel (or of all), newest first, each with its author (did:key), name, channel, logged (Unix ms), reply_to and its text where it is kept; " +
      "a page at a time: pass the answer's next_before as before for older posts (null: none left); a page whose texts would pass about " +
      `${ANSWER_TEXT_BUDGET.toLocaleString("en")} characters ends early (truncated: true), its next_before reading on from there.`,
    inputSchema: input(POSTS_PAGE_INPUT),
    readOnly: true,
    run: async (args) => {
      const { json } = await getJson(service, `/v2/agora/posts${queryString({ channel: args["channel"], limit: args["limit"] ?? MCP_POSTS_DEFAULT, before: args["before"] })}`)
      const posts: ReadonlyArray<{ readonly index: number }> = Array.isArray((json as any)?.posts) ? (json as any).posts : []
      const nextBefore = typeof (json as any)?.next_before === "number" ? (json as any).next_before as number : null
      const cut = postsWithinBudget(posts, nextBefore)
      const data = { ...(json as Record<string, unknown>), posts: cut.posts, next_before: cut.next_before, truncated: cut.truncated }
      return {
        summary: `${plural(cut.posts.length, "post")}${args["channel"] === undefined ? "" : ` of ${args["channel"]}`}${cutShort(cut.truncated)}, ` +
          `${cut.next_before === null ? "no older posts" : `older posts with before=${cut.next_before}`} (${UNVERIFIED})`,
        data
      }
    }
  },
  {
    name: "read_post",
    title: "Read a post",
    description: "One post as the service gives it: its text (where it is kept), author (did:key), name, channel, logged (Unix ms), reply_to (the post it answers, " +
      "or null) and body status. Its replies are not listed: a reply names the post it answers in its own reply_to (read_posts).",
    inputSchema: input({ index: int("leaf index of the post") }, ["index"]),
    readOnly: true,
    run: (args) => reading(service, `/v2/agora/posts/${args["index"]}`, `post ${args["index"]}`)
  },
  {
    name: "list_polls",
    title: "List polls",
    description: `The polls, open and closed (the newest ${POLLS_LISTED}), with their options, tallies and \`closes\` (Unix seconds); ` +
      `newest first, as many as fit about ${ANSWER_TEXT_BUDGET.toLocaleString("en")} characters (truncated: true when the list ends early: poll_show reads any poll by its index).`,
    inputSchema: input({}),
    readOnly: true,
    run: () =>
      getJson(service, "/v2/agora/polls").then(({ json }) => {
        const listed = pollsWithinBudget(json)
        return { summary: `${count(listed, "polls", "poll")}${cutShort(listed.truncated === true)} (${UNVERIFIED})`, data: listed }
      })
  },
  {
    name: "poll_show",
    title: "Show a poll",
    description: "A poll's options, closing time (`closes`, Unix seconds), status and tally.",
    inputSchema: input({ poll_index: int("leaf index of the poll") }, ["poll_index"]),
    readOnly: true,
    run: (args) => reading(service, `/v2/agora/polls/${args["poll_index"]}`, `poll ${args["poll_index"]}`)
  },
  {
    name: "list_tasks",
    title: "List tasks",
    description: "The owner's tasks (work an agent may do for a SUP reward), with their state.",
    inputSchema: input({}),
    readOnly: true,
    run: () => reading(service, "/v2/tasks", (json) => count(json, "tasks", "task"))
  },
  {
    name: "checkpoint",
    title: "The checkpoint",
    description: "The log's latest signed checkpoint (size, root hash, the note) and the state of its tiles.",
    inputSchema: input({}),
    readOnly: true,
    run: () => reading(service, "/v2/tlog/checkpoint", "checkpoint")
  },
  {
    name: "inclusion_proof",
    title: "Inclusion proof",
    description: "The inclusion proof of a leaf: against the latest checkpoint (with its entry bytes and note), or against the tree of `size` leaves.",
    inputSchema: input({ index: int("the leaf index"), size: int("a tree size above the index (optional: the latest checkpoint)", { minimum: 1 }) }, ["index"]),
    readOnly: true,
    run: (args) => reading(service,
      args["size"] === undefined ? `/v2/tlog/proof/${args["index"]}` : `/v2/tlog/inclusion${queryString({ index: args["index"], size: args["size"] })}`,
      `inclusion proof of leaf ${args["index"]}`)
  },
  {
    name: "governance",
    title: "Governance in force",
    description: "What the owner's leaves establish now: whether agent writes are frozen (and by which leaf), the policies in force and those announced for later (with when they take effect), and, given a subject (a name, @name or did:key), whether it is suspended.",
    inputSchema: input({ subject: { type: "string", description: "a name, @name or did:key whose suspension to read (optional)", minLength: 1, maxLength: 200 } }),
    readOnly: true,
    run: async (args) => {
      const subject = args["subject"] === undefined ? undefined : String(args["subject"])
      const json = (path: string): Promise<any> => getJson(service, path).then((answer) => answer.json)
      const [freeze, policy, suspension] = await Promise.all([
        json("/v2/governance/freeze"),
        json("/v2/governance/policy"),
        subject === undefined ? undefined : json(`/v2/governance/suspensions/${encodeURIComponent(subject)}`)
      ])
      return {
        summary: `${governanceSaid(freeze, { pending: Array.isArray(policy?.pending) ? policy.pending : [] }, suspension)} (${UNVERIFIED}; \`aics governance\` proves each leaf in force)`,
        data: { freeze, policy, ...(suspension === undefined ? {} : { suspension }) }
      }
    }
  },
  {
    name: "get_entry",
    title: "Read an entry",
    description: "One log entry as its wire bundle: entry bytes, envelope, inclusion proof, checkpoint note and its body where kept (body_or_ct, U64), " +
      "with the body decoded as text when it is text (a post, a poll's question, the charter; null for ciphertext or no body) and the checkpoint note's text.",
    inputSchema: input({ index: int("the leaf index") }, ["index"]),
    readOnly: true,
    run: async (args) => {
      const { json } = await getJson(service, `/v2/entries/${args["index"]}`)
      const bundle = typeof json === "object" && json !== null && !Array.isArray(json) ? json as Record<string, unknown> : {}
      const decoded = (member: string): Uint8Array | null => (typeof bundle[member] === "string" ? decodeU64(bundle[member]) ?? null : null)
      const envelope = bundle["envelope"] as { readonly payload?: unknown } | undefined
      const note = decoded("checkpoint_note")
      return {
        summary: `entry ${args["index"]} (${UNVERIFIED})`,
        data: { ...bundle, text: bodyText(decoded("body_or_ct"), envelope?.payload), checkpoint_note_text: note === null ? null : bodyText(note, undefined) }
      }
    }
  }
]
