// RFC 8941 Dictionaries, Inner Lists, Parameters and bare items: the examples of RFC 8941
// section 3, the strictness this project adds, and a serialize/parse round trip.

import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { utf8 } from "../../../src/domain/bytes.js"
import {
  boolean,
  byteSequence,
  innerList,
  integer,
  item,
  parseDictionary,
  serializeDictionary,
  serializeInnerList,
  string,
  token,
  type BareItem,
  type Dictionary,
  type Member
} from "../../../src/domain/http/structuredFields.js"

const parse = (field: string): Dictionary => Either.getOrThrow(parseDictionary(field))
const fails = (field: string): boolean => Either.isLeft(parseDictionary(field))
const reserialize = (field: string): string => serializeDictionary(parse(field))

describe("parseDictionary", () => {
  it("reads the RFC 8941 section 3.2 examples", () => {
    // en="Applepie", da=:w4ZibGV0w6ZydGU=:
    const d = parse('en="Applepie", da=:w4ZibGV0w6ZydGU=:')
    expect(d.map((m) => m.key)).toEqual(["en", "da"])
    expect(d[0]!.value).toEqual(item(string("Applepie")))
    expect(d[1]!.value).toEqual(item(byteSequence(utf8("Æbletærte"))))
    // a=?0, b, c; foo=bar: members without a value are Boolean true with parameters.
    expect(parse("a=?0, b, c; foo=bar").map((m) => m.value)).toEqual([
      item(boolean(false)),
      item(boolean(true)),
      item(boolean(true), [["foo", token("bar")]])
    ])
    // rating=1.5, feelings=(joy sadness)
    expect(parse("rating=1.5, feelings=(joy sadness)").map((m) => m.value)).toEqual([
      item({ _tag: "Decimal", value: 1.5 }),
      innerList([item(token("joy")), item(token("sadness"))])
    ])
    // a=(1 2), b=3, c=4;aa=bb, d=(5 6);valid
    expect(parse("a=(1 2), b=3, c=4;aa=bb, d=(5 6);valid").map((m) => m.value)).toEqual([
      innerList([item(integer(1)), item(integer(2))]),
      item(integer(3)),
      item(integer(4), [["aa", token("bb")]]),
      innerList([item(integer(5)), item(integer(6))], [["valid", boolean(true)]])
    ])
  })

  it("serializes the section 3.2 examples canonically", () => {
    expect(reserialize("a=?0, b, c; foo=bar")).toBe("a=?0, b, c;foo=bar")
    expect(reserialize("rating=1.5,feelings=(joy   sadness)")).toBe("rating=1.5, feelings=(joy sadness)")
    expect(reserialize("a=(1 2), b=3, c=4;aa=bb, d=(5 6);valid")).toBe("a=(1 2), b=3, c=4;aa=bb, d=(5 6);valid")
  })

  it("keeps each member's text as received", () => {
    const input = 'sig1=( "@method"  "@path" );created=1; keyid="k", sig2=:AAAA:'
    const d = parse(input)
    expect(d[0]!.text).toBe('( "@method"  "@path" );created=1; keyid="k"')
    expect(d[1]!.text).toBe(":AAAA:")
    expect(serializeInnerList(d[0]!.value as Extract<Member, { _tag: "InnerList" }>)).toBe(
      '("@method" "@path");created=1;keyid="k"'
    )
  })

  it("reads strings with escapes, tokens with : and /, negative numbers, empty inner lists", () => {
    const d = parse('s="a\\"b\\\\c", t=foo/bar:baz, n=-42, x=-0.25, e=();p')
    expect(d.map((m) => m.value)).toEqual([
      item(string('a"b\\c')),
      item(token("foo/bar:baz")),
      item(integer(-42)),
      item({ _tag: "Decimal", value: -0.25 }),
      innerList([], [["p", boolean(true)]])
    ])
    expect(parse("")).toEqual([])
    expect(parse("  a=1  ")).toHaveLength(1)
    expect(parse("a=1 ,\tb=2")).toHaveLength(2)
  })

  it("refuses malformed values instead of guessing", () => {
    const bad = [
      "A=1", // keys are lower case
      "1a=1",
      "a=1,", // trailing comma
      "a=1,,b=2",
      "a=1 b=2",
      "a=1234567890123456", // 16 integer digits
      "a=1.2345", // 4 fractional digits
      "a=1234567890123.5", // 13 integer digits in a decimal
      "a=1.",
      "a=-",
      'a="unterminated',
      'a="bad \\n escape"',
      'a="tab\tinside"',
      "a=:w4ZibGV0w6ZydGU:", // unpadded base64
      "a=:w4ZibGV0w6ZydGU=", // no closing colon
      "a=:w4Zib-V0w6ZydGU=:", // base64url alphabet
      "a=?2",
      'a=("x""y")', // items not separated
      'a=("x"',
      "a=@1", // an RFC 9651 date is not RFC 8941
      'a="caf\u00e9"', // not ASCII
      "a=1\r\nb=2",
      "a=1, a=2", // duplicate key
      "a=1;p=1;p=2" // duplicate parameter
    ]
    for (const field of bad) expect(fails(field), field).toBe(true)
  })
})

describe("serialization", () => {
  it("refuses values with no structured-field form", () => {
    expect(() => serializeDictionary([{ key: "a", value: item(string("line\nbreak")) }])).toThrow(RangeError)
    expect(() => serializeDictionary([{ key: "a", value: item(integer(1e15)) }])).toThrow(RangeError)
    expect(() => serializeDictionary([{ key: "A", value: item(integer(1)) }])).toThrow(RangeError)
    expect(() => serializeDictionary([{ key: "a", value: item(token("1x")) }])).toThrow(RangeError)
  })

  it("writes decimals with one to three fractional digits, rounding ties to even", () => {
    const dec = (value: number) => serializeDictionary([{ key: "d", value: item({ _tag: "Decimal", value }) }])
    expect(dec(1)).toBe("d=1.0")
    expect(dec(1.5)).toBe("d=1.5")
    expect(dec(0.0025)).toBe("d=0.002")
    expect(dec(-3.1416)).toBe("d=-3.142")
  })

  const key = fc.stringMatching(/^[a-z*][a-z0-9_\-.*]{0,6}$/)
  const bare: fc.Arbitrary<BareItem> = fc.oneof(
    fc.integer({ min: -999_999_999_999_999, max: 999_999_999_999_999 }).map(integer),
    fc.stringMatching(/^[\x20-\x7e]{0,12}$/).map(string),
    fc.stringMatching(/^[A-Za-z*][A-Za-z0-9!#$%&'*+\-.^_`|~:/]{0,8}$/).map(token),
    fc.uint8Array({ maxLength: 20 }).map(byteSequence),
    fc.boolean().map(boolean)
  )
  const uniqueParams = fc.uniqueArray(fc.tuple(key, bare), { maxLength: 3, selector: ([k]) => k })
  const anItem = fc.tuple(bare, uniqueParams).map(([v, p]) => item(v, p))
  const member: fc.Arbitrary<Member> = fc.oneof(
    anItem,
    fc.tuple(fc.array(anItem, { maxLength: 4 }), uniqueParams).map(([items, p]) => innerList(items, p))
  )
  const dictionary = fc.uniqueArray(fc.record({ key, value: member }), { maxLength: 4, selector: (m) => m.key })

  it("parses what it serializes, member for member, and serializes it back to the same text", () => {
    fc.assert(
      fc.property(dictionary, (members) => {
        const text = serializeDictionary(members)
        const parsed = parse(text)
        expect(parsed.map(({ key, value }) => ({ key, value }))).toEqual(members)
        expect(serializeDictionary(parsed)).toBe(text)
      })
    )
  })
})
