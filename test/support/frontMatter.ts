// A strict reader of the YAML front matter the skill file uses: a first line `---`, then
// `key: value` lines where the value is a JSON string (valid YAML whatever it holds) or a
// slug, then `---`. Anything else (a plain scalar holding ": ", a comment, an indented
// line, a key twice) is an error: what a strict YAML reader could refuse, this refuses.

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
const KEY = /^[a-z][a-z0-9_]*$/

/** The front matter's keys and values, or throws naming the offending line. */
export const parseFrontMatter = (document: string): Record<string, string> => {
  const lines = document.split("\n")
  if (lines[0] !== "---") throw new Error("the document does not start with a --- line")
  const end = lines.indexOf("---", 1)
  if (end < 0) throw new Error("the front matter has no closing --- line")
  const fields: Record<string, string> = {}
  for (const line of lines.slice(1, end)) {
    const match = line.match(/^([^:]+): (.+)$/)
    if (match === null || !KEY.test(match[1]!)) throw new Error(`not a key: value line: ${JSON.stringify(line)}`)
    const [, key, raw] = match as unknown as [string, string, string]
    if (key in fields) throw new Error(`${key} twice`)
    if (raw.startsWith('"')) {
      let value: unknown
      try {
        value = JSON.parse(raw)
      } catch {
        throw new Error(`${key}: not a JSON string: ${raw}`)
      }
      if (typeof value !== "string") throw new Error(`${key}: not a JSON string: ${raw}`)
      fields[key] = value
    } else if (SLUG.test(raw)) {
      fields[key] = raw
    } else {
      throw new Error(`${key}: neither a JSON string nor a slug: ${raw}`)
    }
  }
  return fields
}
