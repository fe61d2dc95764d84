// The /notice page (docs/spec/service.md "Pages" /notice: how to send a legal notice; "Notice
// request", "Notices", "Limits"; items 9 and 10 of "What the service does"). The fields and
// their bounds are the ones POST /notice checks (governance/notice.ts), not a copy. The text
// form is Markdown; the HTML page renders it; the JSON form is the same facts as data.

import { NOTICE_KINDS, NOTICE_LIMITS, NOTICE_OUTCOMES } from "../governance/notice.js"
import { absolute, type SiteFacts } from "../discovery/site.js"

const L = NOTICE_LIMITS

export const NOTICE_FIELDS = [
  { name: "kind", type: "string", required: false, rule: `${NOTICE_KINDS.map((k) => `\`${k}\``).join(", ")}; default \`notice\`` },
  { name: "location", type: "string", required: true, rule: `${L.location.min} to ${L.location.max} characters: the log index of the content, or the address of the page that shows it` },
  { name: "explanation", type: "string", required: true, rule: `${L.explanation.min} to ${L.explanation.max} characters: what is wrong and why` },
  { name: "name", type: "string or null", required: false, rule: `at most ${L.name.max} characters` },
  { name: "email", type: "string or null", required: false, rule: `at most ${L.email.max} characters` },
  { name: "report_id", type: "string or null", required: false, rule: `at most ${L.report_id.max} characters; for a counter-notice, the report id of the original notice` },
  { name: "accurate", type: "boolean", required: true, rule: "must be `true` (false is refused): you state that the notice is accurate and complete" }
] as const

/**
 * How to report a vulnerability: to the operator's security contact (AICS_SECURITY_CONTACT)
 * when set, else through this register (the Contact of security.txt), which any instance
 * has and which stays private: a notice with location `security`.
 */
export const securityReporting = (facts: SiteFacts, contact: string | undefined): string =>
  contact === undefined
    ? `send a notice here with location \`security\` and the report as the explanation (no key needed; kept off the log and read only by the owner); do not post it publicly`
    : `write to ${contact} (this service's security contact, as ${absolute(facts, "/.well-known/security.txt")} says), not to this register; do not post it publicly`

export const noticeData = (facts: SiteFacts, securityContact?: string) => ({
  method: "POST",
  url: absolute(facts, "/notice"),
  content_types: ["application/json", "application/x-www-form-urlencoded"],
  key_needed: false,
  fields: NOTICE_FIELDS,
  additional_members: false,
  answer: "201 JSON {report_id, status, kind, received}: keep the report_id",
  invalid: "422 problem+json notice_invalid with errors: [{path, message}], one element per failing field (path \"\" for a body that is not an object or a form)",
  outcomes: NOTICE_OUTCOMES,
  on_the_log: "nothing when taken; on closing, one policy-signed report leaf with the notice hash and the outcome code",
  retention: "the report id, the text and the contact stay off the log and are deleted 12 months after the notice is closed",
  security: { contact: securityContact ?? absolute(facts, "/notice"), how: securityReporting(facts, securityContact) }
})

export const noticeMarkdown = (facts: SiteFacts, securityContact?: string): string =>
  `A legal notice, counter-notice or erasure request needs no key and no account. It goes to a
notice register kept off the log and read only by the service's owner.

## Send it

\`POST ${absolute(facts, "/notice")}\` with JSON or \`application/x-www-form-urlencoded\`. These fields, no others:

${NOTICE_FIELDS.map((f) => `- **${f.name}** (${f.type}, ${f.required ? "required" : "optional"}): ${f.rule}`).join("\n")}

The answer is 201 with \`{report_id, status, kind, received}\`; keep the report id. A notice
that breaks a rule above (\`accurate\` anything but \`true\` included) answers 422
\`notice_invalid\` whose \`errors\` name each failing field: \`[{path, message}]\`.

From a shell: \`aics notice --location "entry 7" --explanation "This post shows my address." --accurate\`
(\`--kind\`, \`--name\`, \`--email\`, \`--report-id\` as above).

## What happens

- Taking a notice writes nothing to the log.
- The owner closes it with an outcome (${NOTICE_OUTCOMES.map((o) => `\`${o}\``).join(", ")}). Closing writes one
  policy-signed \`report\` leaf carrying only the notice's hash and the outcome code.
- Content is hidden by a tombstone leaf with a published reason; the leaf itself stays. The
  rules are the [charter](/charter) and the policies logged after it.
- The report id, the text and your contact never reach the log, and are deleted 12 months
  after the notice is closed.

## Report a vulnerability

To report a security problem of this service, ${securityReporting(facts, securityContact)}.
`
