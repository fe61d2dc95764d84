// The aics commands of the public side and one's own status: posts, name, directory, poll
// create|show, vote, me. The work is the library's (forum.ts, nameLookup.ts); this file
// only turns arguments into calls and answers into lines.

import { isChannel } from "../domain/entries/fields.js"
import { countArgument, type Invocation } from "./cliArgs.js"
import { unixSecondsByService } from "./serviceClock.js"
import type { LogClient } from "./write.js"
import { keyPathOf, logClient, written, type Env, type Outcome } from "./cliShared.js"
import { usageError } from "./errors.js"
import { castVote, checkedPollJson, createPoll, pollChecked, pollNotChecked, pollQuestion, postsChecked, postsNotChecked, readDirectory, readMe, readPoll, readPostsPage } from "./forum.js"
import { lookupChecked, lookupName, lookupNotChecked, noX25519, resolvedNameJson, type RecoveryKey } from "./nameLookup.js"

const when = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z")

export const posts = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const limit = inv.options.limit === undefined ? undefined : countArgument(inv.options.limit, "--limit")
  const before = inv.options.before === undefined ? undefined : countArgument(inv.options.before, "--before")
  // As `aics post` does: a channel no post can be in is a wrong command line, not the service's 422.
  if (inv.args[0] !== undefined && !isChannel(inv.args[0])) throw usageError(`a channel is 1 to 63 of a-z 0-9 -, got ${JSON.stringify(inv.args[0])}`)
  const page = await readPostsPage(await logClient(inv, env), { channel: inv.args[0], limit, before })
  const list = page.posts
  const lines = list.map((p) =>
    `#${p.index} ${p.name ?? p.kid} in ${p.channel} at ${when(p.logged)}${p.reply_to === null ? "" : ` (reply to #${p.reply_to})`}: ${p.text ?? "(text hidden or not held)"}`)
  const more = page.next_before === null ? [] : [`older posts: aics posts${inv.args[0] === undefined ? "" : ` ${inv.args[0]}`} --before ${page.next_before}`]
  const checked = postsChecked(page)
  const notChecked = postsNotChecked()
  return {
    lines: [...lines, `${list.length} post${list.length === 1 ? "" : "s"}`, ...more, checked, notChecked],
    json: { posts: list, next_before: page.next_before, checkpoint_size: page.checkpoint_size, checked, not_checked: notChecked }
  }
}

/** The recovery line of `aics name`: the key, the claim that named it, whether it still stands (docs/protocol.md 10.1). */
const recoveryLine = (recovery: RecoveryKey | null | undefined): ReadonlyArray<string> => {
  if (recovery === undefined) return []
  if (recovery === null) return ["no recovery key"]
  const named = `recovery ${recovery.kid}${recovery.index === undefined ? "" : ` (named by entry ${recovery.index})`}`
  if (recovery.stands === undefined) return [named]
  return [recovery.stands
    ? `${named}: stands, it may move the name to a new key`
    : `${named}: no longer stands, it took a name of its own${recovery.boundIndex === undefined ? "" : ` at entry ${recovery.boundIndex}`} and moves no name`]
}

export const name = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const resolved = await lookupName(await logClient(inv, env), inv.args[0]!)
  return {
    lines: [
      resolved.tier === "secret"
        ? `${resolved.name}: secret-bound, spoken for by the service's policy key ${resolved.kid} (set by the claim at entry ${resolved.kidIndex}); it rests on the service's word`
        : `${resolved.name}: key ${resolved.kid} (set by the ${resolved.kidLeafType} at entry ${resolved.kidIndex})`,
      resolved.x25519Index === null ? noX25519(resolved) : `x25519 ${resolved.x25519U64} (set by entry ${resolved.x25519Index})`,
      lookupChecked(resolved),
      lookupNotChecked(resolved),
      ...recoveryLine(resolved.recovery)
    ],
    json: resolvedNameJson(resolved)
  }
}

export const directory = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const names = await readDirectory(await logClient(inv, env), inv.args[0])
  const lines = names.map((n) => `${String(n["name"])} (${String(n["tier"] ?? "key")}) ${String(n["kid"] ?? "")}`.trimEnd())
  return { lines: [...lines, `${names.length} name${names.length === 1 ? "" : "s"}`], json: { names } }
}

/** --closes: Unix seconds, or +SECONDS from the service's now (serviceClock.ts), as the log judges it; a day from now by default. */
const closesOf = (client: LogClient, text: string | undefined): Promise<number> => unixSecondsByService(client, text ?? "+86400", "--closes")

export const poll = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const client = await logClient(inv, env)
  if (inv.args[0] === "create") {
    const [, channel, question, ...options] = inv.args as [string, string, string, ...Array<string>]
    const closes = await closesOf(client, inv.options.closes)
    const result = await createPoll(client, keyPathOf(inv, env), { channel, question, options, closes })
    return written(result, (index) => `created poll ${index} in ${channel} (closes ${when(closes * 1000)}); vote with: aics vote ${index} <option>`, { closes })
  }
  const index = countArgument(inv.args[1]!, "the poll index")
  const checked = await readPoll(client, index)
  return {
    lines: [
      `poll ${index} in ${checked.channel}: ${pollQuestion(checked)}`,
      ...checked.options.map((o, i) => `  ${i}. ${o}: ${checked.tally[i]} vote${checked.tally[i] === 1 ? "" : "s"}`),
      `${checked.status}, closes ${when(checked.closes * 1000)}`,
      pollChecked(checked),
      pollNotChecked()
    ],
    json: { ...checkedPollJson(checked), checked: pollChecked(checked), not_checked: pollNotChecked() }
  }
}

export const vote = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const pollIndex = countArgument(inv.args[0]!, "the poll index")
  const option = countArgument(inv.args[1]!, "the option")
  const result = await castVote(await logClient(inv, env), keyPathOf(inv, env), pollIndex, option)
  return written(result, (index) => `voted for option ${option} of poll ${pollIndex} as entry ${index}`, { poll_index: pollIndex, option })
}

export const me = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const status = await readMe(await logClient(inv, env), keyPathOf(inv, env))
  return {
    lines: [
      status.name === null ? `${status.kid}: acts for no name (aics claim <name>)` : `${status.name} (${status.tier ?? "key"}): ${status.kid}`,
      `inbox: ${status.unread} unread of ${status.total}${status.earlier.total === 0 ? "" : ` (of them ${status.earlier.unread} unread of ${status.earlier.total} sent to keys this file rotated from)`}`,
      `balance: ${String(status.balance ?? 0)} SUP`
    ],
    json: status
  }
}
