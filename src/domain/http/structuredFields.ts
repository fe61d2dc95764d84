// RFC 8941 Structured Field Values, the parts RFC 9421 (Signature-Input, Signature) and
// RFC 9530 (Content-Digest) use: Dictionaries (section 3.2) whose members are Items or
// Inner Lists (3.1.1) with Parameters (3.1.2); bare items Integer, Decimal, String, Token,
// Byte Sequence and Boolean (3.3). Parsing follows section 4.2, serialization section 4.1.
// Lists as top-level values are not needed and not implemented.
//
// Parsing is stricter than RFC 8941 in three places, each because these fields are signed
// or authenticate a request, so one value must have one spelling and no ambiguity:
//   - a duplicate Dictionary key or Parameter key fails (RFC 8941 says the last one wins:
//     a verifier and a logger could then disagree on which value was meant);
//   - a Byte Sequence must be canonical padded base64 (RFC 8941 4.2.7 says parsers SHOULD
//     NOT fail on missing padding or non-zero pad bits);
//   - the input must be ASCII with no HTAB/CR/LF outside what the grammar allows.
// Anything else that RFC 8941 accepts is accepted, so other signers' fields still parse.
//
// Each Dictionary member keeps `text`, its member value exactly as received, so a caller
// can require the canonical spelling (the AICS profile does for Signature-Input).

import * as Data from "effect/Data"
import * as Either from "effect/Either"
import { decodeB64, encodeB64 } from "../encoding.js"

export type BareItem =
  | { readonly _tag: "Integer"; readonly value: number }
  | { readonly _tag: "Decimal"; readonly value: number }
  | { readonly _tag: "String"; readonly value: string }
  | { readonly _tag: "Token"; readonly value: string }
  | { readonly _tag: "ByteSequence"; readonly value: Uint8Array }
  | { readonly _tag: "Boolean"; readonly value: boolean }

/** Ordered key/value pairs; keys are unique (duplicates are refused when parsing). */
export type Parameters = ReadonlyArray<readonly [string, BareItem]>

export interface Item {
  readonly _tag: "Item"
  readonly value: BareItem
  readonly params: Parameters
}

export interface InnerList {
  readonly _tag: "InnerList"
  readonly items: ReadonlyArray<Item>
  readonly params: Parameters
}

export type Member = Item | InnerList

export interface DictionaryMember {
  readonly key: string
  readonly value: Member
  /** The member value as it appeared in the field, from after `=` (or the key) to the end of its parameters. */
  readonly text: string
}

export type Dictionary = ReadonlyArray<DictionaryMember>

export class StructuredFieldError extends Data.TaggedError("StructuredFieldError")<{ readonly reason: string }> {}

// Constructors, so callers build values without spelling out tags.
export const integer = (value: number): BareItem => ({ _tag: "Integer", value })
export const string = (value: string): BareItem => ({ _tag: "String", value })
export const token = (value: string): BareItem => ({ _tag: "Token", value })
export const byteSequence = (value: Uint8Array): BareItem => ({ _tag: "ByteSequence", value })
export const boolean = (value: boolean): BareItem => ({ _tag: "Boolean", value })
export const item = (value: BareItem, params: Parameters = []): Item => ({ _tag: "Item", value, params })
export const innerList = (items: ReadonlyArray<Item>, params: Parameters = []): InnerList => ({
  _tag: "InnerList",
  items,
  params
})

/** The member of a Dictionary with that key, if any. */
export const dictionaryMember = (dictionary: Dictionary, key: string): DictionaryMember | undefined =>
  dictionary.find((member) => member.key === key)

/** The value of a Parameter, if present. */
export const parameter = (params: Parameters, key: string): BareItem | undefined =>
  params.find(([k]) => k === key)?.[1]

// ---------------------------------------------------------------------------------------
// Parsing (RFC 8941 section 4.2)

const MAX_INTEGER = 999_999_999_999_999

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9"
const isLcAlpha = (c: string | undefined): boolean => c !== undefined && c >= "a" && c <= "z"
const isAlpha = (c: string | undefined): boolean => c !== undefined && ((c >= "a" && c <= "z") || (c >= "A" && c <= "Z"))
// tchar of RFC 9110 section 5.6.2.
const TCHAR = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]$/
const isTchar = (c: string | undefined): boolean => c !== undefined && TCHAR.test(c)
const BASE64_CHARS = /^[A-Za-z0-9+/=]*$/

class Fail {
  constructor(readonly reason: string) {}
}

/** A cursor over the field value; every parse step throws Fail, caught once at the top. */
class Input {
  pos = 0
  constructor(readonly text: string) {}
  peek(): string | undefined {
    return this.text[this.pos]
  }
  next(): string {
    const c = this.text[this.pos]
    if (c === undefined) throw new Fail("unexpected end of field")
    this.pos++
    return c
  }
  empty(): boolean {
    return this.pos >= this.text.length
  }
  skipSP(): void {
    while (this.peek() === " ") this.pos++
  }
  skipOWS(): void {
    while (this.peek() === " " || this.peek() === "\t") this.pos++
  }
}

const parseKey = (input: Input): string => {
  const first = input.peek()
  if (!isLcAlpha(first) && first !== "*") throw new Fail(`a key cannot start with ${JSON.stringify(first ?? "end")}`)
  let key = ""
  for (let c = input.peek(); isLcAlpha(c) || isDigit(c) || c === "_" || c === "-" || c === "." || c === "*"; c = input.peek()) {
    key += input.next()
  }
  return key
}

const parseNumber = (input: Input): BareItem => {
  let sign = 1
  if (input.peek() === "-") {
    input.next()
    sign = -1
  }
  if (!isDigit(input.peek())) throw new Fail("a number needs a digit")
  let digits = ""
  let decimal = false
  for (let c = input.peek(); c !== undefined; c = input.peek()) {
    if (isDigit(c)) digits += input.next()
    else if (!decimal && c === ".") {
      if (digits.length > 12) throw new Fail("a decimal has at most 12 integer digits")
      digits += input.next()
      decimal = true
    } else break
    if (!decimal && digits.length > 15) throw new Fail("an integer has at most 15 digits")
    if (decimal && digits.length > 16) throw new Fail("a decimal has at most 16 characters")
  }
  if (!decimal) return integer(sign * Number(digits))
  if (digits.endsWith(".")) throw new Fail("a decimal needs a fractional digit")
  if (digits.length - digits.indexOf(".") - 1 > 3) throw new Fail("a decimal has at most 3 fractional digits")
  return { _tag: "Decimal", value: sign * Number(digits) }
}

const parseString = (input: Input): BareItem => {
  input.next() // the opening DQUOTE
  let out = ""
  for (;;) {
    const c = input.next()
    if (c === "\\") {
      const escaped = input.next()
      if (escaped !== '"' && escaped !== "\\") throw new Fail("only \\\" and \\\\ are escapes in a string")
      out += escaped
    } else if (c === '"') return string(out)
    else if (c < " " || c > "~") throw new Fail("a string holds printable ASCII only")
    else out += c
  }
}

const parseToken = (input: Input): BareItem => {
  let out = input.next() // ALPHA or "*", checked by the caller
  for (let c = input.peek(); isTchar(c) || c === ":" || c === "/"; c = input.peek()) out += input.next()
  return token(out)
}

const parseByteSequence = (input: Input): BareItem => {
  input.next() // the opening ":"
  const end = input.text.indexOf(":", input.pos)
  if (end < 0) throw new Fail("a byte sequence needs a closing colon")
  const b64 = input.text.slice(input.pos, end)
  input.pos = end + 1
  if (!BASE64_CHARS.test(b64)) throw new Fail("a byte sequence holds base64 characters only")
  const bytes = decodeB64(b64)
  if (bytes === undefined) throw new Fail("a byte sequence must be canonical padded base64")
  return byteSequence(bytes)
}

const parseBoolean = (input: Input): BareItem => {
  input.next() // "?"
  const c = input.next()
  if (c === "1") return boolean(true)
  if (c === "0") return boolean(false)
  throw new Fail("a boolean is ?1 or ?0")
}

const parseBareItem = (input: Input): BareItem => {
  const c = input.peek()
  if (c === "-" || isDigit(c)) return parseNumber(input)
  if (c === '"') return parseString(input)
  if (c === "*" || isAlpha(c)) return parseToken(input)
  if (c === ":") return parseByteSequence(input)
  if (c === "?") return parseBoolean(input)
  throw new Fail(`no item starts with ${JSON.stringify(c ?? "end")}`)
}

const parseParameters = (input: Input): Parameters => {
  const params: Array<readonly [string, BareItem]> = []
  while (input.peek() === ";") {
    input.next()
    input.skipSP()
    const key = parseKey(input)
    let value: BareItem = boolean(true)
    if (input.peek() === "=") {
      input.next()
      value = parseBareItem(input)
    }
    if (params.some(([k]) => k === key)) throw new Fail(`parameter ${key} appears twice`)
    params.push([key, value])
  }
  return params
}

const parseItem = (input: Input): Item => {
  const value = parseBareItem(input)
  return item(value, parseParameters(input))
}

const parseInnerList = (input: Input): InnerList => {
  input.next() // "("
  const items: Array<Item> = []
  for (;;) {
    input.skipSP()
    if (input.peek() === ")") {
      input.next()
      return innerList(items, parseParameters(input))
    }
    items.push(parseItem(input))
    const c = input.peek()
    if (c !== " " && c !== ")") throw new Fail("inner list items are separated by spaces")
  }
}

const parseDictionaryIn = (input: Input): Dictionary => {
  const members: Array<DictionaryMember> = []
  while (!input.empty()) {
    const key = parseKey(input)
    let value: Member
    let start: number
    if (input.peek() === "=") {
      input.next()
      start = input.pos
      value = input.peek() === "(" ? parseInnerList(input) : parseItem(input)
    } else {
      start = input.pos
      value = item(boolean(true), parseParameters(input))
    }
    if (members.some((m) => m.key === key)) throw new Fail(`dictionary key ${key} appears twice`)
    members.push({ key, value, text: input.text.slice(start, input.pos) })
    input.skipOWS()
    if (input.empty()) return members
    if (input.next() !== ",") throw new Fail("dictionary members are separated by commas")
    input.skipOWS()
    if (input.empty()) throw new Fail("a dictionary cannot end with a comma")
  }
  return members
}

/**
 * Parses a Dictionary field value (RFC 8941 section 4.2 with type Dictionary). An empty
 * value is an empty Dictionary, which RFC 8941 treats as the field being absent.
 */
export const parseDictionary = (field: string): Either.Either<Dictionary, StructuredFieldError> => {
  // RFC 8941 4.2 step 1: the field must be ASCII. HTAB, CR and LF are refused here too
  // unless the grammar places them (OWS around commas), which the parse steps check.
  if (!/^[\x20-\x7e\t]*$/.test(field)) return Either.left(new StructuredFieldError({ reason: "not printable ASCII" }))
  const input = new Input(field)
  try {
    input.skipSP()
    const dictionary = parseDictionaryIn(input)
    input.skipSP()
    if (!input.empty()) throw new Fail("trailing characters")
    return Either.right(dictionary)
  } catch (e) {
    if (e instanceof Fail) return Either.left(new StructuredFieldError({ reason: e.reason }))
    throw e
  }
}

// ---------------------------------------------------------------------------------------
// Serialization (RFC 8941 section 4.1). Serializing a value that has no valid form (a
// string with a control character, an integer out of range...) is a programming error
// in the caller and throws RangeError.

const serializeKey = (key: string): string => {
  if (!/^[a-z*][a-z0-9_\-.*]*$/.test(key)) throw new RangeError(`not a structured field key: ${JSON.stringify(key)}`)
  return key
}

const serializeDecimal = (value: number): string => {
  // 4.1.5: round to three fractional digits (ties to even), at most 12 integer digits.
  const scaled = value * 1000
  let rounded = Math.round(scaled)
  if (Math.abs(scaled % 1) === 0.5 && rounded % 2 !== 0) rounded -= 1
  const integerPart = Math.trunc(rounded / 1000)
  if (Math.abs(integerPart) > 999_999_999_999) throw new RangeError("a decimal has at most 12 integer digits")
  const text = (rounded / 1000).toFixed(3).replace(/0+$/, "")
  return text.endsWith(".") ? text + "0" : text
}

export const serializeBareItem = (value: BareItem): string => {
  switch (value._tag) {
    case "Integer":
      if (!Number.isInteger(value.value) || Math.abs(value.value) > MAX_INTEGER) {
        throw new RangeError(`not a structured field integer: ${value.value}`)
      }
      return String(value.value)
    case "Decimal":
      return serializeDecimal(value.value)
    case "String":
      if (!/^[\x20-\x7e]*$/.test(value.value)) throw new RangeError("a structured field string is printable ASCII")
      return `"${value.value.replace(/[\\"]/g, (c) => "\\" + c)}"`
    case "Token":
      if (!/^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*$/.test(value.value)) {
        throw new RangeError(`not a structured field token: ${JSON.stringify(value.value)}`)
      }
      return value.value
    case "ByteSequence":
      return `:${encodeB64(value.value)}:`
    case "Boolean":
      return value.value ? "?1" : "?0"
  }
}

export const serializeParameters = (params: Parameters): string =>
  params
    .map(([key, value]) =>
      value._tag === "Boolean" && value.value ? `;${serializeKey(key)}` : `;${serializeKey(key)}=${serializeBareItem(value)}`
    )
    .join("")

export const serializeItem = (value: Item): string => serializeBareItem(value.value) + serializeParameters(value.params)

export const serializeInnerList = (list: InnerList): string =>
  `(${list.items.map(serializeItem).join(" ")})${serializeParameters(list.params)}`

export const serializeMember = (member: Member): string =>
  member._tag === "InnerList" ? serializeInnerList(member) : serializeItem(member)

/** Serializes a Dictionary given as ordered key/value pairs (the `text` of parsed members is ignored). */
export const serializeDictionary = (members: ReadonlyArray<{ readonly key: string; readonly value: Member }>): string =>
  members
    .map(({ key, value }) =>
      value._tag === "Item" && value.value._tag === "Boolean" && value.value.value
        ? serializeKey(key) + serializeParameters(value.params)
        : `${serializeKey(key)}=${serializeMember(value)}`
    )
    .join(", ")
