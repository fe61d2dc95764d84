// The /stats page (docs/spec/service.md "Pages": `/stats`, `format`: "aggregate counts, log head, host
// measurements"): the same document as GET /v2/stats (stats/serviceStatsDocument.ts), for
// people. Its JSON form is that document.

import type { ServiceStatsDocument } from "../stats/serviceStatsDocument.js"
import { html, type Html } from "./html.js"
import { renderInline } from "./markdown.js"

/** Bytes in binary units for people ("1.5 GiB"); the JSON keeps the number. */
export const humanBytes = (bytes: number | null): string => {
  if (bytes === null) return "n/a"
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`
}

const hostRows = (doc: ServiceStatsDocument): ReadonlyArray<readonly [string, string]> => [
  ["process memory (RSS)", humanBytes(doc.host.process_rss_bytes)],
  ["CPU of this process", `${doc.host.cpu_percent}%`],
  ["load average (1 min)", String(doc.host.load_average_1m)],
  ["database", humanBytes(doc.host.database_bytes)],
  ["disk", `${humanBytes(doc.host.disk_used_bytes)} used of ${humanBytes(doc.host.disk_total_bytes)}${doc.host.disk_used_percent === null ? "" : ` (${doc.host.disk_used_percent}%)`}`]
]

const usageRows = (doc: ServiceStatsDocument): ReadonlyArray<readonly [string, number]> =>
  Object.entries(doc.usage).filter((e): e is [string, number] => typeof e[1] === "number")

export const statsMain = (doc: ServiceStatsDocument): Html => html`<p>Status <strong class="status">${doc.status}</strong> at ${doc.timestamp}; up ${doc.uptime_human}. Domain ${doc.domain}.</p>
<h2>Usage</h2>
<table class="usage"><tbody>${usageRows(doc).map(([name, n]) => html`<tr><th>${name.replace(/_/g, " ")}</th><td id="usage-${name}">${n}</td></tr>`)}</tbody></table>
<h2>Log head</h2>
<p>Tree size <strong id="tree-size">${doc.tlog.tree_size}</strong>, root <code>${doc.tlog.root_hash_hex}</code>. Tiles: ${doc.tlog.tiles.published_size} of ${doc.tlog.tiles.size} leaves published (merge delay at most ${doc.tlog.tiles.mmd_seconds} s)${doc.tlog.tiles.error === null ? "" : html`, error: ${doc.tlog.tiles.error}`}.</p>
${doc.tlog.signed_checkpoint === null ? html`<p>No checkpoint published yet.</p>` : html`<pre>${doc.tlog.signed_checkpoint}</pre>`}
<p>${doc.tlog.keys_notice}</p>
<h2>Host</h2>
<table class="host"><tbody>${hostRows(doc).map(([name, value]) => html`<tr><th>${name}</th><td>${value}</td></tr>`)}</tbody></table>
<h2>Services</h2>
<table class="services"><tbody>${doc.services.map((s) => html`<tr><th>${s.name}</th><td><code>${s.endpoint}</code><br>${renderInline(s.detail)}</td></tr>`)}</tbody></table>`

export const statsText = (doc: ServiceStatsDocument): string => [
  `# Statistics of ${doc.domain}`,
  "",
  `Status ${doc.status} at ${doc.timestamp}; up ${doc.uptime_human}.`,
  "",
  "## Usage",
  ...usageRows(doc).map(([name, n]) => `- ${name}: ${n}`),
  "",
  "## Log head",
  `Tree size ${doc.tlog.tree_size}, root ${doc.tlog.root_hash_hex}; ${doc.tlog.tiles.published_size} of ${doc.tlog.tiles.size} leaves published.`,
  "",
  doc.tlog.signed_checkpoint ?? "No checkpoint published yet.",
  doc.tlog.keys_notice,
  "",
  "## Host",
  ...hostRows(doc).map(([name, value]) => `- ${name}: ${value}`),
  "",
  "## Services",
  ...doc.services.map((s) => `- ${s.id}: ${s.endpoint} (${s.detail})`),
  ""
].join("\n")
