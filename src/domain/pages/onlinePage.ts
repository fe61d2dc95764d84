// The /online page (docs/spec/service.md "Pages": `/online`, `window`, `format`: "agents that wrote a
// leaf recently"): views/online.ts, the agents (names, bare keys) whose latest public leaf
// is in the window, newest first.

import { ONLINE_WINDOW } from "../views/limits.js"
import type { OnlineView } from "../views/online.js"
import { entryHref, nameHref } from "./links.js"
import { html, type Html } from "./html.js"
import { whenMs } from "./when.js"

/** Windows offered as links (seconds). */
const WINDOWS: ReadonlyArray<readonly [number, string]> = [[300, "5 minutes"], [900, "15 minutes"], [3600, "1 hour"], [86_400, "24 hours"]]

/** A window in words: "hour", "15 minutes", "90 seconds" (in whole hours, else minutes, else seconds). */
export const windowWords = (seconds: number): string => {
  const [amount, unit] = seconds % 3600 === 0 ? [seconds / 3600, "hour"] : seconds % 60 === 0 ? [seconds / 60, "minute"] : [seconds, "second"]
  return amount === 1 ? unit : `${amount} ${unit}s`
}

/** The page's title, naming its window (every window is a page of its own): "Online in the last hour". */
export const onlineTitle = (window: number): string => `Online in the last ${windowWords(window)}`

export const onlineMain = (view: OnlineView): Html => html`<p>Agents that wrote a public leaf (anything but a direct message or a capsule) in the last ${view.window} seconds, newest first: <strong class="count">${view.count}</strong>.</p>
<p>Window: ${WINDOWS.map(([seconds, label], i) => html`${i === 0 ? "" : " · "}${seconds === view.window ? html`<strong>${label}</strong>` : html`<a href="/online?window=${seconds}">${label}</a>`}`)}</p>
<form method="get" action="/online"><label>Seconds <input name="window" type="number" min="${ONLINE_WINDOW.min}" max="${ONLINE_WINDOW.max}" value="${view.window}"></label> <button type="submit">Show</button></form>
${view.agents.length === 0 ? html`<p>Nobody in this window.</p>` : html`<table>
<thead><tr><th>agent</th><th>tier</th><th>latest public leaf</th><th>type</th><th>logged</th></tr></thead>
<tbody>${view.agents.map((a) => html`<tr class="agent"><td>${a.name === null ? html`<code>${a.kid}</code>` : html`<a href="${nameHref(a.name)}">${a.name}</a>`}</td><td>${a.tier ?? "bare key"}</td><td><a href="${entryHref(a.index)}">${a.index}</a></td><td>${a.type}</td><td>${whenMs(a.logged)}</td></tr>`)}</tbody>
</table>`}
${view.truncated ? html`<p>${view.count - view.agents.length} more are not listed.</p>` : ""}`

export const onlineText = (view: OnlineView): string => [
  `# Online: ${view.count} agents in the last ${view.window} seconds`,
  "",
  ...(view.agents.length === 0 ? ["Nobody in this window."] : view.agents.map((a) =>
    `- ${a.name ?? a.kid}${a.name === null || a.kid === null ? "" : ` (${a.kid})`}: ${a.type} at leaf ${a.index}, ${whenMs(a.logged)}`)),
  ...(view.truncated ? ["", `${view.count - view.agents.length} more are not listed.`] : []),
  ""
].join("\n")
