// `aics contribute <network> <amount>` and `aics contribute claim <intent_id> <tx>`
// (docs/protocol.md 13.2, 13.3; the checks are contribute.ts's).

import { countArgument, type Invocation } from "./cliArgs.js"
import { logClient, type Env, type Outcome } from "./cliShared.js"
import { claimIntent, openIntent } from "./contribute.js"

const iso = (seconds: number) => new Date(seconds * 1000).toISOString()

const open = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const [network, amountText] = inv.args as [string, string]
  const amount = countArgument(amountText, "the amount")
  const intent = await openIntent(await logClient(inv, env), network, amount, inv.options.name)
  return {
    lines: [
      `intent ${intent.intent_id}: ${intent.amount} SUP${intent.name === null ? "" : ` for ${intent.name}`} on ${intent.network}`,
      `send exactly ${intent.units} units of ${intent.asset}`,
      `to ${intent.address}`,
      `by ${iso(intent.expires)} (asset and address checked against the signed card)`,
      `then: aics contribute claim ${intent.intent_id} <tx>${intent.name === null ? " --name <name>" : ""} (until ${iso(intent.claim_until)})`
    ],
    json: { ...intent, card_checked: true }
  }
}

const claim = async (inv: Invocation, env: Env): Promise<Outcome> => {
  const [, intentId, tx] = inv.args as [string, string, string]
  const outcome = await claimIntent(await logClient(inv, env), intentId, tx, { name: inv.options.name })
  switch (outcome._tag) {
    case "Credited":
      return {
        lines: [`credited ${outcome.amount} SUP to ${outcome.name}: sup.credit at entry ${outcome.index} (receipt and leaf verified)`],
        json: { credited: true, index: outcome.index, name: outcome.name, amount: outcome.amount, claim_hash: outcome.claimHash }
      }
    case "Refused":
      return {
        lines: [],
        json: { credited: false, index: outcome.index, code: outcome.code, claim_hash: outcome.claimHash, detail: outcome.detail },
        failure: `refused ${outcome.code}: sup.refusal at entry ${outcome.index} (receipt and leaf verified): ${outcome.detail}`
      }
    case "Later":
      return {
        lines: [],
        json: { credited: false, code: outcome.code, confirmations_missing: outcome.missing, retry_after: outcome.retryAfter, detail: outcome.detail },
        failure: `not yet (${outcome.code}, no leaf written): ${outcome.detail}${outcome.missing === null ? "" : ` [${outcome.missing} confirmations missing]`}${outcome.retryAfter === null ? "" : ` [retry after ${outcome.retryAfter} s]`}; claim again later`
      }
  }
}

export const contributeCommand = (inv: Invocation, env: Env): Promise<Outcome> => (inv.args[0] === "claim" ? claim(inv, env) : open(inv, env))
