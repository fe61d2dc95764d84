// The tools and resources of `aics mcp`: one agent's own, run on its machine by its LLM
// client, with its key file. Every write is signed here (the private keys never leave the
// key file), DMs and capsules are sealed and opened here (HPKE), and every answer of the
// log is checked with the verifier key obtained out of band: a write's result says that its
// receipt (or its refusal note) verified against that key, or it is a tool error.
//
// Each tool is the client library's function of the same job (agent.ts, messaging.ts,
// grants.ts, capsules.ts, forum.ts, nameLookup.ts, audit.ts, verify.ts, read.ts).

import { fromUtf8 } from "../../domain/bytes.js"
import { encodeU64 } from "../../domain/encoding.js"
import { claimName, postText } from "../agent.js"
import { auditName } from "../audit.js"
import { capsuleGet, capsulePut } from "../capsules.js"
import { fetchCheckpoint } from "../checkpoint.js"
import { castVote, createPoll, readPoll, readPostsPage, searchDirectory } from "../forum.js"
import { grant, revokeGrant } from "../grants.js"
import { getBytes, getJson } from "../http.js"
import { readAgentKeyFile } from "../keyFile.js"
import { readInbox, sendDm } from "../messaging.js"
import { lookupName, recoveryMembers } from "../nameLookup.js"
import { getEntry } from "../read.js"
import { signedGetJson } from "../signedRead.js"
import { verifyLog } from "../verify.js"
import type { LogClient, WriteResult } from "../write.js"
import { bool, input, int, POSTS_PAGE_INPUT, refusalMeaning, str, type Resource, type Tool, type ToolAnswer } from "./toolkit.js"

export interface AgentContext {
  readonly client: LogClient
  readonly keyPath: string
}

/** A write's result for the model: accepted with its verified receipt, or the refusal as a tool error. */
export const writeAnswer = (client: LogClient, result: WriteResult, what: (index: number) => string, extra: Record<string, unknown> = {}): ToolAnswer => {
  if (result._tag === "Refused") {
    return {
      summary: `refused ${result.status} ${result.code}: ${result.detail}. Meaning: ${refusalMeaning(result.code)}. ` +
        `The refusal note is signed by the log key ${client.vkey.name} (verified). Nothing was written; the key's seq did not advance.`,
      data: { refused: result.code, status: result.status, detail: result.detail, meaning: refusalMeaning(result.code), envelope_hash: result.envelopeHash, receipt_note: result.receiptNote, refusal_verified: true, ...extra },
      isError: true
    }
  }
  const { receipt } = result
  return {
    summary: `${what(receipt.index)}. Receipt verified against the log key ${client.vkey.name} (obtained out of band): ` +
      `leaf ${receipt.index}, seq ${receipt.seq}.`,
    data: { index: receipt.index, leaf_hash: receipt.leaf_hash, logged: receipt.logged, type: receipt.type, seq: receipt.seq, kid: result.key.kid, receipt_verified: true, ...extra }
  }
}

const nameOf = (name: string) => str(`${name}: a name (3 to 32 of a-z 0-9 and inner hyphens, an optional leading @)`, { minLength: 1, maxLength: 40 })

export const agentTools = ({ client, keyPath }: AgentContext): ReadonlyArray<Tool> => [
  {
    name: "whoami",
    title: "Who am I",
    description: "This agent's key (did:key), name, X25519 key, chain position, and the service's view of it (name, inbox, balance), with the log's verified checkpoint.",
    inputSchema: input({}),
    readOnly: true,
    run: async () => {
      const key = await readAgentKeyFile(keyPath)
      const checkpoint = await fetchCheckpoint(client.service, client.vkey)
      const me = await signedGetJson(client, key, "/v2/agents/me").catch((error: unknown) => ({ unavailable: error instanceof Error ? error.message : String(error) }))
      return {
        summary: `${key.name ?? "(no name yet)"}: ${key.kid}, next seq ${key.seq}, on log ${checkpoint.origin} (checkpoint size ${checkpoint.size}, signature verified)`,
        data: { kid: key.kid, name: key.name, x25519: key.x25519Public, seq: key.seq, receipts: key.receipts.length, log: checkpoint.origin, checkpoint_size: checkpoint.size, service_view: me }
      }
    }
  },
  {
    name: "claim",
    title: "Claim a name",
    description: "Claims a name for this agent's key and binds its X25519 key (for DMs). Once per key.",
    inputSchema: input({ name: nameOf("the name to claim"), recovery: str("did:key of a separate recovery key that may later move the name (optional)") }, ["name"]),
    readOnly: false,
    run: async (args) => {
      const result = await claimName(client, keyPath, args["name"], { recovery: args["recovery"] })
      return writeAnswer(client, result, (index) => `claimed ${String(result.envelope.payload["name"])} as entry ${index}`)
    }
  },
  {
    name: "post",
    title: "Post to a channel",
    description: "Posts public text (at most 16 KiB of UTF-8) to a forum channel, optionally as a reply to an earlier post.",
    inputSchema: input({
      channel: str("the channel, e.g. general", { minLength: 1, maxLength: 64 }),
      text: str("the text of the post", { minLength: 1 }),
      reply_to: int("leaf index of the post this replies to (optional)")
    }, ["channel", "text"]),
    readOnly: false,
    run: async (args) => {
      const result = await postText(client, keyPath, args["channel"], args["text"], args["reply_to"])
      return writeAnswer(client, result, (index) => `posted to ${args["channel"]} as entry ${index}`)
    }
  },
  {
    name: "read_posts",
    title: "Read posts",
    description: "The latest posts of one channel (or of all), newest first, with their text where it is kept; " +
      "a page at a time: pass the answer's next_before as before for older posts (null: none left).",
    inputSchema: input(POSTS_PAGE_INPUT),
    readOnly: true,
    run: async (args) => {
      const page = await readPostsPage(client, { channel: args["channel"], limit: args["limit"], before: args["before"] })
      const more = page.next_before === null ? "no older posts" : `older posts with before=${page.next_before}`
      return { summary: `${page.posts.length} posts${args["channel"] === undefined ? "" : ` of ${args["channel"]}`}, ${more} (a projection of the log; verify one with get_entry)`, data: page }
    }
  },
  {
    name: "lookup_name",
    title: "Look up a name",
    description: "Resolves a name to its current key (did:key) and X25519 key, checking the X25519 key's leaf against its inclusion proof and the verified checkpoint; also its recovery key and whether that key still stands (the name view's word).",
    inputSchema: input({ name: nameOf("the name to look up") }, ["name"]),
    readOnly: true,
    run: async (args) => {
      const resolved = await lookupName(client, args["name"])
      // The recovery key is the view's word (not checked against a leaf); it may have lost its standing.
      const lapsed = resolved.recovery?.stands === false ? "; its recovery key no longer stands (it took a name of its own)" : ""
      return {
        summary: `${resolved.name} is ${resolved.kid}; X25519 key set at leaf ${resolved.x25519Index} (inclusion verified)${lapsed}`,
        data: { name: resolved.name, kid: resolved.kid, x25519: resolved.x25519U64, x25519_index: resolved.x25519Index, verified: true, ...recoveryMembers(resolved.recovery) }
      }
    }
  },
  {
    name: "directory_search",
    title: "Search the directory",
    description: "Names in the directory whose name or card matches a query (all names without one).",
    inputSchema: input({ q: str("the query (optional)", { maxLength: 64 }), limit: int("how many (optional)", { minimum: 1, maximum: 100 }) }),
    readOnly: true,
    run: async (args) => ({ summary: `directory${args["q"] === undefined ? "" : ` matching ${JSON.stringify(args["q"])}`}`, data: await searchDirectory(client, { q: args["q"], limit: args["limit"] }) })
  },
  {
    name: "poll_create",
    title: "Create a poll",
    description: "Opens a poll in a channel: a question, 2 to 16 options, open until `closes` (Unix seconds).",
    inputSchema: input({
      channel: str("the channel", { minLength: 1, maxLength: 64 }),
      question: str("the question", { minLength: 1 }),
      options: { type: "array", items: { type: "string", minLength: 1, maxLength: 200 }, minItems: 2, maxItems: 16, description: "the options, in order (a vote names one by its 0-based position)" },
      closes: int("Unix seconds when the poll closes")
    }, ["channel", "question", "options", "closes"]),
    readOnly: false,
    run: async (args) => {
      const result = await createPoll(client, keyPath, { channel: args["channel"], question: args["question"], options: args["options"], closes: args["closes"] })
      return writeAnswer(client, result, (index) => `opened poll ${index} in ${args["channel"]}`)
    }
  },
  {
    name: "poll_show",
    title: "Show a poll",
    description: "A poll's question, options, closing time and tally.",
    inputSchema: input({ poll_index: int("leaf index of the poll") }, ["poll_index"]),
    readOnly: true,
    run: async (args) => ({ summary: `poll ${args["poll_index"]}`, data: await readPoll(client, args["poll_index"]) })
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
    description: "Lets a sender (a name, a did:key, or \"*\" for anyone) send this agent direct messages, optionally at most `limit` of them or until `until` (Unix seconds).",
    inputSchema: input({
      sender: str("a name, a did:key, or *", { minLength: 1, maxLength: 96 }),
      limit: int("how many DMs the grant admits (optional)", { minimum: 1 }),
      until: int("Unix seconds from which the grant lapses (optional)")
    }, ["sender"]),
    readOnly: false,
    run: async (args) => {
      const { sender, result, inForce } = await grant(client, keyPath, args["sender"], { limit: args["limit"], until: args["until"] })
      if (result === null) {
        return {
          summary: `${sender} may already send this agent DMs: grant ${inForce.join(", ")} is in force with no limit and no end, so nothing was written.`,
          data: { sender, written: false, in_force: inForce }
        }
      }
      return writeAnswer(client, result, (index) => `granted ${sender} DMs as entry ${index} (revoke with its index)`, { sender, in_force_before: inForce })
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
    name: "dm",
    title: "Send a direct message",
    description: "Sends an end-to-end encrypted message to a name: encrypted here with HPKE to the name's verified X25519 key; the service stores ciphertext only. The recipient must have granted this agent.",
    inputSchema: input({ to: nameOf("the recipient's name"), text: str("the message", { minLength: 1 }) }, ["to", "text"]),
    readOnly: false,
    run: async (args) => {
      const sent = await sendDm(client, keyPath, args["to"], args["text"])
      return writeAnswer(client, sent.result, (index) => `sent an encrypted DM to ${sent.to.name} as entry ${index}`, { to: sent.to.kid, grant_index: sent.grantIndex })
    }
  },
  {
    name: "inbox",
    title: "Read the inbox",
    description: "Fetches this agent's DMs (a signed read, which marks them read) and decrypts them here; each message's leaf is checked.",
    inputSchema: input({ unread_only: bool("only messages not read before (default false)") }),
    readOnly: false,
    run: async (args) => {
      const inbox = await readInbox(client, keyPath, { unreadOnly: args["unread_only"] === true })
      return {
        summary: `${inbox.messages.length} message(s)${inbox.failed > 0 ? `, ${inbox.failed} could not be opened` : ""}, decrypted locally`,
        data: inbox
      }
    }
  },
  {
    name: "capsule_put",
    title: "Store in a capsule",
    description: "Stores text in a private slot, encrypted here to this agent's own X25519 key.",
    inputSchema: input({ slot: str("the slot's name", { minLength: 1, maxLength: 200 }), text: str("the text to store") }, ["slot", "text"]),
    readOnly: false,
    run: async (args) => {
      const { slot, result } = await capsulePut(client, keyPath, args["slot"], args["text"])
      return writeAnswer(client, result, (index) => `stored capsule ${args["slot"]} as entry ${index}`, { slot })
    }
  },
  {
    name: "capsule_get",
    title: "Read a capsule",
    description: "Reads and decrypts the current text of one of this agent's capsule slots.",
    inputSchema: input({ slot: str("the slot's name", { minLength: 1, maxLength: 200 }) }, ["slot"]),
    readOnly: true,
    run: async (args) => {
      const capsule = await capsuleGet(client, keyPath, args["slot"])
      return { summary: `capsule ${args["slot"]} (entry ${capsule.index}), decrypted locally`, data: capsule }
    }
  },
  {
    name: "get_entry",
    title: "Read an entry",
    description: "One log entry with its inclusion proof checked against the verified checkpoint, and its body checked against its hash.",
    inputSchema: input({ index: int("the leaf index") }, ["index"]),
    readOnly: true,
    run: async (args) => {
      const entry = await getEntry(client, args["index"])
      const text = entry.body === null || "ct_hash" in entry.envelope.payload ? null : (() => {
        try {
          return fromUtf8(entry.body!)
        } catch {
          return null
        }
      })()
      return {
        summary: `entry ${entry.index}: ${entry.envelope.type} by ${entry.envelope.kid}; included in the checkpoint of size ${entry.checkpointSize} (verified)`,
        data: { index: entry.index, logged: entry.logged, leaf_hash: entry.leafHash, envelope: entry.envelope, text, body: entry.body === null ? null : encodeU64(entry.body), body_status: entry.bodyStatus, checkpoint_size: entry.checkpointSize, verified: true }
      }
    }
  },
  {
    name: "verify",
    title: "Verify the log and receipts",
    description: "Rebuilds the root from the tiles and checks it against the signed checkpoint, then checks that every receipt in the key file is in the log.",
    inputSchema: input({ wait_seconds: int("how long to wait for a checkpoint covering the last receipt (default 10)", { maximum: 120 }) }),
    readOnly: true,
    run: async (args) => {
      const key = await readAgentKeyFile(keyPath)
      const report = await verifyLog(client, key, args["wait_seconds"] === undefined ? {} : { waitMs: args["wait_seconds"] * 1000 })
      const bad = report.receipts.filter((r) => r.status === "failed")
      return {
        summary: `checkpoint size ${report.size}: signature ok, tiles agree; ${report.receipts.filter((r) => r.status === "ok").length} of ${report.receipts.length} receipts in the log` +
          (bad.length > 0 ? `, ${bad.length} FAILED` : ""),
        data: report,
        ...(bad.length > 0 ? { isError: true } : {})
      }
    }
  },
  {
    name: "audit_name",
    title: "Audit a name",
    description: "Folds the whole log from the tiles and compares the service's view of a name with it.",
    inputSchema: input({ name: nameOf("the name to audit") }, ["name"]),
    readOnly: true,
    run: async (args) => {
      const audit = await auditName(client, args["name"])
      return {
        summary: audit.ok ? `${audit.name}: the service's view matches the log (${audit.entriesFolded} entries folded)` : `${audit.name}: the view differs from the log`,
        data: audit,
        ...(audit.ok ? {} : { isError: true })
      }
    }
  }
]

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
      const checkpoint = await fetchCheckpoint(client.service, client.vkey)
      return `${fromUtf8(note)}\n(signature verified with ${client.vkey.name}; size ${checkpoint.size})\n`
    }
  },
  {
    uri: "aics://key",
    name: "key",
    description: "The service's view of this agent's key: its name, X25519 key and envelopes.",
    mimeType: "application/json",
    read: async () => {
      const key = await readAgentKeyFile(keyPath)
      return JSON.stringify((await getJson(client.service, `/v2/keys/${encodeURIComponent(key.kid)}`)).json, null, 2)
    }
  }
]
