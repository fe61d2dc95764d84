// RFC 8785 through `canonicalize`, with typed failures instead of silent changes or throws.

import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { fromUtf8 } from "../../../src/domain/bytes.js"
import { isJsonObject, jcs, jcsBytes, MAX_JSON_DEPTH } from "../../../src/domain/envelope/jcs.js"
import { profileVectors as v } from "../profileVectors.js"

const text = (value: unknown) => Either.getOrThrow(jcs(value))

describe("jcs", () => {
  it("sorts members by UTF-16 code units and writes numbers as ECMAScript does", () => {
    // From RFC 8785 section 3.2.3 and appendix B.
    expect(text({ "\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis" })).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}'
    )
    expect(text([1e21, 1e-7, -0, 0.000001, 333333333.3333333, 9007199254740991])).toBe(
      "[1e+21,1e-7,0,0.000001,333333333.3333333,9007199254740991]"
    )
    expect(text({ b: [true, false, null], a: { d: "\u0000\u001f\"\\", c: "" } })).toBe(
      '{"a":{"c":"","d":"\\u0000\\u001f\\"\\\\"},"b":[true,false,null]}'
    )
  })

  it("is the vectors' envelope_jcs for each envelope", () => {
    for (const e of v.envelopes) {
      expect(text(e.envelope)).toBe(e.envelope_jcs)
      expect(fromUtf8(Either.getOrThrow(jcsBytes(e.envelope)))).toBe(e.envelope_jcs)
    }
  })

  it("refuses what is not plain JSON data instead of changing it", () => {
    const cyclic: Record<string, unknown> = {}
    cyclic["self"] = cyclic
    const deepCycle: Array<unknown> = [[{}]]
    ;(deepCycle[0] as Array<Record<string, unknown>>)[0]!["up"] = deepCycle
    const bad: Array<unknown> = [
      undefined,
      NaN,
      Infinity,
      -Infinity,
      { a: undefined },
      { a: NaN },
      [1, undefined],
      [1, , 3], // a hole
      "lone \ud800",
      { "\udc00": 1 },
      () => 1,
      Symbol("s"),
      1n,
      new Date(0),
      new Map(),
      { toJSON: () => "x" },
      cyclic,
      deepCycle
    ]
    for (const value of bad) {
      const result = jcs(value)
      expect(Either.isLeft(result), String(typeof value)).toBe(true)
      if (Either.isLeft(result)) expect(result.left._tag).toBe("JcsError")
    }
  })

  it("accepts the same object in two places (it is not a cycle)", () => {
    const shared = { x: 1 }
    expect(text({ a: shared, b: [shared, shared] })).toBe('{"a":{"x":1},"b":[{"x":1},{"x":1}]}')
    expect(text(Object.assign(Object.create(null), { z: 1, a: 2 }))).toBe('{"a":2,"z":1}')
  })

  it("takes nesting up to its bound and refuses deeper values with a reason", () => {
    const nested = (depth: number) => {
      let deep: unknown = 0
      for (let i = 0; i < depth; i++) deep = [deep]
      return deep
    }
    expect(text(nested(MAX_JSON_DEPTH))).toBe("[".repeat(MAX_JSON_DEPTH) + "0" + "]".repeat(MAX_JSON_DEPTH))
    for (const depth of [MAX_JSON_DEPTH + 1, 50_000]) {
      const result = jcs(nested(depth))
      expect(Either.isLeft(result)).toBe(true)
      if (Either.isLeft(result)) expect(result.left.reason).toContain("nests deeper")
    }
  })

  it("is a fixed point and agrees with JSON.parse on any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const once = text(value)
        expect(text(JSON.parse(once))).toBe(once)
        expect(JSON.parse(once)).toEqual(JSON.parse(JSON.stringify(value)))
      })
    )
  })
})

describe("isJsonObject", () => {
  it("holds for JSON objects only", () => {
    expect(isJsonObject({ a: [1, "b", null] })).toBe(true)
    expect(isJsonObject({})).toBe(true)
    for (const value of [null, [], "x", 1, { a: undefined }, { a: NaN }, new Date(0)]) expect(isJsonObject(value)).toBe(false)
  })
})
