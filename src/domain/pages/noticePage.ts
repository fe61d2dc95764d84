// The /notice page (docs/spec/service.md "Pages" /notice: how to send a legal notice; "Notice
// request", "Notices", "Limits"; items 9 and 10 of "What the service does"). The fields and
// their bounds are the ones POST /notice checks (governance/notice.ts), not a copy. The text
// form is Markdown; the HTML page renders it; the JSON form is the same facts as data.

import { NOTICE_KINDS, NOTICE_LIMITS, NOTICE_OUTCOMES } from "../governance/notice.js"
import { absolute, type SiteFacts } from "../discovery/site.js"
import { html, type Html } from "./html.js"

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

From a shell: \`aics notice --server ${facts.publicUrl} --location "entry 7" --explanation "This post shows my address." --accurate\`
(\`--kind\`, \`--name\`, \`--email\`, \`--report-id\` as above; \`AICS_SERVER=${facts.publicUrl}\` in the environment does for \`--server\`,
without either \`aics\` sends to a local default, not to this service; no key needed).

## What happens

- Taking a notice writes nothing to the log.
- The owner closes it with an outcome (${NOTICE_OUTCOMES.map((o) => `\`${o}\``).join(", ")}). Closing writes one
  policy-signed \`report\` leaf carrying only the notice's hash and the outcome code.
- Content is hidden by a tombstone leaf with a published reason, and its bytes are then
  deleted from the service unless another entry still carries the same bytes; the leaf
  itself, with the content's hash, stays. The rules are the [charter](/charter) and the
  policies logged after it.
- The report id, the text and your contact never reach the log, and are deleted 12 months
  after the notice is closed.

## Report a vulnerability

To report a security problem of this service, ${securityReporting(facts, securityContact)}.
`

/**
 * The form on /notice: it posts to POST /notice as application/x-www-form-urlencoded, the
 * fields and bounds of NOTICE_FIELDS; the service answers a browser (Accept: text/html)
 * with a confirmation page (noticeReceivedMain) or the list of what to fix
 * (noticeRefusedMain), and any other client with JSON as before.
 */
export const noticeForm = (): Html => html`<p>Report content that breaks the law or the rules, ask for erasure, or answer a notice. No key or account is needed; the notice goes to a register kept off the public log, read only by the service's owner.</p>
<h2>Send it here</h2>
<form class="notice" method="post" action="/notice">
<label for="kind">Kind</label>
<select id="kind" name="kind">${NOTICE_KINDS.map((k) => html`<option value="${k}">${k.replace(/_/g, " ")}</option>`)}</select>
<label for="location">Where is the content? (the entry number, or the address of the page that shows it)</label>
<input type="text" id="location" name="location" required minlength="${L.location.min}" maxlength="${L.location.max}">
<label for="explanation">What is wrong, and why (${L.explanation.min} to ${L.explanation.max} characters)</label>
<textarea id="explanation" name="explanation" rows="6" required minlength="${L.explanation.min}" maxlength="${L.explanation.max}"></textarea>
<label for="name">Your name (optional)</label>
<input type="text" id="name" name="name" maxlength="${L.name.max}" autocomplete="name">
<label for="email">Your email (optional)</label>
<input type="email" id="email" name="email" maxlength="${L.email.max}" autocomplete="email">
<label for="report_id">For a counter-notice: the report id of the original notice (optional)</label>
<input type="text" id="report_id" name="report_id" maxlength="${L.report_id.max}">
<label><input type="checkbox" name="accurate" value="true" required> I state that this notice is accurate and complete.</label>
<p><button type="submit">Send the notice</button></p>
</form>`

/** The page after a notice was taken. */
export const noticeReceivedMain = (view: { readonly report_id: string; readonly kind: string; readonly received: number }): Html =>
  html`<p>Your ${view.kind.replace(/_/g, " ")} was received at ${new Date(view.received).toISOString().slice(0, 19).replace("T", " ")} UTC and is open.</p>
<p>Your report id: <strong><code id="report-id">${view.report_id}</code></strong>. Keep it: a counter-notice cites it, and it is how the owner finds your notice.</p>
<p>Nothing was written to the public log. When the owner closes the notice, one report leaf records only its hash and the outcome.</p>
<p><a href="/notice">Send another notice</a> · <a href="/agora">Back to the agora</a></p>`

/** The page when a notice is refused: each field to fix. */
export const noticeRefusedMain = (detail: string, errors: ReadonlyArray<{ readonly path: string; readonly message: string }>): Html =>
  html`<p>The notice was not taken: nothing was stored. ${errors.length === 0 ? detail : "Fix these and send it again:"}</p>
${errors.length === 0 ? "" : html`<ul class="errors">${errors.map((e) => html`<li><strong>${e.path === "" ? "the form" : e.path}</strong> ${e.message}</li>`)}</ul>`}
<p><a href="/notice">Back to the form</a> (your browser's Back button keeps what you typed).</p>`
