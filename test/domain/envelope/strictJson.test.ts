import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { parseStrictJson } from "../../../src/domain/envelope/strictJson.js"

describe("parseStrictJson", () => {
  it("refuses repeated member names at any depth, also when spelled with escapes", () => {
    expect(Either.isLeft(parseStrictJson('{"a":1,"a":2}'))).toBe(true)
    expect(Either.isLeft(parseStrictJson('{"x":{"v":"1","\\u0076":"2"}}'))).toBe(true)
    expect(Either.isLeft(parseStrictJson('[{"b":[1,{"c":1,"c":1}]}]'))).toBe(true)
    expect(Either.isLeft(parseStrictJson('{"body":"x","envelope":{},"body":"x"}'))).toBe(true)
    // Runs of backslashes before a quote: an even run leaves the quote closing the string.
    expect(Either.isLeft(parseStrictJson('{"a\\\\":"\\\\","b":"\\"","a\\\\":1}'))).toBe(true)
    expect(Either.isRight(parseStrictJson('{"a\\\\":"\\\\","b":"\\"","a\\"":1}'))).toBe(true)
  })

  it("accepts the same name in different objects, names inside strings, and arrays", () => {
    expect(parseStrictJson('{"a":{"a":1},"b":[{"a":2},{"a":3}],"c":"{\\"a\\":1,\\"a\\":2}"}')).toEqual(
      Either.right({ a: { a: 1 }, b: [{ a: 2 }, { a: 3 }], c: '{"a":1,"a":2}' }))
    expect(Either.isLeft(parseStrictJson("{not json"))).toBe(true)
  })

  it("finds a name repeated in any object JSON.stringify writes", () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 }), fc.jsonValue(), (object, value) => {
      const text = JSON.stringify(object)
      const name = Object.keys(object)[0]!
      const repeated = `${text.slice(0, -1)},${JSON.stringify(name)}:${JSON.stringify(value)}}`
      expect(parseStrictJson(repeated)).toEqual(Either.left(`the member name ${JSON.stringify(name)} is repeated`))
    }), { numRuns: 300 })
  })

  it("agrees with JSON.parse on any JSON value JSON.stringify writes", () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      const text = JSON.stringify(value)
      expect(parseStrictJson(text)).toEqual(Either.right(JSON.parse(text)))
    }), { numRuns: 500 })
  })
})
