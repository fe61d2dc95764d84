// The refusal codes' catalogue (docs/spec/profile.md section 7) is documented with the
// condition of each: docs/protocol.md 8.1 prints src/domain/write/refusal.ts as a table, and
// this keeps the two equal, so an auditor reading the document reads the rules the service
// applies.

import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { REFUSALS } from "../../../src/domain/write/refusal.js"

const documented = (): Array<{ code: string; status: number; condition: string }> => {
  const text = readFileSync("docs/protocol.md", "utf8")
  const start = text.indexOf("<!-- refusal-codes: generated from src/domain/write/refusal.ts -->")
  const end = text.indexOf("<!-- /refusal-codes -->")
  expect(start).toBeGreaterThan(0)
  expect(end).toBeGreaterThan(start)
  return text.slice(start, end).split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => {
      const [, code, status, condition] = /^\| `([a-z0-9_]+)` \| (\d{3}) \| (.*) \|$/.exec(line)!
      return { code: code!, status: Number(status), condition: condition!.replaceAll("\\|", "|") }
    })
}

describe("the refusal catalogue", () => {
  it("is printed in docs/protocol.md 8.1 code for code, status and condition", () => {
    expect(documented()).toEqual(Object.entries(REFUSALS).map(([code, r]) => ({ code, status: r.status, condition: r.condition })))
  })

  // A meaning is said beside every refusal with its code (the MCP tools' `meaning`), whichever
  // rule refused: it must be true of each, not of one rule among several.
  it("says for each shared code a meaning true of every rule that refuses with it", () => {
    // payload_invalid: a vote's option out of range, not only claims and rotations.
    expect(REFUSALS.payload_invalid.condition).toMatch(/^the payload does not match its type's schema, breaks one of its type's rules, or cites a leaf/)
    expect(REFUSALS.payload_invalid.condition).toContain("a vote's option out of its poll's range")
    // not_authorized: a capsule slot's signed read by another key too (GET /v2/capsules/{key_hash} answers 403 with it).
    expect(REFUSALS.not_authorized.condition).toContain("the signed read of a slot it does not own")
    // recipient_unknown: a name that holds a name but no X25519 key (secret-bound), not only a key without a name.
    expect(REFUSALS.recipient_unknown.condition).toContain("a name without an X25519 key (a secret-bound name")
  })
})
