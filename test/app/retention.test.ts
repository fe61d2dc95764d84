// Retention with a controlled clock (docs/spec/service.md "Body status", docs/protocol.md section 9):
// a DM's ciphertext is available until retention_days after it was logged, expired (410,
// policy_index 0) from exactly that millisecond, and its bytes are then deleted from the
// body store; the leaf stays. The store keeps one copy of a body per digest, so bytes that
// another entry still needs (a public post, a later ciphertext) are kept. presenceOfEntry
// (the wire bundle's header for a document it does not carry) answers as ofEntry without
// the bytes. Runs the app's own services on in-memory adapters.

import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeTestClock, type ManualClock } from "../../src/adapters/clock/TestClock.js"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { Bodies } from "../../src/app/Bodies.js"
import { BodyLedger } from "../../src/app/BodyLedger.js"
import { DAY_MS } from "../../src/domain/bodyStatus.js"
import { BodyStore } from "../../src/ports/BodyStore.js"
import { LogStore } from "../../src/ports/LogStore.js"
import { bodyApp, RETENTION_DAYS, sequencing, storedBody } from "../support/bodyServices.js"
import { GovLog, textBody } from "../support/governanceAgents.js"
import { capsulePayload, ciphertext, claimPayload, dmPayload, makeAgent, PureLog } from "../support/identityAgents.js"

/** Runs `use` on one process's body services over the log and bodies, once it sequences. */
const withBodies = <A>(
  log: PureLog,
  bodies: ReadonlyArray<Uint8Array>,
  clock: ManualClock,
  use: (services: {
    bodies: typeof Bodies.Service
    ledger: typeof BodyLedger.Service
    store: typeof BodyStore.Service
    leaves: typeof LogStore.Service
  }) => Effect.Effect<A, unknown>
) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    yield* sequencing
    return yield* use({ bodies: yield* Bodies, ledger: yield* BodyLedger, store: yield* BodyStore, leaves: yield* LogStore })
  }).pipe(Effect.provide(bodyApp(log, bodies.map(storedBody), clock)))))

describe("ciphertext retention", () => {
  it("keeps a DM's ciphertext until the boundary, expires it exactly there, then deletes the bytes", async () => {
    // A log with a charter (retention 90 days), two names, a grant and one DM.
    const log = new PureLog({ retentionDays: RETENTION_DAYS })
    const alice = makeAgent("retention alice")
    const bob = makeAgent("retention bob")
    log.accept(alice, "claim", claimPayload("alice", alice))
    const bobClaim = log.accept(bob, "claim", claimPayload("bobby", bob))
    const grant = log.accept(bob, "grant", { sender: alice.kid, use: "dm" })
    const ct = ciphertext("for bob")
    const dm = dmPayload(bob.kid, grant, bobClaim, ct)
    const dmIndex = log.accept(alice, "dm", dm.payload, dm.body)
    const digest = nodeCrypto.sha256(ct)
    const logged = log.now
    const boundary = logged + RETENTION_DAYS * DAY_MS
    const clock = makeTestClock(logged)

    await withBodies(log, [ct], clock, ({ bodies, ledger, store, leaves }) => Effect.gen(function*() {
      expect(yield* leaves.size).toBe(log.leaves.length)

      // One millisecond before the boundary: available, and retention deletes nothing.
      yield* clock.set(boundary - 1)
      expect((yield* bodies.ofDigest(digest)).state).toBe("available")
      expect(yield* ledger.reclaimNow).toBe(0)
      expect((yield* store.get(digest))._tag).toBe("Some")
      const dmEntry = { index: dmIndex, type: "dm", logged }
      expect(yield* bodies.presenceOfEntry(dmEntry, digest)).toEqual({ state: "available" })
      expect(yield* bodies.presenceOfEntry(dmEntry, nodeCrypto.sha256(ciphertext("never stored")))).toEqual({ state: "unavailable" })

      // At the boundary: expired with the charter as its policy, whatever the store holds.
      yield* clock.set(boundary)
      const atBoundary = yield* bodies.ofDigest(digest)
      expect(atBoundary).toEqual({ state: "gone", status: { state: "expired", tombstone_index: null, reason_code: null, policy_index: 0 } })
      expect(yield* bodies.ofEntry(dmEntry, digest)).toEqual(atBoundary)
      expect(yield* bodies.presenceOfEntry(dmEntry, digest)).toEqual(atBoundary)
      expect(yield* ledger.liveBytes).toBe(ct.length)

      // Retention deletes the bytes (this run, or the background one if it came first); the
      // leaf stays and still names them.
      yield* ledger.reclaimNow
      expect((yield* store.get(digest))._tag).toBe("None")
      expect(yield* ledger.liveBytes).toBe(0)
      expect((yield* leaves.readEntries(dmIndex, dmIndex + 1)).length).toBe(1)
      expect((yield* bodies.ofDigest(digest)).state).toBe("gone")
    }))
  })

  it("keeps the bytes of an expired capsule that a public post names too", async () => {
    // The capsule's ciphertext is any bytes its writer likes: here, a post's text.
    const log = new PureLog({ retentionDays: RETENTION_DAYS, label: "shared" })
    const [mallory, alice] = [makeAgent("retention mallory"), makeAgent("retention alice 2")]
    log.accept(alice, "claim", claimPayload("alice", alice))
    const text = textBody("a public post whose bytes a capsule names too")
    const capsule = capsulePayload("slot", text.body)
    const capsuleIndex = log.accept(mallory, "capsule", capsule.payload, capsule.body)
    const postIndex = log.accept(alice, "post", { channel: "general", body_hash: text.body_hash, size: text.size }, text.body)
    const digest = nodeCrypto.sha256(text.body)
    const boundary = log.now + RETENTION_DAYS * DAY_MS
    const clock = makeTestClock(log.now)

    await withBodies(log, [text.body], clock, ({ bodies, ledger, store }) => Effect.gen(function*() {
      yield* clock.set(boundary + DAY_MS)
      expect(yield* ledger.reclaimNow).toBe(0)
      expect((yield* store.get(digest))._tag).toBe("Some")
      // Per entry: the capsule's body expired, the post's available; by digest, available.
      expect(yield* bodies.ofEntry({ index: capsuleIndex, type: "capsule", logged: log.now }, digest)).toMatchObject({ state: "gone", status: { state: "expired" } })
      expect(yield* bodies.ofEntry({ index: postIndex, type: "post", logged: log.now }, digest)).toMatchObject({ state: "available" })
      expect(yield* bodies.ofDigest(digest)).toMatchObject({ state: "available" })
      expect(yield* ledger.liveBytes).toBe(0)
    }))
  })

  it("keeps ciphertext written twice until its last write expires", async () => {
    const log = new PureLog({ retentionDays: RETENTION_DAYS, label: "twice" })
    const owner = makeAgent("retention capsule owner")
    const ct = ciphertext("the same bytes twice")
    const capsule = capsulePayload("slot", ct)
    log.accept(owner, "capsule", capsule.payload, capsule.body)
    const first = log.now
    log.now += 10 * DAY_MS
    log.accept(owner, "capsule", capsule.payload, capsule.body)
    const digest = nodeCrypto.sha256(ct)
    const clock = makeTestClock(first)

    await withBodies(log, [ct], clock, ({ bodies, ledger, store }) => Effect.gen(function*() {
      // The first write expired, the second not: the bytes stay and the digest is available.
      yield* clock.set(first + RETENTION_DAYS * DAY_MS)
      expect(yield* ledger.reclaimNow).toBe(0)
      expect((yield* store.get(digest))._tag).toBe("Some")
      expect(yield* bodies.ofDigest(digest)).toMatchObject({ state: "available" })
      expect(yield* ledger.liveBytes).toBe(ct.length)
      // Both expired: the bytes go.
      yield* clock.set(log.now + RETENTION_DAYS * DAY_MS)
      yield* ledger.reclaimNow
      expect((yield* store.get(digest))._tag).toBe("None")
      expect(yield* bodies.ofDigest(digest)).toMatchObject({ state: "gone", status: { state: "expired" } })
    }))
  })

  it("serves a body by digest while any entry naming it is available, whatever a tombstone hid", async () => {
    const log = new GovLog({ label: "tombstoned twin" })
    const [alice, bob] = [makeAgent("twin alice"), makeAgent("twin bob")]
    log.accept(alice, "claim", claimPayload("alice", alice))
    log.accept(bob, "claim", claimPayload("bob", bob))
    const text = textBody("the same words, posted twice")
    const post = { channel: "general", body_hash: text.body_hash, size: text.size }
    const hidden = log.accept(alice, "post", post, text.body)
    const kept = log.accept(bob, "post", post, text.body)
    const tombstone = log.must(log.ownerOp("tombstone", { target_index: hidden, reason_code: "spam" }))
    const digest = nodeCrypto.sha256(text.body)
    const clock = makeTestClock(log.now)

    await withBodies(log, [text.body], clock, ({ bodies }) => Effect.gen(function*() {
      expect(yield* bodies.ofEntry({ index: hidden, type: "post", logged: log.now }, digest)).toEqual({
        state: "gone", status: { state: "tombstoned", tombstone_index: tombstone, reason_code: "spam", policy_index: null }
      })
      expect(yield* bodies.ofEntry({ index: kept, type: "post", logged: log.now }, digest)).toMatchObject({ state: "available" })
      expect(yield* bodies.ofDigest(digest)).toMatchObject({ state: "available" })
    }))
  })

  it("deletes the bytes of a body a tombstone hid once no entry needs them, and keeps what another entry needs", async () => {
    const log = new GovLog({ label: "tombstone deletes" })
    const [alice, bob] = [makeAgent("deleted alice"), makeAgent("deleted bob")]
    log.accept(alice, "claim", claimPayload("alice", alice))
    log.accept(bob, "claim", claimPayload("bob", bob))
    const post = (text: ReturnType<typeof textBody>) => ({ channel: "general", body_hash: text.body_hash, size: text.size })
    // A post alone naming its bytes; two posts of the same words; a post whose bytes a live capsule repeats.
    const alone = textBody("a privacy leak, posted once")
    const twice = textBody("the same words, posted twice and hidden once")
    const capsuled = textBody("words a capsule carries too")
    const aloneIndex = log.accept(alice, "post", post(alone), alone.body)
    const twinHidden = log.accept(alice, "post", post(twice), twice.body)
    log.accept(bob, "post", post(twice), twice.body)
    const capsule = capsulePayload("slot", capsuled.body)
    log.accept(bob, "capsule", capsule.payload, capsule.body)
    const capsuledIndex = log.accept(alice, "post", post(capsuled), capsuled.body)
    const tombstones = [aloneIndex, twinHidden, capsuledIndex].map((target) =>
      log.must(log.ownerOp("tombstone", { target_index: target, reason_code: "privacy" })))
    const clock = makeTestClock(log.now)
    const [aloneDigest, twiceDigest, capsuledDigest] = [alone, twice, capsuled].map((text) => nodeCrypto.sha256(text.body))

    await withBodies(log, [alone.body, twice.body, capsuled.body], clock, ({ bodies, ledger, store }) => Effect.gen(function*() {
      // The lone post's bytes go at the next turn (this run, or the background one at start if
      // it came first), whatever retention's days; the others stay.
      yield* ledger.reclaimNow
      expect((yield* store.get(aloneDigest))._tag).toBe("None")
      expect((yield* store.get(twiceDigest))._tag).toBe("Some")
      expect((yield* store.get(capsuledDigest))._tag).toBe("Some")
      // The hidden entry still answers its tombstone, not "unavailable".
      expect(yield* bodies.ofDigest(aloneDigest)).toEqual({
        state: "gone", status: { state: "tombstoned", tombstone_index: tombstones[0], reason_code: "privacy", policy_index: null }
      })
      expect(yield* bodies.ofDigest(twiceDigest)).toMatchObject({ state: "available" })
      // Nothing more to decide until the capsule expires: then the bytes it shared with the hidden post go.
      expect(yield* ledger.reclaimNow).toBe(0)
      yield* clock.set(log.now + RETENTION_DAYS * DAY_MS)
      expect(yield* ledger.reclaimNow).toBe(1)
      expect((yield* store.get(capsuledDigest))._tag).toBe("None")
      expect((yield* store.get(twiceDigest))._tag).toBe("Some")
    }))
  })
})
