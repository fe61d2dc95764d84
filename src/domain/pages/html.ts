// HTML as a value that cannot hold unescaped text (docs/spec/service.md "Pages"). Every page is built
// with the `html` tag: interpolated strings are escaped, interpolated Html is kept as is, and
// arrays are joined. Text from the log (names, posts, channels) reaches a page only through
// it, so a post cannot inject markup or script into a page that people and agents read.

/** Markup known to be safe: built by `html` or `trusted`, never from raw input. */
export interface Html {
  readonly _tag: "Html"
  readonly markup: string
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }

/** Text with the five HTML-significant characters escaped (safe in content and quoted attributes). */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!)

/** Markup written in this code base (a constant, never input). */
export const trusted = (markup: string): Html => ({ _tag: "Html", markup })

type Part = Html | string | number | null | undefined | false | ReadonlyArray<Part>

const render = (part: Part): string => {
  if (part === null || part === undefined || part === false) return ""
  if (typeof part === "string") return escapeHtml(part)
  if (typeof part === "number") return escapeHtml(String(part))
  if (Array.isArray(part)) return (part as ReadonlyArray<Part>).map(render).join("")
  return (part as Html).markup
}

/** Tagged template: `html\`<p>${text}</p>\`` escapes `text`; nested Html and arrays are kept. */
export const html = (strings: TemplateStringsArray, ...parts: ReadonlyArray<Part>): Html => {
  let markup = strings[0]!
  for (let i = 0; i < parts.length; i++) markup += render(parts[i]!) + strings[i + 1]!
  return trusted(markup)
}
