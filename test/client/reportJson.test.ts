// The JSON of verify's and audit name's reports (verificationJson, verify.ts; nameAuditJson,
// audit.ts): what `aics verify --json` / `aics audit name --json` print and the MCP `verify`
// / `audit_name` tools answer, one shape for both. Every member is snake_case, as every other
// answer of the CLI, the tools and the service; the root is in U64 (as every other hash) and
// in B64 (as the checkpoint note has it). Without a service: the reports are made here.

import { describe, expect, it } from "vitest"
import { nameAuditJson, type NameAudit } from "../../src/client/audit.js"
import { verificationJson, type LogVerification } from "../../src/client/verify.js"
import { toHex } from "../../src/domain/bytes.js"
import { encodeB64 } from "../../src/domain/encoding.js"

const ROOT = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 251) % 256)

/** Every member name in a JSON value, at any depth (the values of differences' log and server are the service's, not ours: left out). */
const memberNames = (value: unknown, skip: ReadonlySet<string> = new Set()): Array<string> => {
  if (Array.isArray(value)) return value.flatMap((v) => memberNames(v, skip))
  if (typeof value !== "object" || value === null) return []
  return Object.entries(value).flatMap(([name, v]) => [name, ...(skip.has(name) ? [] : memberNames(v, skip))])
}

const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/

describe("verify's report as JSON", () => {
  const report: LogVerification = {
    origin: "localhost/aics",
    size: 12,
    rootHash: encodeB64(ROOT),
    tilesFetched: 3,
    bundlesFetched: 1,
    receipts: [
      { index: 4, type: "post", seq: 0, status: "ok", detail: "included in the checkpoint of size 12" },
      { index: 13, type: "post", seq: 2, status: "pending", detail: "not yet under the checkpoint of size 12" }
    ],
    ok: false,
    missingReceipts: [{ kid: "did:key:z6MkOld", seqs: [1] }],
    missingReceiptCount: 1
  }

  it("has snake_case members only, the root in U64 and B64, and every member of the report", () => {
    const json = verificationJson(report)
    expect(memberNames(json).filter((name) => !SNAKE.test(name))).toEqual([])
    expect(json).toEqual({
      origin: "localhost/aics",
      size: 12,
      root_hash: encodeB64(ROOT),
      root_hash_hex: toHex(ROOT),
      tiles_fetched: 3,
      bundles_fetched: 1,
      receipts: report.receipts,
      ok: false,
      missing_receipts: [{ kid: "did:key:z6MkOld", seqs: [1] }],
      missing_receipt_count: 1
    })
    // What JSON carries is what the object says (no undefined member dropped on the way).
    expect(JSON.parse(JSON.stringify(json))).toEqual(json)
  })
})

describe("audit name's report as JSON", () => {
  const audit: NameAudit = {
    name: "alice",
    size: 40,
    checkpointSize: 42,
    rootHash: encodeB64(ROOT),
    entriesFolded: 42,
    tilesFetched: 5,
    bundlesFetched: 1,
    problems: ["entry 41 cannot be folded: x"],
    uncheckedLeaves: ["entry 7 (policy): its rules read the body x, which the service does not serve"],
    differences: [{ path: "/x25519_index", log: 3, server: 4 }, { path: "/key_events/0/kid", log: "did:key:a", server: undefined }],
    laterKeyEvents: [{ index: 41, type: "key.rotate" }],
    unchecked: [{ member: "recovery_stands", side: "log_only" }],
    ok: false
  }

  it("has snake_case members only (the view's own members aside), the root in U64 and B64", () => {
    const json = nameAuditJson(audit)
    expect(memberNames(json, new Set(["log", "server"])).filter((name) => !SNAKE.test(name))).toEqual([])
    expect(json).toEqual({
      name: "alice",
      size: 40,
      checkpoint_size: 42,
      root_hash: encodeB64(ROOT),
      root_hash_hex: toHex(ROOT),
      entries_folded: 42,
      tiles_fetched: 5,
      bundles_fetched: 1,
      problems: ["entry 41 cannot be folded: x"],
      unchecked_leaves: audit.uncheckedLeaves,
      differences: audit.differences,
      later_key_events: [{ index: 41, type: "key.rotate" }],
      unchecked: [{ member: "recovery_stands", side: "log_only" }],
      ok: false
    })
  })
})
