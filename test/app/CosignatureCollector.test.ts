// The log's collection of cosignatures (app/CosignatureCollector.ts) in process, against a
// witness that decides as the real one does (domain/witness/addCheckpoint.ts) behind a fake
// transport: a witness that already cosigned answers 409 and is asked again from its size;
// a witness that is down is retried and caught up; a 200 without a valid cosignature is
// not stored; a witness that cosigned a size above the log's is never asked to go back; and
// a witness that cosigned a checkpoint another node of a shared log published, newer than
// the one this node has at hand, is waited for, without the fork signal. A witness that saw
// another history raises an alarm in the Cosignatures store, which every node reports (two
// collectors on one PostgreSQL schema, below) and which lasts, across a restart or a lease
// handover, until the witness cosigns this log again. Writes wait for the first round (each
// witness heard once), which ends with an answer judged, whether or not its line can be
// stored, with a defect in a witness's loop (which starts again), or at FIRST_ROUND_DEADLINE;
// an answer that is no judgment of the checkpoint (a proxy's 502) is asked again every
// second, and let go only WITNESS_ANSWER_BOUND after the first submission.

import { join } from "node:path"
import { it } from "@effect/vitest"
import { Context, Duration, Effect, Either, Layer, Logger, Option, Ref, type Scope, SubscriptionRef, TestClock, TestServices } from "effect"
import { describe, expect } from "vitest"
import { FsCosignaturesLive } from "../../src/adapters/fs/FsCosignatures.js"
import { PgCosignaturesLive } from "../../src/adapters/pg/PgCosignatures.js"
import { nodeCrypto, NodeCryptoLive } from "../../src/adapters/crypto/nodeCrypto.js"
import { makeTestClock } from "../../src/adapters/clock/TestClock.js"
import { CosignatureCollector, FIRST_ROUND_DEADLINE, QUORUM_GRACE_SECONDS } from "../../src/app/CosignatureCollector.js"
import { LogHealth } from "../../src/app/LogHealth.js"
import { LogNotary } from "../../src/app/LogNotary.js"
import { LogReader } from "../../src/app/LogReader.js"
import { NodeRole } from "../../src/app/NodeRole.js"
import { Publisher, type PublishedCheckpoint } from "../../src/app/Publisher.js"
import { ServiceConfig, type ServiceSettings } from "../../src/app/ServiceConfig.js"
import { utf8 } from "../../src/domain/bytes.js"
import { encodeB64 } from "../../src/domain/encoding.js"
import { cosign, formatCosignerKey, makeCosignerKey } from "../../src/domain/note/cosignature.js"
import { parseVerifierKey } from "../../src/domain/note/verifierKey.js"
import { makeTreeHasher } from "../../src/domain/tlog/hasher.js"
import { decideAddCheckpoint, parseAddCheckpointRequest, TLOG_SIZE_CONTENT_TYPE, type CosignedState } from "../../src/domain/witness/addCheckpoint.js"
import { Clock } from "../../src/ports/Clock.js"
import { Cosignatures } from "../../src/ports/Cosignatures.js"
import { LogStore } from "../../src/ports/LogStore.js"
import { StorageError } from "../../src/ports/StorageError.js"
import { WITNESS_ANSWER_BOUND, WitnessTransport, WitnessUnreachable, type WitnessReply } from "../../src/ports/WitnessTransport.js"
import { tempDir } from "../adapters/fs/tempDir.js"
import { openOn } from "../adapters/pg/open.js"
import { harnessLog } from "../support/harnessLog.js"
import { testDatabase } from "../support/pg.js"

const db = testDatabase()

const ORIGIN = "collector.example/log"
const log = harnessLog(ORIGIN)
/** Another history of the same origin under the same key: the branch a fork (a restored copy written to) made. */
const otherLog = harnessLog(ORIGIN, "other")
type HarnessLog = typeof log
const logKey = parseVerifierKey(nodeCrypto.sha256, log.vkey)!
const hasher = makeTreeHasher(nodeCrypto.sha256)
const witnessSeed = nodeCrypto.sha256(utf8("collector witness"))
const WITNESS = "collector.example/witness"
const witnessVkey = formatCosignerKey(makeCosignerKey(nodeCrypto.sha256, WITNESS, nodeCrypto.ed25519.publicKey(witnessSeed)))

interface FakeWitness {
  state: CosignedState | undefined
  down: boolean
  /** Answer 200 with a line that is not a valid cosignature. */
  garbage: boolean
  readonly requests: Array<number>
  /** Called as the witness cosigns, before it answers. */
  onCosign?: () => void
  /** Answer every request 409 with no size (a proxy's conflict, or a witness's own). */
  sizelessConflict?: boolean
  /** Set: every request is answered so before the witness sees it (a reverse proxy's 502, or a refusal of the witness's own). */
  answer?: WitnessReply | undefined
}

const transportOf = (w: FakeWitness) => Layer.succeed(WitnessTransport, {
  addCheckpoint: (_prefix, body) => Effect.suspend((): Effect.Effect<WitnessReply, WitnessUnreachable> => {
    if (w.down) return Effect.fail(new WitnessUnreachable({ detail: "connection refused" }))
    if (w.answer !== undefined) return Effect.succeed(w.answer)
    const request = Either.getOrThrow(parseAddCheckpointRequest(body))
    w.requests.push(request.oldSize)
    if (w.sizelessConflict === true) return Effect.succeed({ status: 409, contentType: "text/plain; charset=utf-8", body: "conflict: try again later\n" })
    const outcome = decideAddCheckpoint(request, [{ origin: ORIGIN, key: logKey }], () => w.state, hasher, nodeCrypto.ed25519)
    if (outcome._tag === "Refused") {
      return Effect.succeed(outcome.knownSize !== undefined
        ? { status: outcome.status, contentType: TLOG_SIZE_CONTENT_TYPE, body: `${outcome.knownSize}\n` }
        : { status: outcome.status, contentType: "application/problem+json", body: outcome.reason })
    }
    w.state = { size: outcome.checkpoint.size, rootHash: outcome.checkpoint.rootHash }
    w.onCosign?.()
    const line = w.garbage
      ? cosign(log.text(3), WITNESS, witnessSeed, 1_800_000_000, nodeCrypto)
      : cosign(outcome.text, WITNESS, witnessSeed, 1_800_000_000, nodeCrypto)
    return Effect.succeed({ status: 200, contentType: "text/plain; charset=utf-8", body: line })
  })
})

/** What the node under test holds: its checkpoint at hand, the log's durable size, what it logged. */
interface Node {
  readonly latest: Ref.Ref<PublishedCheckpoint | undefined>
  /** The log store's size: on PostgreSQL, what every node appended. */
  readonly logSize: Ref.Ref<number>
  readonly logged: Array<{ readonly level: string; readonly message: string }>
  /** Whether this node holds the lease (NodeRole): only the one that does submits. */
  readonly leading: SubscriptionRef.SubscriptionRef<boolean>
  /** The node's LogHealth: whether its log is diverged. */
  readonly health: LogHealth["Type"]
  /** The history its log store holds. */
  readonly log: HarnessLog
}

/** The publisher's wait for a newer checkpoint: by default none comes within a short wait. */
const noNewerCheckpoint: Publisher["Type"]["awaitCoverage"] = () => Effect.as(Effect.sleep(Duration.millis(10)), Option.none())

/** The filesystem store of a new temporary folder. */
const fsStore = Effect.map(tempDir("collector"), (dir) => FsCosignaturesLive(join(dir, "cosignatures.json"), join(dir, "witness-alarms.json")))

/**
 * A node's collector, running until the scope closes, over `store` (shared by the nodes of
 * a test when it is a PostgreSQL schema), `leading` or not.
 */
const startNode = (
  w: FakeWitness,
  store: Layer.Layer<Cosignatures, unknown>,
  options: {
    readonly leading?: boolean
    readonly awaitCoverage?: Publisher["Type"]["awaitCoverage"]
    readonly clock?: Layer.Layer<Clock>
    /** The log store's size at start (0 unless given). */
    readonly logSize?: number
    /** The history the log store holds (`log` unless given: `otherLog` is a restored copy of the other branch). */
    readonly log?: HarnessLog
    /** The witness's transport (the fake witness `w` unless given). */
    readonly transport?: Layer.Layer<WitnessTransport>
  } = {}
) =>
  Effect.gen(function*() {
    const latest = yield* Ref.make<PublishedCheckpoint | undefined>(undefined)
    const logSize = yield* Ref.make(options.logSize ?? 0)
    const held = options.log ?? log
    const leading = yield* SubscriptionRef.make(options.leading ?? true)
    const logged: Node["logged"] = []
    const logger = Logger.make(({ logLevel, message }) =>
      void logged.push({ level: logLevel.label, message: Array.isArray(message) ? message.join(" ") : String(message) }))
    const settings = { domain: "collector.example", witnessing: { name: "x/w", logs: [], witnesses: [{ url: "http://witness", vkey: witnessVkey }], quorum: 1 } }
    const deps = Layer.mergeAll(
      ServiceConfig.layer(settings as unknown as ServiceSettings),
      NodeCryptoLive,
      options.clock ?? Clock.system,
      Layer.succeed(Publisher, {
        latest: Ref.get(latest),
        awaitCoverage: options.awaitCoverage ?? noNewerCheckpoint,
        publishNow: Effect.die("unused"),
        judge: undefined as never
      }),
      Layer.succeed(LogReader, {
        consistencyProof: (m: number, n: number) => Effect.succeed(held.proof(m, n)),
        rootAt: (n: number) => Effect.succeed(held.root(n))
      } as unknown as LogReader["Type"]),
      Layer.succeed(LogStore, { size: Ref.get(logSize) } as unknown as LogStore["Type"]),
      Layer.succeed(LogNotary, { verifierKey: logKey, vkey: log.vkey, sign: () => Effect.die("unused") }),
      Layer.succeed(NodeRole, { leading }),
      LogHealth.layer,
      store,
      options.transport ?? transportOf(w)
    )
    // The logger is the building fiber's, which the collector's fibers inherit.
    const context = yield* Layer.build(Layer.provideMerge(CosignatureCollector.layer, deps)).pipe(
      Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
    const node: Node = { latest, logSize, logged, leading, health: Context.get(context, LogHealth), log: held }
    return { node, collector: Context.get(context, CosignatureCollector), store: Context.get(context, Cosignatures) }
  })

const run = (
  w: FakeWitness,
  test: (node: Node) => Effect.Effect<void, unknown, CosignatureCollector | Cosignatures>,
  awaitCoverage = noNewerCheckpoint,
  store: Effect.Effect<Layer.Layer<Cosignatures, unknown>, unknown, Scope.Scope> = fsStore,
  clock?: Layer.Layer<Clock>
) =>
  Effect.scoped(Effect.gen(function*() {
    const { node, collector, store: cosignatures } = yield* startNode(w, yield* store, { awaitCoverage, ...(clock === undefined ? {} : { clock }) })
    yield* test(node).pipe(Effect.provideService(CosignatureCollector, collector), Effect.provideService(Cosignatures, cosignatures))
  }))

/** The log grows to `n` leaves (if it held fewer), and this node publishes their checkpoint. */
const publish = (node: Node, n: number) =>
  Effect.zipRight(grow(node, n), Ref.set(node.latest, { size: n, rootHash: node.log.root(n), note: node.log.note(n) }))

/** The log grows to `n` leaves without this node's checkpoint moving: another node appended them. */
const grow = (node: Node, n: number) => Ref.update(node.logSize, (size) => Math.max(size, n))

/** Why the node's log is diverged, or undefined. */
const divergedOf = (node: Node) => node.health.diverged

const errorsAndWarnings = (node: Node) => node.logged.filter((l) => l.level === "ERROR" || l.level === "WARN")

const cosignedSize = Effect.flatMap(CosignatureCollector, (c) => Effect.map(c.status, (s) => s.witnesses[0]!.cosignedSize))

const until = <A, E, R>(effect: Effect.Effect<A, E, R>, ok: (a: A) => boolean) =>
  Effect.gen(function*() {
    for (;;) {
      const value = yield* effect
      if (ok(value)) return value
      yield* Effect.sleep(Duration.millis(20))
    }
  }).pipe(Effect.timeout(Duration.seconds(20)))

describe("CosignatureCollector", () => {
  it.scopedLive("asks a witness that cosigned before again from the size its 409 names, and serves the line", () => {
    const witness: FakeWitness = { state: { size: 3, rootHash: log.root(3) }, down: false, garbage: false, requests: [] }
    return run(witness, (node) => Effect.gen(function*() {
      yield* publish(node, 7)
      yield* until(cosignedSize, (s) => s === 7)
      expect(witness.requests).toEqual([0, 3])
      const collector = yield* CosignatureCollector
      const lines = yield* collector.linesAt(7)
      expect(lines).toEqual([cosign(log.text(7), WITNESS, witnessSeed, 1_800_000_000, nodeCrypto)])
      expect(yield* collector.linesAt(6)).toEqual([])
      // The next checkpoint goes from the size it cosigned, at once.
      yield* publish(node, 12)
      yield* until(cosignedSize, (s) => s === 12)
      expect(witness.requests).toEqual([0, 3, 7])
      expect((yield* (yield* Cosignatures).list).map((c) => c.size)).toEqual([12])
      // A witness behind the log is no sign of a divergence.
      expect(yield* divergedOf(node)).toBeUndefined()
    }))
  })

  it.scopedLive("holds writes (LogHealth.awaited) until the witness has answered its first checkpoint, or failed to, said in a warning", () =>
    Effect.gen(function*() {
      const waiting = "writes are taken once every witness of AICS_WITNESSES has answered this node's first checkpoint submission, or failed to within its bound; waiting for collector.example/witness (http://witness)"
      // Answering: awaited from the start until its answer.
      const answering: FakeWitness = { state: undefined, down: false, garbage: false, requests: [] }
      yield* run(answering, (node) => Effect.gen(function*() {
        // (With no checkpoint yet, it may already say so after the name.)
        expect(yield* node.health.awaited).toContain(waiting)
        yield* publish(node, 5)
        yield* until(node.health.awaited, (why) => why === undefined)
        // Heard as it cosigned, before its line was stored.
        yield* until(cosignedSize, (size) => size === 5)
        expect(node.logged.filter((l) => l.message.includes("did not judge this node's first checkpoint"))).toEqual([])
      }))
    }))

  it.scopedLive("takes a witness that cosigned as heard though its line cannot be stored: a failing store does not hold writes", () => {
    const witness: FakeWitness = { state: undefined, down: false, garbage: false, requests: [] }
    const refusingLines = Effect.map(fsStore, (layer) => Layer.effect(Cosignatures, Effect.map(Cosignatures, (s) => ({
      ...s,
      record: () => Effect.fail(new StorageError({ operation: "record cosignature", detail: "the database is away" }))
    }))).pipe(Layer.provide(layer)))
    return run(witness, (node) => Effect.gen(function*() {
      yield* publish(node, 5)
      yield* until(node.health.awaited, (why) => why === undefined)
      expect(witness.state?.size).toBe(5)
      // Not let go as unanswered: it answered.
      expect(node.logged.filter((l) => l.level === "WARN" && l.message.includes("writes are not held for it"))).toEqual([])
      const collector = yield* CosignatureCollector
      const status = yield* until(collector.status, (s) => s.witnesses[0]!.error !== undefined)
      expect(status.witnesses[0]!.error).toBe("record cosignature: the database is away")
    }), noNewerCheckpoint, refusingLines)
  })

  it.scopedLive("starts a witness's collection again after a defect, which counts as heard and is logged: writes are not held by a bug", () =>
    Effect.gen(function*() {
      const witness: FakeWitness = { state: undefined, down: false, garbage: false, requests: [] }
      let calls = 0
      const buggyOnce = Layer.effect(WitnessTransport, Effect.map(WitnessTransport, (t) => ({
        addCheckpoint: (prefix: string, body: Uint8Array) =>
          Effect.suspend(() => (++calls === 1 ? Effect.die(new Error("a bug in the collection")) : t.addCheckpoint(prefix, body)))
      }))).pipe(Layer.provide(transportOf(witness)))
      const { node, collector } = yield* startNode(witness, yield* fsStore, { transport: buggyOnce })
      yield* publish(node, 5)
      yield* until(node.health.awaited, (why) => why === undefined)
      expect(errorsAndWarnings(node).map((l) => [l.level, l.message])).toEqual([
        ["ERROR", "collecting the cosignatures of witness collector.example/witness (http://witness) failed unexpectedly: it starts again in 1s"],
        ["WARN", "witness collector.example/witness (http://witness) could not be asked: this node's collection for it failed (an error line says why): writes are not held for it; a log restored from an older copy is found diverged only once it answers"]
      ])
      // The loop runs again: the witness is asked and cosigns.
      yield* until(Effect.map(collector.status, (s) => s.witnesses[0]!.cosignedSize), (size) => size === 5)
      expect(calls).toBe(2)
    }))

  // TestClock: the deadline is half a minute.
  it.scoped("lets writes go FIRST_ROUND_DEADLINE after its first leadership, with a warning, when a witness cannot be asked: no checkpoint to submit, as publishing keeps failing", () =>
    Effect.gen(function*() {
      const witness: FakeWitness = { state: undefined, down: false, garbage: false, requests: [] }
      const { node } = yield* startNode(witness, yield* fsStore)
      yield* TestClock.adjust(Duration.seconds(1))
      expect(yield* node.health.awaited).toMatch(/waiting for collector\.example\/witness \(http:\/\/witness\): this node has no checkpoint to submit yet \(none published\)$/)
      yield* TestClock.adjust(Duration.subtract(FIRST_ROUND_DEADLINE, Duration.seconds(2)))
      expect(yield* node.health.awaited).toBeDefined()
      yield* TestClock.adjust(Duration.seconds(3))
      expect(yield* node.health.awaited).toBeUndefined()
      expect(errorsAndWarnings(node).map((l) => [l.level, l.message])).toEqual([[
        "WARN",
        "witness collector.example/witness (http://witness) was not heard within 30s of this node's first leadership (this node has no checkpoint to submit yet (none published)): writes are not held for it; a log restored from an older copy is found diverged only once it answers"
      ]])
      expect(witness.requests).toEqual([])
    }))

  // TestClock: the witness is asked again every second, and the bound is 10 s.
  it.scoped("holds writes while a proxy in front of the witness answers 502, asking it again every second, until the witness cosigns", () =>
    Effect.gen(function*() {
      const witness: FakeWitness = {
        state: undefined, down: false, garbage: false, requests: [],
        answer: { status: 502, contentType: "text/html", body: "bad gateway\n" }
      }
      let proxied = 0
      const counting = Layer.effect(WitnessTransport, Effect.map(WitnessTransport, (t) => ({
        addCheckpoint: (prefix: string, body: Uint8Array) =>
          Effect.suspend(() => {
            if (witness.answer !== undefined) proxied++
            return t.addCheckpoint(prefix, body)
          })
      }))).pipe(Layer.provide(transportOf(witness)))
      const { node, collector } = yield* startNode(witness, yield* fsStore, { transport: counting })
      yield* publish(node, 5)
      for (let s = 0; s < 5; s++) yield* TestClock.adjust(Duration.seconds(1))
      expect(yield* node.health.awaited).toBe(
        "writes are taken once every witness of AICS_WITNESSES has answered this node's first checkpoint submission, or failed to within its bound; " +
        "waiting for collector.example/witness (http://witness): 502: bad gateway (no judgment of the checkpoint: asked again every second, for 10s from the first submission at most)")
      // Every second, not after a growing wait (1, 2 s: three requests by now).
      expect(proxied).toBeGreaterThanOrEqual(5)
      // The witness behind the proxy is back: its cosignature is the judgment writes waited for.
      witness.answer = undefined
      yield* TestClock.adjust(Duration.seconds(1))
      expect(yield* node.health.awaited).toBeUndefined()
      expect(witness.state?.size).toBe(5)
      // Its line is stored after it is heard, on the filesystem: waited for on the live clock.
      yield* TestServices.provideLive(until(collector.status, (status) => status.witnesses[0]!.cosignedSize === 5))
      expect(errorsAndWarnings(node).filter((l) => l.message.includes("writes are not held for it"))).toEqual([])
    }))

  it.scoped("lets a witness that answers only 5xx go WITNESS_ANSWER_BOUND after the first submission, with a warning, as one that does not answer", () =>
    Effect.gen(function*() {
      const witness: FakeWitness = {
        state: undefined, down: false, garbage: false, requests: [],
        answer: { status: 504, contentType: "text/html", body: "gateway timeout\n" }
      }
      const { node } = yield* startNode(witness, yield* fsStore)
      yield* publish(node, 5)
      // The first submission goes within the first second (the collector looks for a checkpoint every 10 ms here).
      yield* TestClock.adjust(Duration.seconds(1))
      yield* TestClock.adjust(Duration.subtract(WITNESS_ANSWER_BOUND, Duration.seconds(3)))
      expect(yield* node.health.awaited).toMatch(/waiting for collector\.example\/witness \(http:\/\/witness\): 504: gateway timeout \(no judgment of the checkpoint/)
      for (let s = 0; s < 3; s++) yield* TestClock.adjust(Duration.seconds(1))
      expect(yield* node.health.awaited).toBeUndefined()
      // Let go at its bound, well before FIRST_ROUND_DEADLINE (30 s), whose line this is not.
      expect(errorsAndWarnings(node).map((l) => [l.level, l.message])).toContainEqual([
        "WARN",
        "witness collector.example/witness (http://witness) did not judge this node's first checkpoint submission within its bound, 10s from the first submission (504: gateway timeout): writes are not held for it; a log restored from an older copy is found diverged only once it answers"
      ])
      expect(errorsAndWarnings(node).filter((l) => l.message.includes("writes are not held for it"))).toHaveLength(1)
    }))

  // TestClock. A witness restarting with nothing in front of it refuses connections at once:
  // no more a judgment than a proxy's 502.
  it.scoped("holds writes for a witness that refuses connections until WITNESS_ANSWER_BOUND after the first submission, and takes its judgment when it is back within it", () =>
    Effect.gen(function*() {
      const witness: FakeWitness = { state: undefined, down: true, garbage: false, requests: [] }
      const { node } = yield* startNode(witness, yield* fsStore)
      yield* publish(node, 5)
      for (let s = 0; s < 5; s++) yield* TestClock.adjust(Duration.seconds(1))
      expect(yield* node.health.awaited).toMatch(/waiting for collector\.example\/witness \(http:\/\/witness\): unreachable: connection refused \(no judgment of the checkpoint/)
      witness.down = false
      yield* TestClock.adjust(Duration.seconds(1))
      expect(yield* node.health.awaited).toBeUndefined()
      expect(witness.state?.size).toBe(5)
      expect(errorsAndWarnings(node).filter((l) => l.message.includes("writes are not held for it"))).toEqual([])
    }))

  it.scoped("lets a witness that stays unreachable go WITNESS_ANSWER_BOUND after the first submission, with a warning", () =>
    Effect.gen(function*() {
      const witness: FakeWitness = { state: undefined, down: true, garbage: false, requests: [] }
      const { node } = yield* startNode(witness, yield* fsStore)
      yield* publish(node, 5)
      yield* TestClock.adjust(Duration.seconds(1))
      yield* TestClock.adjust(Duration.subtract(WITNESS_ANSWER_BOUND, Duration.seconds(3)))
      expect(yield* node.health.awaited).toBeDefined()
      for (let s = 0; s < 3; s++) yield* TestClock.adjust(Duration.seconds(1))
      expect(yield* node.health.awaited).toBeUndefined()
      expect(errorsAndWarnings(node).filter((l) => l.message.includes("writes are not held for it")).map((l) => [l.level, l.message])).toEqual([[
        "WARN",
        "witness collector.example/witness (http://witness) did not judge this node's first checkpoint submission within its bound, 10s from the first submission (unreachable: connection refused): writes are not held for it; a log restored from an older copy is found diverged only once it answers"
      ]])
    }))

  // TestClock. The case the first round is for: a restored copy, its stored cosignatures with it.
  it.scoped("asks again a witness whose first answer is a proxy's 502 though a stored cosignature covers the checkpoint: its 409 above the log's size makes the log diverged before any write", () =>
    Effect.gen(function*() {
      const witness: FakeWitness = {
        state: { size: 9, rootHash: log.root(9) }, down: false, garbage: false, requests: [],
        answer: { status: 502, contentType: "text/html", body: "bad gateway\n" }
      }
      const { node, store } = yield* startNode(witness, yield* fsStore)
      // The copy's stored cosignature of its own checkpoint, 5, from before the witness cosigned 9.
      yield* store.record({ witness: witnessVkey, size: 5, line: cosign(log.text(5), WITNESS, witnessSeed, 1_800_000_000, nodeCrypto), timestamp: 1_800_000_000 })
      yield* publish(node, 5)
      /** Writes are never let through on a log that is not yet found diverged. */
      const step = Effect.gen(function*() {
        yield* TestClock.adjust(Duration.seconds(1))
        if ((yield* node.health.awaited) === undefined) expect(yield* divergedOf(node)).toBeDefined()
      })
      for (let s = 0; s < 3; s++) yield* step
      expect(yield* node.health.awaited).toContain("502: bad gateway (no judgment of the checkpoint")
      witness.answer = undefined
      for (let s = 0; s < 3; s++) yield* step
      expect(yield* divergedOf(node)).toContain("cosigned size 9 of this origin, above this log's 5")
      expect(yield* node.health.awaited).toBeUndefined()
    }))

  it.scopedLive("takes tlog-witness's refusals as judgments, heard at once: a 403 (the log's signature does not verify) and a 409 with a size", () =>
    Effect.gen(function*() {
      const refusing: FakeWitness = {
        state: undefined, down: false, garbage: false, requests: [],
        answer: { status: 403, contentType: "application/problem+json", body: "log_signature_invalid" }
      }
      yield* run(refusing, (node) => Effect.gen(function*() {
        yield* publish(node, 5)
        yield* until(node.health.awaited, (why) => why === undefined)
        expect(node.logged.filter((l) => l.message.includes("writes are not held for it"))).toEqual([])
        const status = yield* (yield* CosignatureCollector).status
        expect(status.witnesses[0]!.error).toBe("403: log_signature_invalid")
      }))
      // A 409 naming the size sent (a broken witness, but its word, in text/x.tlog.size).
      const sameSize: FakeWitness = {
        state: undefined, down: false, garbage: false, requests: [],
        answer: { status: 409, contentType: TLOG_SIZE_CONTENT_TYPE, body: "0\n" }
      }
      yield* run(sameSize, (node) => Effect.gen(function*() {
        yield* publish(node, 5)
        yield* until(node.health.awaited, (why) => why === undefined)
        expect(node.logged.filter((l) => l.message.includes("writes are not held for it"))).toEqual([])
      }))
    }))

  it.scopedLive("holds writes until a witness that cosigned more leaves than the log holds has made it diverged", () => {
    const witness: FakeWitness = { state: { size: 9, rootHash: log.root(9) }, down: false, garbage: false, requests: [] }
    return run(witness, (node) => Effect.gen(function*() {
      yield* publish(node, 4)
      yield* until(node.health.awaited, (why) => why === undefined)
      // Diverged before writes are let through, never after.
      expect(yield* divergedOf(node)).toContain("cosigned size 9 of this origin, above this log's 4")
    }))
  })

  it.scopedLive("keeps trying a witness that is down, reports why, and catches it up when it answers", () => {
    const witness: FakeWitness = { state: undefined, down: true, garbage: false, requests: [] }
    return run(witness, (node) => Effect.gen(function*() {
      yield* publish(node, 5)
      const collector = yield* CosignatureCollector
      const status = yield* until(collector.status, (s) => s.witnesses[0]!.error !== undefined)
      expect(status.witnesses[0]!.error).toContain("unreachable: connection refused")
      // A witness away is not a witness that saw another history, nor a log that diverged.
      expect(status.witnesses[0]!.sawAnotherHistory).toBe(false)
      expect(yield* divergedOf(node)).toBeUndefined()
      expect(status.cosigningLatest).toBe(0)
      witness.down = false
      yield* until(cosignedSize, (s) => s === 5)
      expect((yield* collector.status).cosigningLatest).toBe(1)
    }))
  })

  it.scopedLive("counts a quorum short for longer than the grace as below quorum, from the first checkpoint it did not cosign; a cosignature ends it", () => {
    const witness: FakeWitness = { state: undefined, down: true, garbage: false, requests: [] }
    const clock = makeTestClock(1_800_000_000_000)
    return run(witness, (node) => Effect.gen(function*() {
      const collector = yield* CosignatureCollector
      // No checkpoint yet: nothing to cosign, nothing short.
      expect(yield* collector.status).toMatchObject({ quorum: 1, latestSize: undefined, belowQuorumSeconds: 0, belowQuorum: false })
      yield* publish(node, 5)
      yield* until(collector.status, (s) => s.witnesses[0]!.error !== undefined)
      yield* clock.advance(QUORUM_GRACE_SECONDS * 1000)
      // Within the grace: the delay a cosignature may take.
      expect(yield* collector.status).toMatchObject({ cosigningLatest: 0, latestSize: 5, belowQuorumSeconds: QUORUM_GRACE_SECONDS, belowQuorum: false })
      yield* clock.advance(1000)
      expect(yield* collector.status).toMatchObject({ belowQuorumSeconds: QUORUM_GRACE_SECONDS + 1, belowQuorum: true })
      // A newer checkpoint does not start the count again: the quorum has not cosigned since.
      yield* publish(node, 6)
      expect(yield* collector.status).toMatchObject({ latestSize: 6, belowQuorum: true })
      witness.down = false
      const caught = yield* until(collector.status, (s) => s.cosigningLatest === 1)
      expect(caught).toMatchObject({ belowQuorumSeconds: 0, belowQuorum: false })
    }), noNewerCheckpoint, fsStore, clock.layer)
  })

  it.scopedLive("is not below quorum while the witness keeps cosigning, though a newer checkpoint is always ahead of it (a busy log)", () => {
    const witness: FakeWitness = { state: undefined, down: false, garbage: false, requests: [] }
    const clock = makeTestClock(1_800_000_000_000)
    return run(witness, (node) => Effect.gen(function*() {
      const collector = yield* CosignatureCollector
      yield* publish(node, 5)
      yield* until(cosignedSize, (s) => s === 5)
      // The log publishes 6, then 7 while the witness cosigns 6, which then goes away.
      witness.down = true
      yield* publish(node, 6)
      yield* collector.status
      yield* clock.advance(50_000)
      witness.onCosign = () => {
        witness.onCosign = undefined
        witness.down = true
        Effect.runSync(publish(node, 7))
      }
      witness.down = false
      yield* until(cosignedSize, (s) => s === 6)
      // Short of the latest since 6 was published, but the quorum cosigned a newer checkpoint just now.
      expect(yield* collector.status).toMatchObject({ latestSize: 7, cosigningLatest: 0, belowQuorumSeconds: 0, belowQuorum: false })
      yield* clock.advance(50_000)
      expect(yield* collector.status).toMatchObject({ belowQuorumSeconds: 50, belowQuorum: false })
      yield* clock.advance(11_000)
      expect(yield* collector.status).toMatchObject({ belowQuorumSeconds: 61, belowQuorum: true })
    }), noNewerCheckpoint, fsStore, clock.layer)
  })

  it.scopedLive("stores nothing from a 200 without a valid cosignature of the checkpoint", () => {
    const witness: FakeWitness = { state: undefined, down: false, garbage: true, requests: [] }
    return run(witness, (node) => Effect.gen(function*() {
      yield* publish(node, 5)
      const collector = yield* CosignatureCollector
      const status = yield* until(collector.status, (s) => s.witnesses[0]!.error !== undefined)
      expect(status.witnesses[0]!.error).toContain("without a valid cosignature")
      expect(yield* collector.linesAt(5)).toEqual([])
      expect(yield* (yield* Cosignatures).list).toEqual([])
    }))
  })

  it.scopedLive("never asks a witness that cosigned a larger tree of this origin to go back: it saw another history", () => {
    const witness: FakeWitness = { state: { size: 20, rootHash: log.root(20) }, down: false, garbage: false, requests: [] }
    return run(witness, (node) => Effect.gen(function*() {
      yield* publish(node, 5)
      const collector = yield* CosignatureCollector
      const status = yield* until(collector.status, (s) => s.witnesses[0]!.error !== undefined)
      expect(status.witnesses[0]!.error).toContain("it saw another history")
      // Evidence of a fork: what /healthz reports (app/ServiceHealth.ts); and proof that
      // the log went back: it is diverged, so it accepts no write and signs nothing more.
      expect(status.witnesses[0]!.sawAnotherHistory).toBe(true)
      expect(status.witnesses[0]!.anotherHistory?.witnessSize).toBe(20)
      expect(yield* divergedOf(node)).toBe(
        `witness ${WITNESS} (http://witness) cosigned size 20 of this origin, above this log's 5: the log went back (restored from a copy older than what was published); restore the database or data folder that holds those leaves`)
      expect(node.logged.filter((l) => l.level === "ERROR" && l.message.startsWith("the log diverged from what its witnesses cosigned (")).length).toBe(1)
      expect(witness.requests).toEqual([0])
      expect(witness.state?.size).toBe(20)
      // It stays said through later failures of other kinds (the log grown past the witness's
      // size, the witness down), until the witness cosigns this log.
      witness.down = true
      yield* publish(node, 25)
      const later = yield* until(collector.status, (s) => s.witnesses[0]!.error?.startsWith("unreachable") === true)
      expect(later.witnesses[0]!.sawAnotherHistory).toBe(true)
      expect(errorsAndWarnings(node).some((l) => l.level === "ERROR" && l.message.includes("Backups and restores"))).toBe(true)
    }))
  })

  it.scopedLive("takes a witness's 422, another tree at a size this log holds, for a fork: the log is diverged", () => {
    // The witness cosigned size 3 of another history (a restored copy that has since grown past it).
    const witness: FakeWitness = { state: { size: 3, rootHash: otherLog.root(3) }, down: false, garbage: false, requests: [] }
    return run(witness, (node) => Effect.gen(function*() {
      yield* publish(node, 5)
      const collector = yield* CosignatureCollector
      const status = yield* until(collector.status, (s) => s.witnesses[0]!.error !== undefined)
      expect(status.witnesses[0]!.error).toMatch(/^422: .*it saw another history/)
      expect(status.witnesses[0]!.sawAnotherHistory).toBe(true)
      // The alarm keeps the tree refused: the size and this log's root there.
      expect(status.witnesses[0]!.anotherHistory?.refusedTree).toEqual({ size: 3, root: encodeB64(log.root(3)) })
      expect(status.witnesses[0]!.anotherHistory?.witnessSize).toBeUndefined()
      // Proof that the log key signed two trees of size 3: the log takes no write and signs nothing more.
      expect(yield* divergedOf(node)).toBe(
        `witness ${WITNESS} (http://witness) holds another tree of size 3 of this origin than this log's (it refused the consistency proof from it): ` +
          `the log forked (a copy was restored and written to); restore the database or data folder that holds the tree the witness cosigned`)
      expect(node.logged.filter((l) => l.level === "ERROR" && l.message.startsWith("the log diverged from what its witnesses cosigned (")).length).toBe(1)
      expect(witness.requests).toEqual([0, 3])
    }))
  })

  it.scopedLive("takes a 422 to a request from size 0 for a broken witness, not for another history", () => {
    const witness: FakeWitness = { state: undefined, down: false, garbage: false, requests: [] }
    const broken = Layer.succeed(WitnessTransport, {
      addCheckpoint: () => Effect.sync(() => void witness.requests.push(0)).pipe(Effect.as({ status: 422, contentType: "text/plain", body: "no" }))
    })
    return Effect.scoped(Effect.gen(function*() {
      const { node, collector } = yield* startNode(witness, yield* fsStore, { transport: broken })
      yield* publish(node, 5)
      const status = yield* until(collector.status, (s) => s.witnesses[0]!.error !== undefined)
      expect(status.witnesses[0]!.error).toMatch(/^422 to a request from size 0/)
      expect(status.witnesses[0]!.sawAnotherHistory).toBe(false)
      expect(yield* divergedOf(node)).toBeUndefined()
    }))
  })

  it.scopedLive("asks the witness once it leads, though a stored cosignature covers its checkpoint: a restored log learns of its fork before its next write", () => {
    // The log and its stored cosignatures were restored from a backup at size 5; the witness
    // has since cosigned size 20 of the history the backup lost.
    const witness: FakeWitness = { state: { size: 20, rootHash: log.root(20) }, down: false, garbage: false, requests: [] }
    return run(witness, (node) => Effect.gen(function*() {
      const store = yield* Cosignatures
      yield* store.record({ witness: witnessVkey, size: 5, line: cosign(log.text(5), WITNESS, witnessSeed, 1_800_000_000, nodeCrypto), timestamp: 1_800_000_000 })
      const collector = yield* CosignatureCollector
      yield* until(collector.status, (s) => s.witnesses[0]!.cosignedSize === 5)
      yield* publish(node, 5)
      const status = yield* until(collector.status, (s) => s.witnesses[0]!.error !== undefined)
      expect(status.witnesses[0]!.sawAnotherHistory).toBe(true)
      expect(status.witnesses[0]!.error).toContain("it saw another history")
      expect(witness.requests).toEqual([5])
    }))
  })

  it.scopedLive("takes a 409 naming the size of the very checkpoint sent for another tree of that size: the log is diverged", () => {
    const witness: FakeWitness = { state: { size: 5, rootHash: otherLog.root(5) }, down: false, garbage: false, requests: [] }
    return run(witness, (node) => Effect.gen(function*() {
      yield* publish(node, 5)
      const collector = yield* CosignatureCollector
      const status = yield* until(collector.status, (s) => s.witnesses[0]!.error !== undefined)
      expect(status.witnesses[0]!.error).toMatch(/^409: the witness cosigned another tree of size 5/)
      expect(status.witnesses[0]!.sawAnotherHistory).toBe(true)
      expect(status.witnesses[0]!.anotherHistory?.refusedTree).toEqual({ size: 5, root: encodeB64(log.root(5)) })
      expect(yield* divergedOf(node)).toContain("holds another tree of size 5 of this origin than this log's")
      // Asked from 0 first, told 5 (this checkpoint's size), asked again from 5: the 409 then is the evidence.
      expect(witness.requests).toEqual([0, 5])
    }))
  })

  it.scopedLive("does not take a 409 that names no size, to a request from the checkpoint's own size, for another tree: refused, not diverged", () => {
    const witness: FakeWitness = { state: { size: 5, rootHash: log.root(5) }, down: false, garbage: false, requests: [], sizelessConflict: true }
    return run(witness, (node) => Effect.gen(function*() {
      const store = yield* Cosignatures
      yield* store.record({ witness: witnessVkey, size: 5, line: cosign(log.text(5), WITNESS, witnessSeed, 1_800_000_000, nodeCrypto), timestamp: 1_800_000_000 })
      const collector = yield* CosignatureCollector
      yield* until(collector.status, (s) => s.witnesses[0]!.cosignedSize === 5)
      yield* publish(node, 5)
      const status = yield* until(collector.status, (s) => s.witnesses[0]!.error !== undefined)
      expect(witness.requests[0]).toBe(5)
      expect(status.witnesses[0]!.error).toBe("409: conflict: try again later")
      expect(status.witnesses[0]!.sawAnotherHistory).toBe(false)
      expect(yield* divergedOf(node)).toBeUndefined()
    }))
  })

  it.scopedLive("goes on from a witness's size equal to its checkpoint's when the tree is the same: the witness cosigns it again", () => {
    const witness: FakeWitness = { state: { size: 5, rootHash: log.root(5) }, down: false, garbage: false, requests: [] }
    return run(witness, (node) => Effect.gen(function*() {
      yield* publish(node, 5)
      yield* until(cosignedSize, (s) => s === 5)
      expect(witness.requests).toEqual([0, 5])
      expect((yield* (yield* CosignatureCollector).status).witnesses[0]!.sawAnotherHistory).toBe(false)
      expect(yield* divergedOf(node)).toBeUndefined()
    }))
  })

  it.scopedLive("judges a witness's larger size against the log's size, not the checkpoint at hand: one leaf above the log is another history", () => {
    const witness: FakeWitness = { state: { size: 20, rootHash: log.root(20) }, down: false, garbage: false, requests: [] }
    return run(witness, (node) => Effect.gen(function*() {
      // This node's checkpoint (5) lags the log (19 leaves), and the witness holds 20.
      yield* grow(node, 19)
      yield* publish(node, 5)
      const collector = yield* CosignatureCollector
      const status = yield* until(collector.status, (s) => s.witnesses[0]!.error !== undefined)
      expect(status.witnesses[0]!.error).toContain("above this log's 19: it saw another history")
      expect(status.witnesses[0]!.sawAnotherHistory).toBe(true)
      expect(yield* divergedOf(node)).toContain("cosigned size 20 of this origin, above this log's 19: the log went back")
      expect(witness.requests).toEqual([0])
    }))
  })

  it.scopedLive("waits quietly, without the fork signal, when the witness cosigned a newer checkpoint of the shared log than this node holds", () => {
    // On PostgreSQL another node published and had cosigned size 12, and the log holds 12
    // leaves; this node took the lease before adopting that checkpoint: it has 7 at hand.
    const witness: FakeWitness = { state: { size: 12, rootHash: log.root(12) }, down: false, garbage: false, requests: [] }
    return run(witness, (node) => Effect.gen(function*() {
      yield* grow(node, 12)
      yield* publish(node, 7)
      const collector = yield* CosignatureCollector
      yield* until(Effect.sync(() => witness.requests.length), (n) => n >= 1)
      // Long enough for the refusal the old collector made at once (it needs no other request).
      yield* Effect.sleep(Duration.millis(300))
      const behind = yield* collector.status
      expect(behind.witnesses[0]!.sawAnotherHistory).toBe(false)
      expect(yield* divergedOf(node)).toBeUndefined()
      expect(behind.witnesses[0]!.error).toBeUndefined()
      // It waits for the newer checkpoint instead of asking the witness to go back.
      expect(witness.requests).toEqual([0])
      expect(errorsAndWarnings(node)).toEqual([])
      // The node adopts the checkpoint the other node published, and goes on from the
      // witness's size: the witness cosigns it again, then the next one.
      yield* publish(node, 12)
      yield* until(cosignedSize, (s) => s === 12)
      yield* publish(node, 15)
      yield* until(cosignedSize, (s) => s === 15)
      expect(witness.requests).toEqual([0, 12, 12])
      const after = yield* collector.status
      expect(after.witnesses[0]!.sawAnotherHistory).toBe(false)
      expect(after.witnesses[0]!.error).toBeUndefined()
      expect(errorsAndWarnings(node)).toEqual([])
    }))
  })

  it.scopedLive("rests between looks when the publisher answers at once with nothing (a diverged log), rather than spin", () => {
    let asked = 0
    const answersAtOnce: Publisher["Type"]["awaitCoverage"] = () => Effect.sync(() => void asked++).pipe(Effect.as(Option.none()))
    const witness: FakeWitness = { state: undefined, down: false, garbage: false, requests: [] }
    return run(witness, () => Effect.gen(function*() {
      yield* Effect.sleep(Duration.millis(500))
      // A pause of 100 ms a look: about five, where a spin made thousands.
      expect(asked).toBeGreaterThan(0)
      expect(asked).toBeLessThan(20)
    }), answersAtOnce)
  })

  it.scopedLive("stores the alarm of a witness that saw another history, and clears it when the witness cosigns this log again", () => {
    const witness: FakeWitness = { state: { size: 3, rootHash: log.root(4) }, down: false, garbage: false, requests: [] }
    return run(witness, (node) => Effect.gen(function*() {
      yield* publish(node, 5)
      const collector = yield* CosignatureCollector
      const store = yield* Cosignatures
      const status = yield* until(collector.status, (s) => s.witnesses[0]!.sawAnotherHistory)
      const alarms = yield* store.alarms
      expect(alarms.map((a) => a.witness)).toEqual([witnessVkey])
      expect(alarms[0]!.detail).toMatch(/^422: .*it saw another history/)
      expect(status.witnesses[0]!.anotherHistory).toEqual(alarms[0])
      // The witness is set right (it forgets the other history): asked again after the
      // backoff, it cosigns this log, and the alarm is gone from the store and the status.
      witness.state = undefined
      yield* until(cosignedSize, (s) => s === 5)
      expect(yield* store.alarms).toEqual([])
      const after = yield* collector.status
      expect(after.witnesses[0]!.sawAnotherHistory).toBe(false)
      expect(after.witnesses[0]!.anotherHistory).toBeUndefined()
    }))
  })

  it.scopedLive("keeps the alarm across a restart: the next process reports it before it asks the witness, until the witness cosigns", () =>
    Effect.gen(function*() {
      const witness: FakeWitness = { state: { size: 20, rootHash: log.root(20) }, down: false, garbage: false, requests: [] }
      const store = yield* fsStore
      const raised = yield* Effect.scoped(Effect.gen(function*() {
        const first = yield* startNode(witness, store)
        yield* publish(first.node, 5)
        return (yield* until(first.collector.status, (s) => s.witnesses[0]!.sawAnotherHistory)).witnesses[0]!.anotherHistory
      }))
      // The witness is away when the process starts again: it cannot find the fork out anew,
      // and the stored alarm, which keeps the witness's size, has the log diverged from the
      // start, before anything could be written.
      witness.down = true
      const second = yield* startNode(witness, store, { logSize: 5 })
      expect(yield* divergedOf(second.node)).toContain("cosigned size 20 of this origin, above this log's 5: the log went back")
      const restarted = yield* second.collector.status
      expect(restarted.witnesses[0]!.sawAnotherHistory).toBe(true)
      expect(restarted.witnesses[0]!.anotherHistory).toEqual(raised)
      yield* publish(second.node, 5)
      const away = yield* until(second.collector.status, (s) => s.witnesses[0]!.error?.startsWith("unreachable") === true)
      expect(away.witnesses[0]!.anotherHistory).toEqual(raised)
      witness.down = false
      witness.state = undefined
      yield* until(second.collector.status, (s) => s.witnesses[0]!.cosignedSize === 5)
      expect((yield* second.collector.status).witnesses[0]!.sawAnotherHistory).toBe(false)
      expect(yield* second.store.alarms).toEqual([])
      // The process stays diverged until it is restarted: an operator looks first.
      expect(yield* divergedOf(second.node)).toBeDefined()
    }))

  it.scopedLive("reports an alarm the store did not take on this node while it leads, and logs why", () => {
    const witness: FakeWitness = { state: { size: 20, rootHash: log.root(20) }, down: false, garbage: false, requests: [] }
    const refusingAlarms = Effect.map(fsStore, (layer) => Layer.effect(Cosignatures, Effect.map(Cosignatures, (s) => ({
      ...s,
      raiseAlarm: () => Effect.fail(new StorageError({ operation: "raise witness alarm", detail: "the database is away" }))
    }))).pipe(Layer.provide(layer)))
    return run(witness, (node) => Effect.gen(function*() {
      yield* publish(node, 5)
      const collector = yield* CosignatureCollector
      const status = yield* until(collector.status, (s) => s.witnesses[0]!.sawAnotherHistory)
      expect(status.witnesses[0]!.anotherHistory?.detail).toContain("it saw another history")
      expect(yield* (yield* Cosignatures).alarms).toEqual([])
      expect(errorsAndWarnings(node).some((l) => l.level === "ERROR" && l.message.includes("could not be stored"))).toBe(true)
      // Deposed, the node leaves it to the next holder, which asks the witness itself.
      yield* SubscriptionRef.set(node.leading, false)
      yield* until(collector.status, (s) => !s.witnesses[0]!.sawAnotherHistory)
    }), noNewerCheckpoint, refusingAlarms)
  })

  // Two nodes of one log on PostgreSQL, each with a collector over a pool of its own: the
  // one that leads submits, both report what is stored.
  it.scopedLive("on two nodes sharing PostgreSQL, the leader's alarm shows on the follower, outlives a lease handover, and clears on both when the witness cosigns", () =>
    Effect.gen(function*() {
      const url = yield* db.freshSchema
      const witness: FakeWitness = { state: { size: 20, rootHash: log.root(20) }, down: false, garbage: false, requests: [] }
      const a = yield* startNode(witness, openOn(db, PgCosignaturesLive, url), { leading: true })
      const b = yield* startNode(witness, openOn(db, PgCosignaturesLive, url), { leading: false })
      yield* publish(a.node, 5)
      yield* publish(b.node, 5)
      const onA = yield* until(a.collector.status, (s) => s.witnesses[0]!.sawAnotherHistory)
      // The follower asked nobody: it reads the stored alarm (within a reload, a second).
      const onB = yield* until(b.collector.status, (s) => s.witnesses[0]!.sawAnotherHistory)
      expect(onB.witnesses[0]!.anotherHistory).toEqual(onA.witnesses[0]!.anotherHistory)
      expect(onB.witnesses[0]!.anotherHistory?.detail).toContain("above this log's 5: it saw another history")
      expect(onB.witnesses[0]!.error).toBeUndefined()
      expect(witness.requests).toEqual([0])
      // Both logs are diverged: A's at its refusal, B's from the stored alarm it reloaded.
      expect(yield* divergedOf(a.node)).toContain("cosigned size 20 of this origin, above this log's 5")
      expect(yield* divergedOf(b.node)).toContain("cosigned size 20 of this origin, above this log's 5")

      // The lease passes to B while the witness is away: B cannot find the fork out anew,
      // and keeps reporting it.
      witness.down = true
      yield* SubscriptionRef.set(a.node.leading, false)
      yield* SubscriptionRef.set(b.node.leading, true)
      const taken = yield* until(b.collector.status, (s) => s.witnesses[0]!.error?.startsWith("unreachable") === true)
      expect(taken.witnesses[0]!.anotherHistory).toEqual(onA.witnesses[0]!.anotherHistory)
      expect(errorsAndWarnings(b.node).some((l) => l.level === "ERROR" && l.message.includes("Backups and restores"))).toBe(true)

      // The witness back and set right: it cosigns B's checkpoint, and the alarm clears on
      // B at once and on A at its next reload.
      witness.down = false
      witness.state = undefined
      yield* until(b.collector.status, (s) => s.witnesses[0]!.cosignedSize === 5)
      expect((yield* b.collector.status).witnesses[0]!.sawAnotherHistory).toBe(false)
      yield* until(a.collector.status, (s) => !s.witnesses[0]!.sawAnotherHistory && s.witnesses[0]!.cosignedSize === 5)
      expect(yield* a.store.alarms).toEqual([])
    }))
  it.scopedLive("finds the log diverged from the store's alarm at once when asked again (a lease taken), before its next reload", () =>
    Effect.gen(function*() {
      const witness: FakeWitness = { state: undefined, down: true, garbage: false, requests: [] }
      // A node that does not lead: it asks no witness itself.
      const { node, store } = yield* startNode(witness, yield* fsStore, { leading: false, logSize: 5 })
      // The leader raises the alarm as it finds the witness's size above the log's, and
      // hands the lease over: this node looks at the store before its first write.
      yield* store.raiseAlarm({ witness: witnessVkey, detail: "the witness cosigned size 20 of this origin, above this log's 5: it saw another history", raisedAt: 100, witnessSize: 20 })
      yield* node.health.recheck
      expect(yield* divergedOf(node)).toContain(`witness ${WITNESS} (http://witness) cosigned size 20 of this origin, above this log's 5: the log went back`)
    }))

  it.scopedLive("keeps a 422's fork across a restart: the next process is diverged from the stored alarm; one restored from the copy the witness cosigned is not, and is cosigned", () =>
    Effect.gen(function*() {
      const witness: FakeWitness = { state: { size: 3, rootHash: otherLog.root(3) }, down: false, garbage: false, requests: [] }
      const store = yield* fsStore
      yield* Effect.scoped(Effect.gen(function*() {
        const first = yield* startNode(witness, store)
        yield* publish(first.node, 5)
        yield* until(first.collector.status, (s) => s.witnesses[0]!.sawAnotherHistory)
        expect(yield* divergedOf(first.node)).toContain("holds another tree of size 3")
      }))
      // Started again on the same log, the witness away: diverged before anything is written.
      witness.down = true
      yield* Effect.scoped(Effect.gen(function*() {
        const again = yield* startNode(witness, store, { logSize: 5 })
        expect(yield* divergedOf(again.node)).toContain("holds another tree of size 3 of this origin than this log's")
        expect((yield* again.collector.status).witnesses[0]!.anotherHistory?.refusedTree?.size).toBe(3)
      }))
      // The operator restores the copy that holds the tree the witness cosigned (the other
      // branch, 6 leaves) and starts: not diverged; the witness cosigns it, the alarm clears.
      witness.down = false
      const restored = yield* startNode(witness, store, { logSize: 6, log: otherLog })
      expect(yield* divergedOf(restored.node)).toBeUndefined()
      yield* publish(restored.node, 6)
      yield* until(restored.collector.status, (s) => s.witnesses[0]!.cosignedSize === 6 && !s.witnesses[0]!.sawAnotherHistory)
      expect(yield* restored.store.alarms).toEqual([])
      expect(yield* divergedOf(restored.node)).toBeUndefined()
    }))

  it.scopedLive("finds the log diverged from a stored refused tree of a size above the log's when asked again (a lease taken): the log went back below it", () =>
    Effect.gen(function*() {
      const witness: FakeWitness = { state: undefined, down: true, garbage: false, requests: [] }
      const { node, store } = yield* startNode(witness, yield* fsStore, { leading: false, logSize: 2 })
      // The witness holds size 3: above this log's 2, the log went back below it.
      yield* store.raiseAlarm({ witness: witnessVkey, detail: "422", raisedAt: 100, refusedTree: { size: 3, root: encodeB64(log.root(3)) } })
      yield* node.health.recheck
      expect(yield* divergedOf(node)).toContain("cosigned size 3 of this origin, above this log's 2: the log went back")
    }))

  it.scopedLive("finds no divergence in an alarm that proves no size above the log's: one of another kind, or one the log now holds", () =>
    Effect.gen(function*() {
      const witness: FakeWitness = { state: undefined, down: true, garbage: false, requests: [] }
      const layer = yield* fsStore
      const { node, collector, store } = yield* startNode(witness, layer, { leading: false, logSize: 25 })
      // The database restored is the newer one: it holds the 20 leaves the witness cosigned.
      // Neither the look of a new leader nor the reload (once the status shows the alarm)
      // finds a divergence.
      yield* store.raiseAlarm({ witness: witnessVkey, detail: "above this log's 5", raisedAt: 100, witnessSize: 20 })
      yield* node.health.recheck
      yield* until(collector.status, (s) => s.witnesses[0]!.anotherHistory?.witnessSize === 20)
      expect(yield* divergedOf(node)).toBeUndefined()
      // A refused tree the log no longer holds (restored from the other branch) proves nothing.
      yield* store.clearAlarm(witnessVkey)
      yield* store.raiseAlarm({ witness: witnessVkey, detail: "422: refused", raisedAt: 100, refusedTree: { size: 3, root: encodeB64(otherLog.root(3)) } })
      yield* node.health.recheck
      yield* until(collector.status, (s) => s.witnesses[0]!.anotherHistory?.detail === "422: refused")
      expect(yield* divergedOf(node)).toBeUndefined()
    }))
})
