// The owner's documents named by hash alone (docs/spec/service.md "Entry wire bundle": "an owner-action
// completion, a freeze report, an audit report ... is fetched at GET /v2/bodies/{digest}";
// docs/protocol.md 11.2): an audit report's `report_hash` and a completion's `result_hash`
// name a document that comes as the request's body, is required, must hash to the name,
// is at most DOCUMENT_LIMIT bytes, and is a body like any other (tombstonable, with a body
// status) that never rides in the wire bundle. A notice report names no document.

import { describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { bodyReference } from "../../../src/domain/bodyReference.js"
import { bodyStatus } from "../../../src/domain/bodyStatus.js"
import { utf8 } from "../../../src/domain/bytes.js"
import { encodeU64 } from "../../../src/domain/encoding.js"
import { DOCUMENT_LIMIT } from "../../../src/domain/entries/entryRule.js"
import { postPayload } from "../../support/agents.js"
import { auditReport, completion, GovLog, hashOf, makeAgent } from "../../support/governanceAgents.js"
import { claimPayload } from "../../support/identityAgents.js"

let n = 0
const setup = () => {
  const label = `documents-${++n}`
  const log = new GovLog({ label })
  const alice = makeAgent(`${label} alice`)
  log.accept(alice, "claim", claimPayload("alice", alice))
  const { payload, body } = postPayload("please translate the charter")
  const request = log.accept(alice, "post", payload, body)
  return { log, alice, request }
}

/** A paid quote on the request, ready to be completed. */
const paidQuote = (log: GovLog, alice: ReturnType<typeof makeAgent>, request: number): number => {
  const quote = log.must(log.ownerOp("action.quote", { request_index: request, amount: 2 }))
  log.must(log.policyOp("sup.credit", { name: "alice", amount: 2, claim_hash: hashOf(`credit ${quote}`), network: "testnet", tx: `tx-${quote}` }))
  log.accept(alice, "action.pay", { quote_index: quote })
  return quote
}

/** Bytes of `length` whose SHA-256, U64, is the returned hash. */
const document = (length: number) => {
  const bytes = new Uint8Array(length).fill(0x61)
  return { bytes, hash: encodeU64(nodeCrypto.sha256(bytes)) }
}

describe("an audit report's document", () => {
  it("is accepted with the report, and is then a body a tombstone can hide", () => {
    const { log } = setup()
    const audit = auditReport("freeze", "# Freeze audit\n\nThe log was frozen for 2 hours.\n")
    const index = log.must(log.ownerOp("report", audit.payload, audit.body))
    expect(bodyStatus(log.state, { index, type: "report", logged: log.now }, log.now).state).toBe("available")
    const tombstone = log.must(log.ownerOp("tombstone", { target_index: index, reason_code: "privacy" }))
    expect(bodyStatus(log.state, { index, type: "report", logged: log.now }, log.now)).toEqual({
      state: "tombstoned", tombstone_index: tombstone, reason_code: "privacy", policy_index: null
    })
  })

  it("is required, must hash to report_hash, and is at most DOCUMENT_LIMIT bytes", () => {
    const { log } = setup()
    const audit = auditReport("incident", "# Incident audit\n")
    expect(log.ownerOp("report", audit.payload).refused).toBe("body_mismatch")
    expect(log.ownerOp("report", audit.payload, utf8("# Another report\n")).refused).toBe("body_mismatch")
    const large = document(DOCUMENT_LIMIT + 1)
    expect(log.ownerOp("report", { ...audit.payload, report_hash: large.hash }, large.bytes).refused).toBe("body_too_large")
    const largest = document(DOCUMENT_LIMIT)
    log.must(log.ownerOp("report", { ...audit.payload, report_hash: largest.hash }, largest.bytes))
  })

  it("is bytes of any kind (a PDF is a report too)", () => {
    const { log } = setup()
    const pdf = Uint8Array.of(0x25, 0x50, 0x44, 0x46, 0xff, 0xfe, 0x00)
    log.must(log.ownerOp("report", { kind: "audit", subject: "order", report_hash: encodeU64(nodeCrypto.sha256(pdf)) }, pdf))
  })

  it("has no counterpart in a notice report, which takes no body", () => {
    const { log } = setup()
    const notice = { kind: "notice", notice_hash: hashOf("a notice"), outcome: "no_action" }
    expect(log.submitAs(["policy"], log.policy, "report", notice, utf8("the notice text")).refused).toBe("body_mismatch")
    log.must(log.policyOp("report", notice))
  })
})

describe("a completion's result", () => {
  it("is required and must hash to result_hash; the completion then goes in", () => {
    const { log, alice, request } = setup()
    const quote = paidQuote(log, alice, request)
    const result = completion(quote, "Die Charta, übersetzt.")
    expect(log.ownerOp("action.complete", result.payload).refused).toBe("body_mismatch")
    expect(log.ownerOp("action.complete", result.payload, utf8("something else")).refused).toBe("body_mismatch")
    const large = document(DOCUMENT_LIMIT + 1)
    expect(log.ownerOp("action.complete", { ...result.payload, result_hash: large.hash }, large.bytes).refused).toBe("body_too_large")
    const done = log.must(log.ownerOp("action.complete", result.payload, result.body))
    expect(bodyStatus(log.state, { index: done, type: "action.complete", logged: log.now }, log.now).state).toBe("available")
  })
})

describe("bodyReference", () => {
  it("names an owner's document by hash alone, fetched at /v2/bodies (never riding in the bundle)", () => {
    for (const member of ["report_hash", "result_hash"] as const) {
      const reference = bodyReference({ [member]: hashOf("doc") })
      expect(reference).toMatchObject({ member, size: undefined, rides: false })
      expect(encodeU64(reference!.digest)).toBe(hashOf("doc"))
    }
    expect(bodyReference({ kind: "notice", notice_hash: hashOf("n"), outcome: "no_action" })).toBeUndefined()
    expect(bodyReference({ subject: "alice", order: hashOf("an order") })).toBeUndefined()
  })

  it("lets a body named with a size ride", () => {
    for (const member of ["body_hash", "ct_hash", "document_hash"] as const) {
      expect(bodyReference({ [member]: hashOf("doc"), size: 3 })).toMatchObject({ member, size: 3, rides: true })
    }
  })
})
