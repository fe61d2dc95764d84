// JSON as signed data must have one meaning (RFC 8785 section 3.1 takes I-JSON input,
// RFC 7493 section 2.3: member names unique). JSON.parse silently keeps the last of two
// members with one name, so another parser could read another envelope from the same
// signed bytes. parseStrictJson parses with JSON.parse, then walks the text once to refuse
// any object with a repeated member name (names compared after unescaping).

import * as Either from "effect/Either"

export const parseStrictJson = (text: string): Either.Either<unknown, string> => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return Either.left(error instanceof Error ? error.message : "not JSON")
  }
  const duplicate = findDuplicateName(text)
  return duplicate === undefined ? Either.right(value) : Either.left(`the member name ${JSON.stringify(duplicate)} is repeated`)
}

/**
 * The first member name repeated within one object of well-formed JSON text, or
 * undefined. The text has already been parsed, so the walk only tracks strings and nesting.
 */
const findDuplicateName = (text: string): string | undefined => {
  // One entry per open container: the names seen so far for an object, null for an array.
  const open: Array<Set<string> | null> = []
  let expectName = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22 /* " */) {
      // The closing quote is the next one not escaped: not preceded by an odd run of
      // backslashes. (indexOf rather than a loop over every character: the body member
      // of a write is a kilobyte-long string.)
      let end = text.indexOf('"', i + 1)
      while (isEscaped(text, end)) end = text.indexOf('"', end + 1)
      const names = open[open.length - 1]
      if (expectName && names) {
        const raw = text.slice(i + 1, end)
        const name = raw.includes("\\") ? JSON.parse(`"${raw}"`) as string : raw
        if (names.has(name)) return name
        names.add(name)
      }
      expectName = false
      i = end
    } else if (c === 0x7b /* { */) {
      open.push(new Set())
      expectName = true
    } else if (c === 0x5b /* [ */) {
      open.push(null)
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      open.pop()
    } else if (c === 0x2c /* , */) {
      expectName = open[open.length - 1] !== null
    }
  }
  return undefined
}

const isEscaped = (text: string, quote: number): boolean => {
  let backslashes = 0
  while (text.charCodeAt(quote - 1 - backslashes) === 0x5c /* \ */) backslashes++
  return backslashes % 2 === 1
}
