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
})
