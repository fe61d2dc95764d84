// Replaying the leaves of a log as the sequencer had to decide them (domain/write/replay.ts):
// every leaf of an honest log replays as accepted, and a leaf the sequencer could never have
// written (a second claim of a taken name, a freeze signed by a stranger, an envelope whose
// signature does not verify, a leaf logged before it was signed or before the leaf ahead of
// it, bytes other than decide's) is refused with the rule it breaks, while a fold takes each
// of them. A policy citing an order is checked against its document when it is given.

import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../../../src/domain/bytes.js"
import { entryBytes } from "../../../src/domain/envelope/leaf.js"
import { foldEntry } from "../../../src/domain/write/applyEntry.js"
import { emptyLogState, type LogState } from "../../../src/domain/write/logState.js"
import { replayLeaf, type ReplayOutcome } from "../../../src/domain/write/replay.js"
import { envelopeFor, makeAgent } from "../../support/agents.js"
import { GovLog, hashOf, policyDocument, pollPayload, textBody } from "../../support/governanceAgents.js"
import { ciphertext, claimPayload, dmPayload, ORIGIN } from "../../support/identityAgents.js"

const ctx = { origin: ORIGIN, sha256: nodeCrypto.sha256, ed25519: nodeCrypto.ed25519 }

/** Replays every leaf, handing over the bodies a rule reads from `bodies`; the outcomes and the last state. */
const replayAll = (leaves: ReadonlyArray<Uint8Array>, bodies: ReadonlyMap<string, Uint8Array> = new Map()) => {
  let state: LogState = emptyLogState
  const outcomes: Array<ReplayOutcome["kind"]> = []
  const problems: Array<string> = []
  for (const bytes of leaves) {
    let outcome = replayLeaf(state, bytes, ctx)
    if (outcome.kind === "needs_body") outcome = replayLeaf(state, bytes, ctx, bodies.get(outcome.digest) ?? null)
    if (outcome.kind === "unfoldable" || outcome.kind === "needs_body") throw new Error(`cannot replay: ${JSON.stringify(outcome)}`)
    outcomes.push(outcome.kind)
    if (outcome.kind === "refused") problems.push(outcome.problem)
    if (outcome.kind === "unchecked") problems.push(outcome.note)
    state = outcome.state
  }
  return { outcomes, problems, state }
}

/** An honest log with every kind of party: agents, the owner, the policy key. */
const honestLog = () => {
  const log = new GovLog({ label: "replay" })
  const [alice, bob] = [makeAgent("replay alice"), makeAgent("replay bob")]
  log.accept(alice, "claim", claimPayload("alice", alice))
  const bobClaim = log.accept(bob, "claim", claimPayload("bob", bob))
  const text = textBody("hello, log")
  const post = log.accept(alice, "post", { channel: "general", body_hash: text.body_hash, size: text.size }, text.body)
  const grant = log.accept(bob, "grant", { sender: alice.kid, use: "dm" })
  const dm = dmPayload(bob.kid, grant, bobClaim, ciphertext("for bob"))
  log.accept(alice, "dm", dm.payload, dm.body)
  const poll = pollPayload("tea or coffee?", ["tea", "coffee"], log.seconds + 3600)
  const pollIndex = log.accept(alice, "poll", poll.payload, poll.body)
  log.accept(bob, "vote", { poll_index: pollIndex, option: 1 })
  log.must(log.ownerOp("tombstone", { target_index: post, reason_code: "spam" }))
  log.must(log.ownerOp("suspension", { subject: bob.kid, order: hashOf("order 1") }))
  log.must(log.ownerOp("suspension", { subject: bob.kid, until: log.seconds }))
  const frozen = log.must(log.ownerOp("freeze", { state: "frozen" }))
  log.must(log.ownerOp("freeze", { state: "open", resume: frozen }))
  const order = hashOf("court order 7")
  const cited = policyDocument("executes an order", "change", log.seconds, order)
  log.must(log.ownerOp("policy", { ...cited.payload, order_hash: order }, cited.body))
  return { log, alice, bob, cited }
}

describe("replaying a log's leaves", () => {
  it("accepts every leaf of an honest log, ending in the state a fold of the leaves gives", () => {
    const { log, cited } = honestLog()
    const replayed = replayAll(log.leaves, new Map([[cited.payload.document_hash, cited.body]]))
    expect(replayed.problems).toEqual([])
    expect(replayed.outcomes.every((kind) => kind === "accepted")).toBe(true)
    expect(replayed.state).toEqual(log.fold())
    // Without the document the policy citing an order reads, that leaf alone is unchecked.
    const without = replayAll(log.leaves)
    expect(without.outcomes.filter((kind) => kind !== "accepted")).toEqual(["unchecked"])
    expect(without.problems[0]).toMatch(/\(policy\): its rules read the body .* which the service does not serve/)
    // A document other than the one the policy names is not taken for it.
    const wrong = replayAll(log.leaves, new Map([[cited.payload.document_hash, utf8("another document")]]))
    expect(wrong.problems[0]).toMatch(/the body served is not the one it names/)
  })

  /** The honest log with one more leaf, written by whoever holds the log key: `forge` makes its bytes. */
  const withForgedLeaf = (forge: (log: GovLog, parts: ReturnType<typeof honestLog>) => Uint8Array) => {
    const parts = honestLog()
    const leaves = [...parts.log.leaves, forge(parts.log, parts)]
    const replayed = replayAll(leaves, new Map([[parts.cited.payload.document_hash, parts.cited.body]]))
    // A fold takes it like any other leaf.
    let folded: LogState = emptyLogState
    for (const bytes of leaves) folded = Either.getOrThrow(foldEntry(nodeCrypto.sha256, folded, bytes))
    expect(folded.size).toBe(leaves.length)
    return replayed
  }
  const leafOf = (log: GovLog, envelope: Parameters<typeof entryBytes>[0], logged = log.now) =>
    Either.getOrThrow(entryBytes(envelope, log.leaves.length, logged))

  it("refuses a second claim of a taken name, correctly signed by a fresh key", () => {
    const { problems, outcomes } = withForgedLeaf((log) => {
      const mallory = makeAgent("replay mallory")
      return leafOf(log, envelopeFor(mallory, ORIGIN, "claim", claimPayload("alice", mallory)))
    })
    expect(outcomes.at(-1)).toBe("refused")
    expect(problems).toEqual([expect.stringMatching(/^entry \d+ \(claim\): name_taken/)])
  })

  it("refuses a freeze signed by a key other than the owner's", () => {
    const { problems } = withForgedLeaf((log) => leafOf(log, envelopeFor(makeAgent("replay stranger"), ORIGIN, "freeze", { state: "frozen" })))
    expect(problems).toEqual([expect.stringMatching(/\(freeze\): not_owner/)])
  })

  it("runs every other rule on a policy citing an order whose document the service does not serve", () => {
    // A policy signed by a stranger: the missing document must not let it pass as merely unchecked.
    const parts = honestLog()
    const order = hashOf("a stranger's order")
    const cited = policyDocument("a stranger's policy", "change", parts.log.seconds, order)
    const stranger = makeAgent("replay policy stranger")
    const leaves = [...parts.log.leaves, leafOf(parts.log, envelopeFor(stranger, ORIGIN, "policy", { ...cited.payload, order_hash: order }))]
    const replayed = replayAll(leaves, new Map([[parts.cited.payload.document_hash, parts.cited.body]]))
    expect(replayed.outcomes.at(-1)).toBe("refused")
    expect(replayed.problems).toEqual([expect.stringMatching(/\(policy\): not_owner/)])
  })

  it("refuses an envelope whose signature does not verify, and one of another log", () => {
    const tampered = withForgedLeaf((log, { alice }) => {
      const { body: _body, ...named } = textBody("words alice signed for another channel")
      const envelope = envelopeFor(alice, ORIGIN, "post", { channel: "general", ...named })
      return leafOf(log, { ...envelope, payload: { ...envelope.payload as Record<string, unknown>, channel: "elsewhere" } })
    })
    expect(tampered.problems).toEqual([expect.stringMatching(/\(post\): envelope_signature_invalid/)])
    const foreign = withForgedLeaf((log, { alice }) => leafOf(log, envelopeFor(alice, "elsewhere.test/aics", "vote", { poll_index: 6, option: 0 })))
    expect(foreign.problems).toEqual([expect.stringMatching(/origin_mismatch/)])
  })

  it("refuses a leaf logged before its envelope was signed, or before the leaf ahead of it", () => {
    const early = withForgedLeaf((log, { alice }) =>
      leafOf(log, envelopeFor(alice, ORIGIN, "grant", { sender: makeAgent("x").kid, use: "dm" }, { created: Math.floor(log.now / 1000) + 3600 })))
    expect(early.problems).toEqual([expect.stringMatching(/before its envelope was signed/)])
    const backwards = withForgedLeaf((log, { alice }) =>
      leafOf(log, envelopeFor(alice, ORIGIN, "grant", { sender: makeAgent("y").kid, use: "dm" }, { created: Math.floor(log.now / 1000) - 60 }), log.now - 60_000))
    expect(backwards.problems).toEqual([expect.stringMatching(/before the leaf ahead of it/)])
  })

  it("refuses an envelope logged twice (its key's chain moved on) and bytes other than the leaf decide writes", () => {
    const twice = withForgedLeaf((log) => {
      const last = JSON.parse(new TextDecoder().decode(log.leaves.at(-1)!)) as { envelope: Parameters<typeof entryBytes>[0] }
      return leafOf(log, last.envelope)
    })
    expect(twice.problems).toEqual([expect.stringMatching(/\(policy\): seq_mismatch/)])
    const respaced = withForgedLeaf((log, { alice }) => {
      const bytes = leafOf(log, envelopeFor(alice, ORIGIN, "grant", { sender: makeAgent("w").kid, use: "dm" }))
      return utf8(new TextDecoder().decode(bytes).replace("{", "{ "))
    })
    expect(respaced.problems).toEqual([expect.stringMatching(/not the leaf decide writes/)])
  })
})
