// What a rotation leaves behind (docs/spec/profile.md section 5, key.rotate; docs/protocol.md
// section 9): the name, its X25519 key and new DMs move to the new key; the grants the old
// key signed do not (a DM must cite a grant signed by its recipient's current key), and its
// inbox and capsule slots stay the old key's (read on with the old key the file keeps:
// messaging.ts, capsules.ts). So after a rotation the agent re-grants, with its consent,
// the grants still in force, each with what is left of it (remaining messages, same end).

import { keysOfFile } from "./agentKey.js"
import { grant, grantsOf } from "./grants.js"
import { readAgentKeyFile } from "./keyFile.js"
import type { GrantTerms } from "./payloads.js"
import type { LogClient, WriteResult } from "./write.js"

export interface CarriedGrant {
  /** The old key's grant leaf. */
  readonly index: number
  readonly from: string
  readonly sender: string
  readonly terms: GrantTerms
}

const termsOf = (g: Record<string, unknown>): GrantTerms => ({
  ...(typeof g["limit"] === "number" ? { limit: Math.max(1, g["limit"] - Number(g["uses"] ?? 0)) } : {}),
  ...(typeof g["until"] === "number" ? { until: g["until"] } : {})
})

/**
 * The grants in force that the file's retired keys signed and its current key has not
 * signed again for the same sender: what a rotation left to re-grant.
 */
export const grantsToCarry = async (client: LogClient, keyPath: string): Promise<ReadonlyArray<CarriedGrant>> => {
  const [current, ...retired] = keysOfFile(await readAgentKeyFile(keyPath))
  // A grant to one of the file's own keys (taken before such grants became a usage error)
  // is not carried: the new key needs no leave to write to itself.
  const own = new Set([current!.kid, ...retired.map((key) => key.kid)])
  const already = new Set([...own, ...(await grantsOf(client, current!.kid)).filter((g) => g["in_force"] === true).map((g) => String(g["sender"]))])
  const carried: Array<CarriedGrant> = []
  for (const old of retired) {
    for (const g of await grantsOf(client, old.kid)) {
      const sender = String(g["sender"])
      if (g["in_force"] !== true || already.has(sender)) continue
      already.add(sender)
      carried.push({ index: Number(g["index"]), from: old.kid, sender, terms: termsOf(g) })
    }
  }
  return carried
}

/** Signs each carried grant again with the file's current key. */
export const carryGrants = async (
  client: LogClient,
  keyPath: string,
  grants: ReadonlyArray<CarriedGrant>
): Promise<ReadonlyArray<{ readonly carried: CarriedGrant; readonly result: WriteResult }>> => {
  const done: Array<{ carried: CarriedGrant; result: WriteResult }> = []
  for (const carried of grants) {
    // grantsToCarry left out every sender the current key has a grant in force for, so each is written.
    const { result } = await grant(client, keyPath, carried.sender, carried.terms)
    if (result !== null) done.push({ carried, result })
  }
  return done
}

/** What a rotation moves and what it leaves, in plain lines for the agent. */
export const rotationNotes = (name: string, oldKid: string, grants: ReadonlyArray<CarriedGrant>): ReadonlyArray<string> => [
  `moves to the new key: the name ${name}, its X25519 key (unchanged: nothing to publish again), and every DM sent from now on`,
  `stays with ${oldKid}: its inbox and capsule slots; aics inbox and aics capsule get keep reading them with the old key this file keeps (a slot it wrote takes no new writes from the new key)`,
  grants.length === 0
    ? "no grant to carry over: the old key had none in force"
    : `does not move: ${grants.length} grant${grants.length === 1 ? "" : "s"} in force signed by the old key (${grants.map((g) => `entry ${g.index} for ${g.sender}`).join(", ")}); until re-granted, those senders cannot DM the new key`
]
