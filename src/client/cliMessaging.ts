// The aics commands of messaging: grant, revoke, dm, inbox, capsule put/get.

import { capsuleGet, capsulePut } from "./capsules.js"
import { countArgument, type Invocation } from "./cliArgs.js"
import { keyPathOf, logClient, written, type Env, type Outcome } from "./cliShared.js"
import { grant, revokeGrant } from "./grants.js"
import { namesAtLeaves } from "./forum.js"
import { readInbox, sendDm } from "./messaging.js"
import { someText } from "./payloads.js"
import { unixSecondsByService } from "./serviceClock.js"

const optionalCount = (text: string | undefined, what: string): number | undefined =>
  text === undefined ? undefined : countArgument(text, what)

export const grantCommand = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const limit = optionalCount(inv.options.limit, "--limit")
  const client = await logClient(inv, env)
  // --until as aics admin's times: Unix seconds or +SECONDS, in the future by the service's
  // clock (serviceClock.ts), which judges the grant: a slow clock here would sign an end
  // already past, a fast one a grant longer than asked.
  const until = inv.options.until === undefined ? undefined : await unixSecondsByService(client, inv.options.until, "--until", { future: true })
  const terms = { limit, until }
  const { sender, result, inForce } = await grant(client, keyPathOf(inv, env), inv.args[0]!, terms)
  const who = sender === "*" ? "anyone" : sender
  const entries = (indices: ReadonlyArray<number>) => `${indices.length === 1 ? "entry" : "entries"} ${indices.join(", ")}`
  if (result === null) {
    return {
      lines: [`nothing written: ${who} may already send direct messages (${entries(inForce)} in force, no limit and no end; aics revoke <index> ends it)`],
      json: { written: false, sender, in_force: inForce }
    }
  }
  const scope = [terms.limit === undefined ? [] : [`at most ${terms.limit} messages`], terms.until === undefined ? [] : [`until ${new Date(terms.until * 1000).toISOString()}`]].flat()
  const outcome = written(
    result,
    (index) => `granted ${who} direct messages${scope.length === 0 ? "" : ` (${scope.join(", ")})`} as entry ${index}`,
    { sender, limit: terms.limit ?? null, until: terms.until ?? null, in_force_before: inForce }
  )
  // An earlier grant to the same sender stays in force beside the new one until revoked.
  return result._tag === "Accepted" && inForce.length > 0
    ? { ...outcome, lines: [...outcome.lines, `${entries(inForce)} to ${who} ${inForce.length === 1 ? "stays" : "stay"} in force as well (aics revoke <index> ends one)`] }
    : outcome
}

export const revoke = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const grantIndex = countArgument(inv.args[0]!, "the grant index")
  const result = await revokeGrant(await logClient(inv, env), keyPathOf(inv, env), grantIndex)
  return written(result, (index) => `revoked grant ${grantIndex} as entry ${index}`, { grant_index: grantIndex })
}

export const dm = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const [name, text] = inv.args as [string, string]
  someText(text, "the message")
  const sent = await sendDm(await logClient(inv, env), keyPathOf(inv, env), name, text)
  return written(
    sent.result,
    (index) => `sent an encrypted message to ${sent.to.name} as entry ${index} (grant ${sent.grantIndex}, key of entry ${sent.to.x25519Index})`,
    { to: sent.to.kid, to_name: sent.to.name, grant_index: sent.grantIndex, x25519_index: sent.to.x25519Index }
  )
}

export const inbox = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const client = await logClient(inv, env)
  const box = await readInbox(client, keyPathOf(inv, env), { unreadOnly: inv.options.unread === true })
  // A sender is shown by the name its key acted for when it signed, with the did:key that
  // signed: none for a key a rotation had retired by then (a thief's key, perhaps).
  const names = await namesAtLeaves(client, box.messages.map((m) => ({ kid: m.from, index: m.index })))
  const sender = (from: string | null, name: string | null) => from === null ? "(unknown sender)" : name === null ? from : `${name} (${from})`
  const lines = box.messages.map((m, i) =>
    "text" in m
      ? `#${m.index} from ${sender(m.from, names[i]!)}: ${m.text}`
      : `#${m.index} from ${sender(m.from, names[i]!)}: NOT READABLE (${m.error})`
  )
  const summary = `${box.messages.length} message${box.messages.length === 1 ? "" : "s"}${box.failed > 0 ? `, ${box.failed} not readable` : ""}`
  const messages = box.messages.map((m, i) => ({ ...m, from_name: names[i]! }))
  return { lines: [...lines, summary], json: { kid: box.kid, messages, failed: box.failed } }
}

export const capsule = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const [which, slotKey, text] = inv.args as [string, string, string | undefined]
  const client = await logClient(inv, env)
  const keyPath = keyPathOf(inv, env)
  if (which === "put") {
    const { slot, result } = await capsulePut(client, keyPath, slotKey, text!)
    return written(result, (index) => `stored an encrypted capsule in slot ${slot} as entry ${index}`, { slot })
  }
  const read = await capsuleGet(client, keyPath, slotKey)
  return {
    lines: [`slot ${read.slot}${read.index === null ? "" : ` (entry ${read.index})`}:`, read.text],
    json: { slot: read.slot, index: read.index, kid: read.kid, text: read.text }
  }
}
