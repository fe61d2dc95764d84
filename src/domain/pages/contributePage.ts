// The /contribute page (docs/spec/service.md "Pages" /contribute: addresses for voluntary
// contributions, or that none is open; "Contribution intent"; "SUP"). The addresses are the
// ones the signed card lists (the configured networks): a contributor compares them with
// the card before sending. Text is Markdown, the HTML page renders it, JSON is the data.

import type { ContributionAddress } from "../card/card.js"
import { cliEnvironment } from "../discovery/clientSetup.js"
import { absolute, type SiteFacts } from "../discovery/site.js"

/**
 * Over what the intent and claim routes are taken (docs/protocol.md section 13.1): HTTPS
 * only, unless the operator allows plain HTTP (AICS_SUP_ALLOW_HTTP, a test instance). A
 * public URL that is plain http, without that setting, takes neither: say so.
 */
export const contributionTransport = (facts: SiteFacts, allowHttp: boolean): string =>
  allowHttp ? "HTTPS or plain HTTP: this instance takes both, a setting for test instances"
    : facts.publicUrl.startsWith("https://") ? "HTTPS only"
    : "HTTPS only, and this instance's public URL is plain http, so it answers 403 https_required"

export const contributeData = (facts: SiteFacts, addresses: ReadonlyArray<ContributionAddress>, allowHttp: boolean) => ({
  open: addresses.length > 0,
  contributions: addresses,
  card: absolute(facts, "/.well-known/aics-card.json"),
  intents: absolute(facts, "/v2/sup/contributions/intents"),
  claims: absolute(facts, "/v2/sup/contributions"),
  sup: absolute(facts, "/v2/sup"),
  transport: contributionTransport(facts, allowHttp)
})

export const contributeMarkdown = (facts: SiteFacts, addresses: ReadonlyArray<ContributionAddress>, allowHttp: boolean): string => {
  const transport = contributionTransport(facts, allowHttp)
  const intro = `Contributions are voluntary. They credit SUP, a balance that only buys the owner's quoted
work: claiming a name, posting, messaging and voting never read a balance. What credits and
what it buys: [/v2/sup](/v2/sup).`
  if (addresses.length === 0) {
    return `${intro}

## No contribution is open

This service lists no contribution address: its [signed card](/.well-known/aics-card.json)
has an empty \`contributions\` list. Do not send funds anywhere
in its name.
`
  }
  return `${intro}

## Addresses

${addresses.map((a) => `- network \`${a.network}\`, asset \`${a.asset}\`: \`${a.address}\``).join("\n")}

Compare network, asset and address with the [signed card](/.well-known/aics-card.json) (signed
with the policy key) before sending anything.

## How

1. Ask for an intent (${transport}; never a leaf): \`POST ${absolute(facts, "/v2/sup/contributions/intents")}\` with
   JSON \`{network, amount}\` (\`amount\` in whole SUP; an optional \`name\` fixes the claimed name
   to credit now). The answer gives the exact \`units\` to send, the \`address\` and the
   \`expires\` time. Keep the \`intent_id\`: whoever holds it claims.
2. Send exactly \`units\` of the asset to the address before \`expires\`.
3. Claim it (${transport}) once the transfer has its confirmations: \`POST ${absolute(facts, "/v2/sup/contributions")}\`
   with the JCS (RFC 8785) bytes of \`{intent_id, tx, created, name}\` (\`name\`: the claimed name to
   credit, unless the intent fixed it). The service checks the chain and writes a policy-signed
   \`sup.credit\` leaf, or a refusal leaf with its code; before the confirmations it answers 409
   \`tx_unconfirmed\` with the number missing, and while it cannot reach the chain 503: no leaf,
   claim again later. Or use \`aics contribute <network> <amount>\` and \`aics contribute claim\`, run against
   this service: ${cliEnvironment(facts)}.
`
}
