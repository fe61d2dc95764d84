// docs/spec/profile.md section 1: canonical JSON is RFC 8785 (JCS), UTF-8, computed by the
// `canonicalize` package. Everything signed or hashed as JSON (envelope signing input,
// envelope hash, entry bytes) goes through here.
//
// canonicalize follows JSON.stringify: it silently drops undefined members and functions,
// calls toJSON, and throws on NaN, Infinity, cycles and lone surrogates. A signature must
// cover exactly the data we hold, so this wrapper first checks that the value is plain
// JSON data (I-JSON strings, finite numbers, plain objects and arrays) and returns a typed
// error instead of serializing something else or throwing.

import canonicalize from "canonicalize"
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import { utf8 } from "../bytes.js"

export type Json = null | boolean | number | string | ReadonlyArray<Json> | JsonObject
export interface JsonObject {
  readonly [key: string]: Json
}

export class JcsError extends Data.TaggedError("JcsError")<{ readonly reason: string }> {}

// In "u" mode \p{Cs} matches only unpaired surrogates, which have no UTF-8 form (RFC 8785
// section 3.2.2.2 and I-JSON forbid them).
const LONE_SURROGATE = /\p{Cs}/u

/**
 * The deepest nesting of arrays and objects that is JSON data here. No entry of the protocol
 * nests more than a few levels; the bound keeps a hostile value from exhausting the call
 * stack of the serializer (canonicalize recurses) or of any decoder after it.
 */
export const MAX_JSON_DEPTH = 256

const isPlainObject = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

// Marks the end of a container's members during the walk below.
const LEAVE: unique symbol = Symbol("leave")

/**
 * Why the value is not plain JSON data, or undefined when it is. Iterative, so the check itself
 * never exhausts the call stack, whatever the depth; a container met again inside itself is a
 * cycle, while the same object in two places is fine (it is serialized twice).
 */
export const jsonProblem = (value: unknown): string | undefined => {
  const stack: Array<unknown> = [value]
  const path = new Set<object>()
  while (stack.length > 0) {
    const v = stack.pop()
    if (v === LEAVE) {
      path.delete(stack.pop() as object)
      continue
    }
    switch (typeof v) {
      case "boolean":
        continue
      case "number":
        if (!Number.isFinite(v)) return "a number is not finite"
        continue
      case "string":
        if (LONE_SURROGATE.test(v)) return "a string holds a lone surrogate"
        continue
      case "object": {
        if (v === null) continue
        if (path.has(v)) return "a value contains itself"
        if (path.size >= MAX_JSON_DEPTH) return `a value nests deeper than ${MAX_JSON_DEPTH} levels`
        path.add(v)
        stack.push(v, LEAVE)
        if (Array.isArray(v)) {
          for (let i = 0; i < v.length; i++) {
            if (!(i in v)) return "an array has a hole"
            stack.push(v[i])
          }
          continue
        }
        if (!isPlainObject(v)) return "a value is not a plain object"
        for (const key of Object.keys(v)) {
          if (LONE_SURROGATE.test(key)) return "a member name holds a lone surrogate"
          const member = (v as Record<string, unknown>)[key]
          if (member === undefined) return `member ${JSON.stringify(key)} is undefined`
          stack.push(member)
        }
        continue
      }
      default:
        return `a ${typeof v} is not JSON`
    }
  }
  return undefined
}

/** Whether the value is a plain JSON object (not an array, not null). */
export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value) && jsonProblem(value) === undefined

/** JCS text of plain JSON data. */
export const jcs = (value: unknown): Either.Either<string, JcsError> => {
  const problem = jsonProblem(value)
  if (problem !== undefined) return Either.left(new JcsError({ reason: problem }))
  try {
    const text = canonicalize(value)
    return text === undefined ? Either.left(new JcsError({ reason: "no JSON form" })) : Either.right(text)
  } catch (error) {
    return Either.left(new JcsError({ reason: error instanceof Error ? error.message : String(error) }))
  }
}

/** UTF-8 bytes of the JCS text. */
export const jcsBytes = (value: unknown): Either.Either<Uint8Array, JcsError> => Either.map(jcs(value), utf8)
