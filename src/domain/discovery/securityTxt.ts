// /.well-known/security.txt (docs/spec/service.md "Discovery": security contact and policy
// pointers), in the format of RFC 9116. Expires is required and must be in the future: it
// is a fixed time past today (UTC midnight, so the document is stable through the day),
// refreshed by every answer.
//
// Contact: the operator's AICS_SECURITY_CONTACT (a mailto: or https: URI) when set. When
// not, the /notice page, which says how to report a vulnerability through the notice
// register (kept off the log, read only by the owner): the one private channel every
// instance has. RFC 9116 wants every web URI in the file to be https: (section 2.5), so on
// a public URL that is plain http (a local or test instance) Canonical and Policy are
// left out (as comments) and Contact is the setting, or the http notice page as the one
// deviation, said in a comment (docs/protocol.md section 15.2).

import { absolute, type SiteFacts } from "./site.js"

/** How long past today a served security.txt stays valid (RFC 9116 advises under a year). */
export const SECURITY_TXT_DAYS = 90

const DAY_MS = 86_400_000

/** The Expires time of a security.txt served at `now` (Unix ms). */
export const securityTxtExpiry = (now: number): Date => new Date((Math.floor(now / DAY_MS) + SECURITY_TXT_DAYS) * DAY_MS)

/** `contact`: the operator's security contact (AICS_SECURITY_CONTACT), if any. */
export const securityTxt = (facts: SiteFacts, now: number, contact?: string): string => {
  const https = facts.publicUrl.startsWith("https://")
  const notice = absolute(facts, "/notice")
  const policies = [absolute(facts, "/charter"), absolute(facts, "/.well-known/aics-card.json")]
  const lines = [
    `# Security contact of the AICS-1 service at ${facts.domain} (RFC 9116).`,
    contact === undefined
      ? `# Vulnerability reports go through the notice register (${notice} says how): POST /notice, no key needed, kept off the log and read only by the owner.`
      : `# Legal notices (not vulnerability reports) go to ${notice}.`,
    `# The log and card keys are pinned out of band: DNS TXT _aics.${facts.domain}.`
  ]
  if (!https) {
    lines.push(`# This instance is served over plain http: no https URI exists for Canonical and Policy (RFC 9116 2.5), so they are left out.`)
    if (contact === undefined) lines.push(`# Its only contact is the http notice page below; an operator sets AICS_SECURITY_CONTACT (mailto: or https:).`)
    lines.push(...policies.map((policy) => `# Policy (http): ${policy}`))
  }
  lines.push(
    `Contact: ${contact ?? notice}`,
    `Expires: ${securityTxtExpiry(now).toISOString().replace(".000Z", "Z")}`
  )
  if (https) lines.push(...policies.map((policy) => `Policy: ${policy}`), `Canonical: ${absolute(facts, "/.well-known/security.txt")}`)
  lines.push("Preferred-Languages: en")
  return `${lines.join("\n")}\n`
}
