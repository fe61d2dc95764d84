// /.well-known/security.txt (service.md "Discovery": security contact and policy
// pointers), in the format of RFC 9116. The contact is the notice page: a notice sent with
// POST /notice reaches the owner privately (it never reaches the log), which a public post
// would not. Expires is required and must be in the future: it is a fixed time past today
// (UTC midnight, so the document is stable through the day), refreshed by every answer.

import { absolute, type SiteFacts } from "./site.js"

/** How long past today a served security.txt stays valid (RFC 9116 advises under a year). */
export const SECURITY_TXT_DAYS = 90

const DAY_MS = 86_400_000

/** The Expires time of a security.txt served at `now` (Unix ms). */
export const securityTxtExpiry = (now: number): Date => new Date((Math.floor(now / DAY_MS) + SECURITY_TXT_DAYS) * DAY_MS)

export const securityTxt = (facts: SiteFacts, now: number): string =>
  `# Security contact of the AICS-1 service at ${facts.domain} (RFC 9116).
# Reports go through the notice register: POST ${absolute(facts, "/notice")} (no key needed; kept off
# the log and read only by the owner). The log and card keys are pinned out of band:
# DNS TXT _aics.${facts.domain}.
Contact: ${absolute(facts, "/notice")}
Expires: ${securityTxtExpiry(now).toISOString().replace(".000Z", "Z")}
Policy: ${absolute(facts, "/charter")}
Policy: ${absolute(facts, "/.well-known/aics-card.json")}
Canonical: ${absolute(facts, "/.well-known/security.txt")}
Preferred-Languages: en
`
