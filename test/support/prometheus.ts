// A strict reader of the Prometheus text exposition format 0.0.4, for the /metrics tests:
// every line is a comment (# HELP / # TYPE naming a family once, before its samples) or a
// sample `name{label="value",...} number`; anything else throws. Samples are keyed by
// name and sorted labels, so a test can ask for one series and compare two scrapes.

export interface Scrape {
  /** Family name to its TYPE. */
  readonly types: ReadonlyMap<string, string>
  /** `name{a="x",b="y"}` (labels sorted) to value. */
  readonly samples: ReadonlyMap<string, number>
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"$/

export const seriesKey = (name: string, labels: Readonly<Record<string, string>> = {}) => {
  const entries = Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1))
  return entries.length === 0 ? name : `${name}{${entries.map(([k, v]) => `${k}="${v}"`).join(",")}}`
}

const splitLabels = (text: string): Array<string> => {
  const parts: Array<string> = []
  let current = ""
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === "\\" && quoted) {
      current += c + text[++i]
      continue
    }
    if (c === "\"") quoted = !quoted
    if (c === "," && !quoted) {
      parts.push(current)
      current = ""
    } else current += c
  }
  if (current !== "") parts.push(current)
  return parts
}

export const parsePrometheus = (text: string): Scrape => {
  const types = new Map<string, string>()
  const helped = new Set<string>()
  const samples = new Map<string, number>()
  const familyOf = (name: string) =>
    types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, "")
  if (text !== "" && !text.endsWith("\n")) throw new Error("the text does not end with a newline")
  for (const line of text.split("\n").slice(0, -1)) {
    if (line.startsWith("# HELP ")) {
      const name = line.split(" ")[2]!
      if (helped.has(name)) throw new Error(`HELP twice for ${name}`)
      helped.add(name)
      continue
    }
    if (line.startsWith("# TYPE ")) {
      const [, , name, type] = line.split(" ")
      if (!["counter", "gauge", "histogram", "summary", "untyped"].includes(type!)) throw new Error(`bad TYPE: ${line}`)
      if (types.has(name!)) throw new Error(`TYPE twice for ${name}`)
      types.set(name!, type!)
      continue
    }
    if (line.startsWith("#")) continue
    const match = SAMPLE.exec(line)
    if (match === null) throw new Error(`not a sample line: ${JSON.stringify(line)}`)
    const [, name, , labelText, valueText] = match
    const labels: Record<string, string> = {}
    for (const part of labelText === undefined ? [] : splitLabels(labelText)) {
      const label = LABEL.exec(part)
      if (label === null) throw new Error(`bad label ${JSON.stringify(part)} in ${line}`)
      labels[label[1]!] = label[2]!
    }
    const value = valueText === "+Inf" ? Infinity : valueText === "-Inf" ? -Infinity : Number(valueText)
    if (Number.isNaN(value) && valueText !== "NaN") throw new Error(`bad value in ${line}`)
    const family = familyOf(name!)
    if (!types.has(family)) throw new Error(`sample before its TYPE: ${line}`)
    const key = seriesKey(name!, labels)
    if (samples.has(key)) throw new Error(`series twice: ${key}`)
    samples.set(key, value)
  }
  return { types, samples }
}

/** The sum of every sample of `name` whose labels include `labels`. */
export const total = (scrape: Scrape, name: string, labels: Readonly<Record<string, string>> = {}): number => {
  let sum = 0
  for (const [key, value] of scrape.samples) {
    const brace = key.indexOf("{")
    if ((brace < 0 ? key : key.slice(0, brace)) !== name) continue
    if (Object.entries(labels).every(([k, v]) => key.includes(`${k}="${v}"`))) sum += value
  }
  return sum
}
