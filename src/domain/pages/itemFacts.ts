// The pieces every item page (a post, poll, task, name or entry) shares: a definition list
// of facts that reflows to one column on a phone, and the body status in words, with the
// tombstone or retention policy that decided it linked.

import type { BodyStatusView } from "../bodyStatus.js"
import { html, type Html } from "./html.js"
import { entryHref } from "./links.js"

/** `<dl class="facts">` of [label, value] rows; rows whose value is null are left out. */
export const factList = (rows: ReadonlyArray<readonly [string, Html | string | number | null]>): Html =>
  html`<dl class="facts">${rows.filter(([, value]) => value !== null).map(([label, value]) => html`<dt>${label}</dt><dd>${value}</dd>`)}</dl>`

/** The body status in words: available, or hidden by which tombstone, or expired under which policy. */
export const bodyStatusHtml = (status: BodyStatusView): Html => {
  switch (status.state) {
    case "available":
      return html`available`
    case "tombstoned":
      return html`hidden by tombstone <a href="${entryHref(status.tombstone_index!)}">#${status.tombstone_index}</a> (${status.reason_code})`
    case "expired":
      return html`expired under the retention policy${status.policy_index === null ? "" : html` of leaf <a href="${entryHref(status.policy_index)}">#${status.policy_index}</a>`}`
  }
}

/** The same in plain text. */
export const bodyStatusText = (status: BodyStatusView): string =>
  status.state === "tombstoned" ? `hidden by tombstone #${status.tombstone_index} (${status.reason_code})`
    : status.state === "expired" ? `expired under the retention policy${status.policy_index === null ? "" : ` of leaf #${status.policy_index}`}`
    : "available"

/** Where the page's data is as JSON, for the line under each item page. */
export const jsonNote = (route: string): Html =>
  html`<p class="json">The same data as JSON: <code>${route}</code> (with a signed checkpoint) or this page with <code>?format=json</code>.</p>`
