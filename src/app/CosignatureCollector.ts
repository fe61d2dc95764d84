// The log collects cosignatures (C2SP tlog-witness, as a client): after each new checkpoint
// the process that sequences submits it to every witness of AICS_WITNESSES, each on a fiber
// of its own, so a witness that is down, slow or refusing delays nobody: not the log, not
// the other witnesses. For each witness, step by step:
//   1. the request goes from the size the witness last cosigned, as far as this process
//      knows (its stored cosignature, or what a 409 said; 0 at first), with the consistency
//      proof from that size;
//   2. a 409 names the witness's size: the request is made again from there, at once (its
//      size may be this checkpoint's own: then the request goes from it with an empty proof,
//      and the witness cosigns the same tree again);
//      a 422 (the proof from its size does not verify), or a 409 at the very size sent when
//      that is this checkpoint's, is another tree of that size: the log forked, as below;
//      a size above the checkpoint at hand is judged against the log store's size (below,
//      overWitnessedSize): above it, the witness saw another history (sticky, an error);
//      within it, another node published the larger checkpoint and this process is behind:
//      it waits for that checkpoint, quietly;
//   3. a 200's lines are checked (the witness's key, the checkpoint's exact text) and the
//      line is stored (Cosignatures port), so every process serves it;
//   4. any other answer, or none, is retried with exponential backoff (1 s to 60 s).
// The served checkpoint carries the stored lines whose size is the checkpoint's: a line
// signs one text, and a log signs one text per size. Other processes (PostgreSQL) reload
// the stored lines every second.
//
// A witness that saw another history raises an alarm in the Cosignatures port, cleared
// when the witness cosigns this log again: it is the deployment's, not the process's, so
// every node's /healthz reports it (ServiceHealth.ts) and a node that takes the lease over
// keeps it. Every process (sequencing or not) reloads the stored alarms every second with
// the lines, and status answers from that copy in memory: /healthz, however often polled,
// never reads the database, and an alarm raised or cleared on another node shows here
// within about a second (at once on the node that raised or cleared it).
//
// Two kinds of alarm are more than a report, each proof that the world holds a checkpoint
// of this origin, signed by the log key, that this log does not extend, so any leaf it
// accepted now would be signed into another history (a split view):
//   - went back: the witness cosigned a size above the log's (its 409, judged against the
//     log store's size); the alarm keeps that size (witnessSize);
//   - forked: the witness holds another tree at a size the log holds (its 422, or its 409
//     at the very size sent); the alarm keeps that size and this log's root there
//     (refusedTree), so that a log restored from the copy the witness cosigned, whose root
//     there differs, is not held by it.
// The log is then diverged (LogHealth): writes are refused log_unavailable and nothing more
// is published or signed. Every node finds the log diverged from the stored alarm itself, at
// its start and at each reload, and a node that takes the lease looks at the stored alarms
// again before its first write (LogHealth.recheck). A witness behind, away, or refusing for
// any other reason is reported, never acted on. A 422 to a request from size 0 is not
// evidence: the proof from the empty tree is empty and always verifies, so that witness is
// broken, not shown another history.
//
// Writes wait for the first round (LogHealth.awaited): from its start until the process
// that sequences has heard every witness once, by submitting its latest checkpoint to each,
// the log takes no write (refused log_unavailable, /healthz awaiting_witnesses). A witness is
// heard when it answered and what it said was judged (a size above the log's, or another
// tree, has made the log diverged by then; a cosignature of the checkpoint is heard before
// its line is stored, so a store that fails then does not hold writes), or when it did not
// answer within WITNESS_ANSWER_BOUND, 10 s, of the first submission (timed out, or
// unreachable: asked again every second meanwhile, since a connection refused at once
// says nothing of the checkpoint either; said in a warning line, so a witness that is down
// does not hold the log longer). An answer is judged only when it is the witness's word on the checkpoint (Refusal.judged: its
// cosignature, a 409 with its size, a 422, tlog-witness's 400, 403, 404): a 5xx, say a
// reverse proxy's 502 while the witness behind it restarts, says nothing of the checkpoint,
// and heard on it a restored copy took writes before the real witness judged it. Such an
// answer counts as none: the witness is asked again every second, and is heard once it
// judges, or, said in a warning line, once WITNESS_ANSWER_BOUND has passed since the first
// submission, as a witness that never answers. A storage failure before its answer is
// judged (the log's size, a proof) is not hearing it either: the witness is asked again,
// every second meanwhile. Two things end the round whatever the witnesses do,
// each said in a warning line: a defect in a witness's loop (a bug: the witness counts as
// heard, the loop starts again), and FIRST_ROUND_DEADLINE after the process first leads,
// when every witness still unheard (a store that keeps failing, no checkpoint to submit as
// publishing keeps failing) is let go: the gate holds writes for a round trip, never for
// good. Without the gate, a node started from a restored (older) copy took the writes that
// reached it before its witness's answer, on a log about to be found diverged.
// Always, not only when this node kept no checkpoint (last-checkpoint, Publisher): a kept
// checkpoint the log matches shows the log is not behind what THIS node published, but not
// behind what another node published on PostgreSQL (its last-checkpoint is in its own
// folder), nor behind what this node published after the copy was taken when the copy
// brought its older last-checkpoint back with it. The cost is one round trip to the
// witnesses at a process's first leadership (its start, or a takeover by a process that had
// not led), before its first write. Once per process: a later leadership (the lease lost
// and taken again) does not wait again, so a takeover stays within its few seconds. A
// process that takes the lease from another whose round had ended waits its own round: the
// stored alarms it rechecks are all the evidence it has of the witnesses until then.

import { Cause, Context, Data, Duration, Effect, Either, Layer, Metric, Option, Ref, Stream, SubscriptionRef } from "effect"
import {
  cosignaturesOf, parseCosignerKey, splitCosignature, withSignatureLines, type CosignerKey
} from "../domain/note/cosignature.js"
import { openNote, signatureLine } from "../domain/note/signedNote.js"
import { equal } from "../domain/bytes.js"
import { decodeB64, encodeB64 } from "../domain/encoding.js"
import type { Hash } from "../domain/tlog/hasher.js"
import { formatAddCheckpointRequest, parseTlogSize, TLOG_SIZE_CONTENT_TYPE } from "../domain/witness/addCheckpoint.js"
import { Clock } from "../ports/Clock.js"
import { Cosignatures, type AnotherHistoryAlarm, type CollectedCosignature, type RefusedTree } from "../ports/Cosignatures.js"
import { Crypto } from "../ports/Crypto.js"
import { LogStore } from "../ports/LogStore.js"
import { WITNESS_ANSWER_BOUND, WitnessTransport } from "../ports/WitnessTransport.js"
import { LogHealth } from "./LogHealth.js"
import { LogNotary } from "./LogNotary.js"
import { LogReader } from "./LogReader.js"
import { sampledOnScrape, witnessBelowQuorumSeconds, witnessCosigningLatest, witnessQuorum } from "./Metrics.js"
import { NodeRole } from "./NodeRole.js"
import { Publisher, type PublishedCheckpoint } from "./Publisher.js"
import type { WitnessingReport } from "../domain/stats/serviceStatsDocument.js"
import { ServiceConfig } from "./ServiceConfig.js"
import { noWitnessing } from "./witnessSettings.js"

export interface WitnessStatus {
  readonly name: string
  readonly url: string
  readonly vkey: string
  /** The largest size of this log the witness cosigned, and the cosignature's time (Unix s). */
  readonly cosignedSize: number | undefined
  readonly cosignedAt: number | undefined
  /** Seconds since that cosignature. */
  readonly cosignedAgeSeconds: number | undefined
  /** Why this process's last attempt failed, when it did. */
  readonly error: string | undefined
  /**
   * The witness cosigned a larger tree of this origin than this log holds (the log store's
   * size, not the checkpoint this process has at hand), or one this log does not extend: it
   * saw another history (this log went back, or forked). /healthz reports it while it
   * lasts, on every node: the alarm is stored (Cosignatures port), whichever node raised it;
   * a larger tree, or another tree at a size the log holds, also makes the log diverged
   * (DIVERGED, writes refused).
   */
  readonly sawAnotherHistory: boolean
  /** That alarm: what showed it and since when; undefined when sawAnotherHistory is false. */
  readonly anotherHistory: AnotherHistoryAlarm | undefined
}

export interface WitnessingStatus {
  readonly quorum: number
  /** Witnesses whose cosignature covers the latest checkpoint. */
  readonly cosigningLatest: number
  /** The size of the latest checkpoint this process holds (undefined before the first). */
  readonly latestSize: number | undefined
  /**
   * How long the log has gone without the quorum's cosignatures, in seconds: since the
   * first checkpoint the quorum has not cosigned, or since the quorum last cosigned a newer
   * checkpoint, whichever is later (so a busy log, whose latest checkpoint is always a
   * little ahead of its witnesses, is not short while they keep up); 0 while the quorum
   * covers the latest checkpoint.
   */
  readonly belowQuorumSeconds: number
  /** Short of the quorum for longer than QUORUM_GRACE_SECONDS: /healthz says DEGRADED. */
  readonly belowQuorum: boolean
  readonly witnesses: ReadonlyArray<WitnessStatus>
}

class Refusal extends Data.TaggedError("Refusal")<{
  readonly detail: string
  /**
   * Whether the answer is the witness's judgment of the checkpoint: its cosignature, or a
   * refusal C2SP tlog-witness gives (JUDGING_REFUSALS, a 409 with its size, a 422). Any
   * other answer (a 5xx, a 409 without a size, a 200 whose lines its key did not sign) may
   * come from whatever stands in front of the witness, and says nothing of the checkpoint:
   * in the first round it counts as no answer (the header).
   */
  readonly judged: boolean
  readonly anotherHistory?: boolean
  /** The witness cosigned this size of this origin, above the log's `logSize`: the log went back. */
  readonly above?: { readonly witnessSize: number; readonly logSize: number }
  /** The witness holds another tree than this log's at `size` (this log's root there): the log forked. */
  readonly forked?: { readonly size: number; readonly root: Hash }
}> {}

/**
 * The witness cosigned a larger checkpoint than the one this process submits, but one the
 * log holds: another node sharing the log published it (this one has not adopted it yet,
 * having just taken the lease, or was deposed without noticing yet). Not a failure: this
 * process waits for that checkpoint (Publisher.adoptPublished) and goes on from there.
 */
class CheckpointBehind extends Data.TaggedError("CheckpointBehind")<{ readonly witnessSize: number; readonly checkpointSize: number }> {}

interface Configured {
  readonly key: CosignerKey
  readonly url: string
  readonly vkey: string
}

interface Known {
  readonly stored: CollectedCosignature | undefined
  /** The size the witness said it last cosigned (a 409), when newer than the stored line. */
  readonly witnessSize: number | undefined
  readonly error: string | undefined
  /**
   * An alarm this process raised that the store did not take (the database away, say):
   * reported here until a raise is stored, the witness cosigns, or this process stops
   * leading (the next holder asks the witness itself at once), so an outage of the store
   * does not hide a fork from the node that found it.
   */
  readonly unstoredAlarm: AnotherHistoryAlarm | undefined
}

/** Where the log stands against its quorum (QUORUM_GRACE_SECONDS), times in Unix ms. */
interface Shortfall {
  /** The largest size at least `quorum` witnesses cosigned, as last looked at. */
  readonly quorumSize: number
  /** When that size last grew. */
  readonly advancedAt: number | undefined
  /** When a latest checkpoint above it was first seen; undefined while the quorum covers the latest. */
  readonly uncoveredSince: number | undefined
}

const UNKNOWN: Known = { stored: undefined, witnessSize: undefined, error: undefined, unstoredAlarm: undefined }

const FIRST_BACKOFF = Duration.seconds(1)
const MAX_BACKOFF = Duration.seconds(60)
const MAX_REASON = 300
/**
 * How long the log may go without its quorum's cosignatures before /healthz says DEGRADED
 * (witnesses_below_quorum). The normal delay between a checkpoint and its cosignatures is
 * one add-checkpoint round trip per witness, started as soon as the checkpoint is published
 * (two after a 409), plus up to a second for the other nodes to reload the stored lines; a
 * witness that does not answer is given up on after the transport's timeout (10 s,
 * WITNESS_ANSWER_BOUND) and asked again after 1, 2, 4, 8 s (the backoff
 * below). A minute covers a witness having a bad moment, three attempts that time out with
 * the waits between them (10 + 1 + 10 + 2 + 10 s) or five that fail at once (1 + 2 + 4 + 8
 * + 16 s), so a witness's restart or blip does not flap /healthz, while one that stays down
 * is reported about a minute after the first checkpoint it did not cosign.
 */
export const QUORUM_GRACE_SECONDS = 60

/**
 * The first round's bound in all (the header), from the process's first leadership: the
 * witnesses still unheard then are let go, with a warning line. A witness that answers is
 * heard within one round trip, one that does not within the transport's 10 s, one that
 * answers 409 within two requests (20 s at worst), and one that answers without judging
 * (a 5xx) within 10 s of the first submission and one more request (21 s at worst, when
 * that one times out); what is left past that is not a witness being slow but this node
 * unable to judge its answer (a store that keeps failing, no checkpoint published to
 * submit), which must not stop writes for good.
 */
export const FIRST_ROUND_DEADLINE = Duration.seconds(30)

/**
 * The refusals of C2SP tlog-witness's add-checkpoint that name no size: a malformed request
 * (400), an origin the witness does not witness (404), a checkpoint whose signature by the
 * log's key it does not verify (403). The witness's word on the request, which asking again
 * does not change (409 and 422 are judged on their own, in submit).
 */
const JUDGING_REFUSALS: ReadonlySet<number> = new Set([400, 403, 404])

/** How long a process behind the witness waits for the newer checkpoint before it asks again. */
const BEHIND_WAIT = Duration.seconds(1)
/** The least it waits: a diverged log's publisher answers at once and adopts nothing. */
const BEHIND_PAUSE = Duration.millis(100)

export class CosignatureCollector extends Context.Tag("aics/CosignatureCollector")<CosignatureCollector, {
  /** The cosignature lines of the checkpoint of this size, in the order of AICS_WITNESSES. */
  readonly linesAt: (size: number) => Effect.Effect<ReadonlyArray<string>>
  readonly status: Effect.Effect<WitnessingStatus>
  /** The status as /healthz and /v2/stats show it. */
  readonly report: Effect.Effect<WitnessingReport>
}>() {
  static readonly layer = Layer.scoped(CosignatureCollector, Effect.gen(function*() {
    const config = yield* ServiceConfig
    const crypto = yield* Crypto
    const clock = yield* Clock
    const publisher = yield* Publisher
    const reader = yield* LogReader
    const notary = yield* LogNotary
    const store = yield* Cosignatures
    const logStore = yield* LogStore
    const transport = yield* WitnessTransport
    const { leading } = yield* NodeRole
    const health = yield* LogHealth
    const settings = config.witnessing ?? noWitnessing(config.domain)

    const witnesses: Array<Configured> = []
    for (const w of settings.witnesses) {
      const key = parseCosignerKey(crypto.sha256, w.vkey)
      if (key === undefined) return yield* Effect.dieMessage(`AICS_WITNESSES: ${w.vkey} is not a cosignature (0x04) verifier key whose key ID matches`)
      witnesses.push({ key, url: w.url, vkey: w.vkey })
    }
    const known = yield* Ref.make(new Map<string, Known>(witnesses.map((w) => [w.vkey, UNKNOWN])))

    // The first round (see the header): the witnesses not heard yet, each with why its last
    // attempt did not count (undefined: not asked yet). Writes wait while one is left.
    const unheard = yield* Ref.make(new Map<string, string | undefined>(witnesses.map((w) => [w.vkey, undefined])))
    const awaitedReason = (left: ReadonlyMap<string, string | undefined>) =>
      left.size === 0 ? undefined : "writes are taken once every witness of AICS_WITNESSES has answered this node's first checkpoint submission, or failed to within its bound; waiting for " +
        witnesses.filter((w) => left.has(w.vkey)).map((w) => {
          const why = left.get(w.vkey)
          return `${w.key.name} (${w.url})${why === undefined ? "" : `: ${why}`}`
        }).join("; ")
    /**
     * The witness's first answer is in, or it is let go without one (`unanswered` saying how:
     * said in a warning line): writes go on once every witness is heard.
     */
    const heard = (w: Configured, unanswered?: string) =>
      Effect.gen(function*() {
        const left = yield* Ref.modify(unheard, (map): [ReadonlyMap<string, string | undefined> | undefined, Map<string, string | undefined>] => {
          if (!map.has(w.vkey)) return [undefined, map]
          const next = new Map(map)
          next.delete(w.vkey)
          return [next, next]
        })
        if (left === undefined) return
        if (unanswered !== undefined) {
          yield* Effect.logWarning(`witness ${w.key.name} (${w.url}) ${unanswered}: writes are not held for it; a log restored from an older copy is found diverged only once it answers`)
        }
        yield* health.setAwaited(awaitedReason(left))
        if (left.size > 0) return
        const diverged = yield* health.diverged
        yield* Effect.logInfo(`every witness of AICS_WITNESSES was asked since this process began sequencing: ${diverged === undefined ? "writes are taken" : "the log is diverged, and writes are still refused"}`)
      })
    /** The attempt did not hear the witness (`why`): it is asked again, and writes still wait for it. */
    const notHeard = (w: Configured, why: string) =>
      Effect.flatMap(
        Ref.modify(unheard, (map): [ReadonlyMap<string, string | undefined> | undefined, Map<string, string | undefined>] => {
          if (!map.has(w.vkey) || map.get(w.vkey) === why) return [undefined, map]
          const next = new Map(map).set(w.vkey, why)
          return [next, next]
        }),
        (left) => (left === undefined ? Effect.void : health.setAwaited(awaitedReason(left)))
      )
    yield* health.setAwaited(awaitedReason(yield* Ref.get(unheard)))
    const update = (vkey: string, f: (k: Known) => Known) =>
      Ref.update(known, (map) => new Map(map).set(vkey, f(map.get(vkey) ?? UNKNOWN)))

    // The stored alarms, by witness, as last read or written by this process. Reloads and
    // this process's own raises and clears take turns (alarmTurn): a reload that read the
    // table before a clear must not put the cleared alarm back when it lands after it.
    const alarms = yield* Ref.make(new Map<string, AnotherHistoryAlarm>())
    const alarmTurn = yield* Effect.makeSemaphore(1)

    /** Takes the stored lines and alarms (another process may have collected or raised them). */
    const reload = Effect.gen(function*() {
      const stored = yield* store.list
      for (const c of stored) {
        yield* update(c.witness, (k) => (k.stored === undefined || k.stored.size < c.size ? { ...k, stored: c } : k))
      }
    })
    // Apart from the lines: a failure of either keeps the copy of the other fresh.
    const reloadAlarms = Effect.zipRight(
      alarmTurn.withPermits(1)(Effect.flatMap(store.alarms, (list) => Ref.set(alarms, new Map(list.map((a) => [a.witness, a]))))),
      Effect.flatMap(Ref.get(alarms), (map) => judgeAlarms(map.values()))
    )

    /** The witness's alarm as this process knows it: stored, or raised here and not stored yet. */
    const alarmOf = (vkey: string, map: ReadonlyMap<string, Known>, stored: ReadonlyMap<string, AnotherHistoryAlarm>) =>
      stored.get(vkey) ?? map.get(vkey)?.unstoredAlarm

    const raiseAlarm = (w: Configured, detail: string, witnessSize: number | undefined, refusedTree: RefusedTree | undefined) =>
      Effect.gen(function*() {
        const vkey = w.vkey
        const alarm: AnotherHistoryAlarm = {
          witness: vkey, detail, raisedAt: Math.floor((yield* clock.nowMillis) / 1000),
          ...(witnessSize === undefined ? {} : { witnessSize }),
          ...(refusedTree === undefined ? {} : { refusedTree })
        }
        const raised = yield* Effect.either(alarmTurn.withPermits(1)(Effect.zipRight(
          store.raiseAlarm(alarm),
          Ref.update(alarms, (map) => {
            const was = map.get(vkey)
            const size = Math.max(was?.witnessSize ?? -1, witnessSize ?? -1)
            const tree = alarm.refusedTree ?? was?.refusedTree
            return new Map(map).set(vkey, {
              ...alarm, raisedAt: was?.raisedAt ?? alarm.raisedAt, ...(size < 0 ? {} : { witnessSize: size }), ...(tree === undefined ? {} : { refusedTree: tree })
            })
          })
        )))
        if (Either.isRight(raised)) return yield* update(vkey, (k) => ({ ...k, unstoredAlarm: undefined }))
        yield* update(vkey, (k) => ({ ...k, unstoredAlarm: { ...alarm, raisedAt: k.unstoredAlarm?.raisedAt ?? alarm.raisedAt } }))
        yield* Effect.logError(`the alarm that witness ${w.key.name} (${w.url}) saw another history could not be stored, so only this node reports it until it is: ${raised.left.operation}: ${raised.left.detail}`)
      })

    /**
     * Clears the witness's stored alarm. Asked of the store at every cosignature, not only
     * when this process's copy (up to a second old) holds one: an alarm another node raised
     * since, a deposed holder that had not noticed yet, would otherwise stay until the
     * witness's next cosignature, which an idle log may not ask for in a long while. Nothing
     * to clear costs the filesystem nothing and PostgreSQL one DELETE by primary key.
     */
    const clearAlarm = (vkey: string) =>
      alarmTurn.withPermits(1)(Effect.zipRight(store.clearAlarm(vkey), Ref.update(alarms, (map) => {
        if (!map.has(vkey)) return map
        const next = new Map(map)
        next.delete(vkey)
        return next
      })))

    /** The witness's cosignature line in a 200 answer, checked against the checkpoint. */
    const lineOf = (w: Configured, latest: PublishedCheckpoint, body: string) => {
      if (!body.endsWith("\n") || !body.slice(0, -1).split("\n").every((line) => line.startsWith("— "))) return undefined
      const opened = openNote(withSignatureLines(latest.note, [body]), [notary.verifierKey], crypto.ed25519)
      if (Either.isLeft(opened)) return undefined
      const cosignatures = cosignaturesOf(opened.right, [w.key], crypto.ed25519)
      if (Either.isLeft(cosignatures) || cosignatures.right.length === 0) return undefined
      const timestamp = cosignatures.right[0]!.timestamp
      const sig = opened.right.unverified.find((s) =>
        s.name === w.key.name && s.keyHash === w.key.keyHash && splitCosignature(s.signature)?.timestamp === timestamp)
      return sig === undefined ? undefined : { line: signatureLine(sig), timestamp }
    }

    /**
     * The witness holds a larger tree than the checkpoint at hand: a fork only when the log
     * itself holds fewer leaves. The log store's size is the truth: on PostgreSQL it is the
     * shared head row, which every node's appends move, whereas this process's checkpoint
     * and LogWriter size may lag what another node appended and published. A checkpoint
     * the witness cosigned was published after its leaves were durable, so a log that went
     * on from it holds at least that many. A size that cannot be read is a plain failure,
     * retried: never a fork by guess.
     */
    const overWitnessedSize = (witnessSize: number, latest: PublishedCheckpoint) =>
      Effect.flatMap(logStore.size, (logSize): Effect.Effect<never, Refusal | CheckpointBehind> =>
        witnessSize > logSize
          ? Effect.fail(new Refusal({
            detail: `the witness cosigned size ${witnessSize} of this origin, above this log's ${logSize}: it saw another history`,
            judged: true,
            anotherHistory: true,
            above: { witnessSize, logSize }
          }))
          : Effect.fail(new CheckpointBehind({ witnessSize, checkpointSize: latest.size })))

    /** Why the log is diverged when witness `w` cosigned `witnessSize` of this origin and the log holds `logSize` leaves. */
    const wentBack = (w: Configured, witnessSize: number, logSize: number) =>
      `witness ${w.key.name} (${w.url}) cosigned size ${witnessSize} of this origin, above this log's ${logSize}: ` +
      `the log went back (restored from a copy older than what was published); restore the database or data folder that holds those leaves`
    const markWentBack = (w: Configured, witnessSize: number, logSize: number) =>
      health.markDiverged(wentBack(w, witnessSize, logSize), "what its witnesses cosigned")

    /** Why the log is diverged when witness `w` holds another tree than the log's at `size`. */
    const forkedFrom = (w: Configured, size: number) =>
      `witness ${w.key.name} (${w.url}) holds another tree of size ${size} of this origin than this log's (it refused the consistency proof from it): ` +
      `the log forked (a copy was restored and written to); restore the database or data folder that holds the tree the witness cosigned`
    const markForked = (w: Configured, size: number) =>
      health.markDiverged(forkedFrom(w, size), "what its witnesses cosigned")

    /**
     * Finds the log diverged when a stored alarm (of a witness of AICS_WITNESSES) proves it:
     * its witness cosigned a size above the log store's, or refused the tree the log still
     * holds at a size (the root there read again: a log restored from the copy the witness
     * cosigned has another). The alarm another node raised, or one this process raised
     * before a restart. Reads the log only when an alarm carries such a proof, so a log
     * without one pays nothing for it.
     */
    const judgeAlarms = (list: Iterable<AnotherHistoryAlarm>) =>
      Effect.gen(function*() {
        const proofs = witnesses.flatMap((w) => {
          for (const a of list) {
            if (a.witness === w.vkey && (a.witnessSize !== undefined || a.refusedTree !== undefined)) {
              return [{ w, witnessSize: a.witnessSize, refusedTree: a.refusedTree }]
            }
          }
          return []
        })
        if (proofs.length === 0) return
        const logSize = yield* logStore.size
        for (const { w, witnessSize, refusedTree } of proofs) {
          if (witnessSize !== undefined && witnessSize > logSize) yield* markWentBack(w, witnessSize, logSize)
          if (refusedTree === undefined) continue
          // Fewer leaves than the tree the witness holds: the log went back below it too.
          if (refusedTree.size > logSize) yield* markWentBack(w, refusedTree.size, logSize)
          else if (yield* stillHolds(refusedTree)) yield* markForked(w, refusedTree.size)
        }
      })

    /** Whether the log's tree at the refused size is the one refused. */
    const stillHolds = (tree: RefusedTree) =>
      Effect.map(reader.rootAt(tree.size), (root) => {
        const refused = decodeB64(tree.root)
        return refused !== undefined && equal(root, refused)
      })

    const submit = (w: Configured, latest: PublishedCheckpoint) =>
      Effect.gen(function*() {
        const k = (yield* Ref.get(known)).get(w.vkey)
        let old = k?.witnessSize ?? k?.stored?.size ?? 0
        for (let attempt = 0; attempt < 3; attempt++) {
          if (old > latest.size) return yield* overWitnessedSize(old, latest)
          const proof = old === 0 ? [] : yield* reader.consistencyProof(old, latest.size)
          const reply = yield* transport.addCheckpoint(w.url, formatAddCheckpointRequest(old, proof, latest.note))
          if (reply.status === 200) {
            const cosigned = lineOf(w, latest, reply.body)
            if (cosigned === undefined) return yield* new Refusal({ detail: "the witness answered 200 without a valid cosignature by its key", judged: false })
            // Judged: the witness cosigned this log's checkpoint, so its tree is this log's.
            // Heard before the line is stored: a store that fails would hold writes for good.
            yield* heard(w)
            const record: CollectedCosignature = { witness: w.vkey, size: latest.size, line: cosigned.line, timestamp: cosigned.timestamp }
            yield* store.record(record)
            // The witness cosigned this log: whatever history it saw before, it now holds
            // this one. A clear that fails fails the attempt, which is retried (and asks the
            // witness again) until the alarm is gone, on every node.
            yield* clearAlarm(w.vkey)
            yield* update(w.vkey, () => ({ ...UNKNOWN, stored: record }))
            return
          }
          // 422: the consistency proof from the witness's tree to this checkpoint does not
          // verify (C2SP tlog-witness): the witness holds another tree of size `old` (its
          // size, or it would have answered 409), signed by the log key, than this log's: the
          // log forked (or, less likely, a witness or this service is broken: failing closed
          // either way is an operator's to look at). From size 0 the proof is empty and
          // always verifies: a 422 there shows a broken witness, not another history.
          if (reply.status === 422) {
            const said = reply.body.slice(0, MAX_REASON).trim()
            if (old === 0) return yield* new Refusal({ detail: `422 to a request from size 0, whose empty proof always verifies: the witness is broken (${said})`, judged: true })
            return yield* new Refusal({
              detail: `422: the witness refused the consistency proof from size ${old}, so the tree it cosigned at that size is not this log's: it saw another history (${said})`,
              judged: true,
              anotherHistory: true,
              forked: { size: old, root: yield* reader.rootAt(old) }
            })
          }
          const size = reply.status === 409 && reply.contentType.startsWith(TLOG_SIZE_CONTENT_TYPE) ? parseTlogSize(reply.body) : undefined
          // A 409 to a request from this checkpoint's own size, naming that very size: the
          // witness cosigned another tree of that size (C2SP tlog-witness: equal sizes, other
          // root hashes). Only a 409 that names the size is taken as that evidence: one with
          // no size (a proxy's, a witness's own conflict) stops nothing, it is refused below.
          if (reply.status === 409 && old === latest.size && old > 0 && size === old) {
            return yield* new Refusal({
              detail: `409: the witness cosigned another tree of size ${old} of this origin: it saw another history (${reply.body.slice(0, MAX_REASON).trim()})`,
              judged: true,
              anotherHistory: true,
              forked: { size: old, root: latest.rootHash }
            })
          }
          // Left: a 409 naming the size sent (a broken witness, but in tlog-witness's words),
          // the refusals that name no size, and answers that are none of tlog-witness's.
          if (size === undefined || size === old) {
            return yield* new Refusal({
              detail: `${reply.status}: ${reply.body.slice(0, MAX_REASON).trim()}`,
              judged: size !== undefined || JUDGING_REFUSALS.has(reply.status)
            })
          }
          old = size
          yield* update(w.vkey, (k) => ({ ...k, witnessSize: size }))
        }
        return yield* new Refusal({ detail: "the witness's size kept changing", judged: true })
      })

    /** Behind the witness: waits until this process holds a checkpoint the witness can go on from. */
    const awaitWitnessedCheckpoint = (w: Configured, behind: CheckpointBehind) =>
      Effect.gen(function*() {
        yield* Effect.logDebug(`witness ${w.key.name} (${w.url}) cosigned size ${behind.witnessSize}, which another node published; this process has ${behind.checkpointSize} and waits for it`)
        yield* Effect.all([publisher.awaitCoverage(behind.witnessSize, BEHIND_WAIT), Effect.sleep(BEHIND_PAUSE)], { concurrency: 2 })
      })

    const serve = (w: Configured) =>
      Effect.gen(function*() {
        let backoff = FIRST_BACKOFF
        // Whether the witness answered since this process took the lead. Until it has, the
        // latest checkpoint is submitted even when a stored cosignature covers it: a log
        // restored from a backup restores its stored cosignatures too, and would otherwise
        // never ask the witness (which holds a larger tree) until its next write, by then
        // signing a checkpoint of another history. Asked at once, the witness's 409 above
        // the log's size marks the log diverged before that (markWentBack), unless a write
        // comes first: the kept checkpoint (Publisher) covers a node that saw the larger one.
        // Only a judgment counts (Refusal.judged): after a proxy's 502 in front of the
        // witness, it is still asked, though a stored cosignature covers the checkpoint.
        let answered = false
        // When this process first submitted to the witness in its first round (Effect's
        // clock, as FIRST_ROUND_DEADLINE's): a witness that keeps answering without judging
        // the checkpoint is heard WITNESS_ANSWER_BOUND after it, as one that never answers.
        // An attempt this node's own storage failed (before any request) starts nothing.
        let firstSubmittedAt: number | undefined
        for (;;) {
          const latest = yield* publisher.latest
          const k = (yield* Ref.get(known)).get(w.vkey)
          const lead = yield* SubscriptionRef.get(leading)
          if (!lead) {
            answered = false
            // An alarm the store never took is this process's word alone: the next holder
            // asks the witness at once and raises its own.
            if (k?.unstoredAlarm !== undefined) yield* update(w.vkey, (was) => ({ ...was, unstoredAlarm: undefined }))
          }
          // Leading without a checkpoint (none recovered, and publishing fails): nothing to ask
          // the witness yet, said while writes wait (until FIRST_ROUND_DEADLINE at most).
          if (lead && latest === undefined) yield* notHeard(w, "this node has no checkpoint to submit yet (none published)")
          if (!lead || latest === undefined || (answered && (k?.stored?.size ?? -1) >= latest.size)) {
            // Nothing to submit: wait for a newer checkpoint (or a second, for leadership).
            // On a diverged log the wait ends at once with nothing: then a pause, not a spin.
            const newer = yield* publisher.awaitCoverage((latest?.size ?? 0) + 1, Duration.seconds(1))
            if (Option.isNone(newer)) yield* Effect.sleep(BEHIND_PAUSE)
            continue
          }
          const attemptedAt = yield* Effect.clockWith((c) => c.currentTimeMillis)
          const result = yield* Effect.either(submit(w, latest))
          if (Either.isRight(result)) {
            backoff = FIRST_BACKOFF
            answered = true
            yield* heard(w)
            continue
          }
          const error = result.left
          if (error._tag === "Refusal" && error.judged) answered = true
          if (error._tag === "CheckpointBehind") {
            // Its size is one the log holds: nothing it said diverges the log.
            yield* heard(w)
            yield* awaitWitnessedCheckpoint(w, error)
            continue
          }
          const detail = error._tag === "Refusal" ? error.detail
            : error._tag === "WitnessUnreachable" ? `unreachable: ${error.detail}`
            : `${error.operation}: ${error.detail}`
          // Sticky until the witness cosigns this log again: once this log outgrows the
          // witness's tree, the fork shows as a proof the witness refuses, not as a size.
          // Raised again at each such refusal, which keeps the latest detail (the store
          // keeps the first time).
          const anotherHistory = error._tag === "Refusal" && error.anotherHistory === true
          const above = error._tag === "Refusal" ? error.above : undefined
          const forked = error._tag === "Refusal" ? error.forked : undefined
          const alarmBefore = alarmOf(w.vkey, yield* Ref.get(known), yield* Ref.get(alarms))
          // The alarm before the error: whoever sees the error sees the alarm it raised. The
          // alarm stored before this node is diverged, so that a node that takes the lease
          // from it finds the stored proof (LogHealth.recheck); diverged whether or not the
          // store took it.
          if (anotherHistory) {
            yield* raiseAlarm(w, detail, above?.witnessSize, forked === undefined ? undefined : { size: forked.size, root: encodeB64(forked.root) })
          }
          if (above !== undefined) yield* markWentBack(w, above.witnessSize, above.logSize)
          if (forked !== undefined) yield* markForked(w, forked.size)
          yield* update(w.vkey, (k) => ({ ...k, error: detail }))
          // A witness that holds a larger tree of this origin, or another one, is evidence of a
          // fork (a restored copy, say): an error, not a witness that is merely away.
          const line = `witness ${w.key.name} (${w.url}) did not cosign size ${latest.size}: ${detail}`
          yield* (anotherHistory || alarmBefore !== undefined ? Effect.logError(`${line} (docs/operations.md "Backups and restores")`) : Effect.logWarning(line))
          // Heard once what it said is judged (the log diverged above when it shows so), or
          // once the transport gave up on it; a storage failure judged nothing, and neither
          // did an answer that is no judgment (a 502 of a proxy in front of the witness,
          // which a restored copy must not take writes on) until the bound of a witness that
          // does not answer has passed since the first submission.
          // An unreachable witness is the same: a refused connection (the witness restarting
          // with nothing in front of it) fails at once, and heard on it the copy took writes.
          const unjudged = (error._tag === "Refusal" && !error.judged) || error._tag === "WitnessUnreachable"
          if (unjudged && firstSubmittedAt === undefined && (yield* Ref.get(unheard)).has(w.vkey)) firstSubmittedAt = attemptedAt
          const waitedFor = unjudged && firstSubmittedAt !== undefined
            ? Duration.millis((yield* Effect.clockWith((c) => c.currentTimeMillis)) - firstSubmittedAt)
            : Duration.zero
          // Less the second between tries: the transport's own timeout, WITNESS_ANSWER_BOUND
          // after its request, may read a few milliseconds short of it here, and one more try
          // would hold writes up to twice as long.
          if (error._tag === "StorageError" || (unjudged && Duration.lessThan(waitedFor, Duration.subtract(WITNESS_ANSWER_BOUND, FIRST_BACKOFF)))) {
            yield* notHeard(w, unjudged
              ? `${detail} (no judgment of the checkpoint: asked again every second, for ${Duration.format(WITNESS_ANSWER_BOUND)} from the first submission at most)`
              : detail)
            // Writes wait for it: asked again every second rather than after a growing wait.
            if ((yield* Ref.get(unheard)).has(w.vkey)) backoff = FIRST_BACKOFF
          } else if (unjudged) {
            yield* heard(w, `did not judge this node's first checkpoint submission within its bound, ${Duration.format(WITNESS_ANSWER_BOUND)} from the first submission (${detail})`)
          } else {
            yield* heard(w)
          }
          yield* Effect.sleep(backoff)
          backoff = Duration.min(Duration.times(backoff, 2), MAX_BACKOFF)
        }
      })

    /**
     * serve(w), started again after a defect (a bug, which Effect.either does not catch):
     * logged, and the witness counts as heard, so that a bug in one witness's loop holds
     * writes neither until a restart nor at all, and the witness is asked again after a pause.
     */
    const serveRestarting = (w: Configured) =>
      serve(w).pipe(
        Effect.catchAllDefect((defect) =>
          Effect.gen(function*() {
            yield* Effect.logError(`collecting the cosignatures of witness ${w.key.name} (${w.url}) failed unexpectedly: it starts again in ${Duration.format(FIRST_BACKOFF)}`, Cause.die(defect))
            yield* heard(w, "could not be asked: this node's collection for it failed (an error line says why)")
            yield* Effect.sleep(FIRST_BACKOFF)
          })),
        Effect.forever
      )

    /** The first round's deadline, from this process's first leadership: every witness still unheard is let go. */
    const firstRoundDeadline = Effect.gen(function*() {
      yield* leading.changes.pipe(Stream.filter((lead) => lead), Stream.take(1), Stream.runDrain)
      yield* Effect.sleep(FIRST_ROUND_DEADLINE)
      const left = yield* Ref.get(unheard)
      for (const w of witnesses) {
        if (!left.has(w.vkey)) continue
        const why = left.get(w.vkey)
        yield* heard(w, `was not heard within ${Duration.format(FIRST_ROUND_DEADLINE)} of this node's first leadership (${why ?? "not asked yet"})`)
      }
    })

    // How long the log has gone without its quorum's cosignatures (QUORUM_GRACE_SECONDS):
    // the largest size the quorum cosigned, when this process saw it grow, and when it first
    // saw a latest checkpoint above it. Looked at every second, after the reload, and at
    // every status, so the time is this process's own and /healthz still reads no storage.
    const shortfall = yield* Ref.make<Shortfall>({ quorumSize: 0, advancedAt: undefined, uncoveredSince: undefined })
    /** The largest size `quorum` witnesses cosigned (a witness that cosigned a size vouches for every smaller one of its tree). */
    const quorumSizeOf = (map: ReadonlyMap<string, Known>) =>
      witnesses.map((w) => map.get(w.vkey)?.stored?.size ?? 0).sort((x, y) => y - x)[settings.quorum - 1] ?? 0
    /** The seconds the log has been short of its quorum, as of now (0 when it is not). */
    const observeShortfall = Effect.gen(function*() {
      const latest = yield* publisher.latest
      const map = yield* Ref.get(known)
      const now = yield* clock.nowMillis
      return yield* Ref.modify(shortfall, (was): [number, Shortfall] => {
        if (settings.quorum === 0 || latest === undefined) return [0, was]
        const quorumSize = quorumSizeOf(map)
        const advancedAt = quorumSize > was.quorumSize ? now : was.advancedAt
        const uncoveredSince = quorumSize >= latest.size ? undefined : was.uncoveredSince ?? now
        const next = { quorumSize: Math.max(quorumSize, was.quorumSize), advancedAt, uncoveredSince }
        if (uncoveredSince === undefined) return [0, next]
        return [Math.max(0, now - Math.max(uncoveredSince, advancedAt ?? uncoveredSince)) / 1000, next]
      })
    })

    if (witnesses.length > 0) {
      // A node that takes the lease looks at the stored alarms itself, before its first
      // write: its copy may be a second old, and the one that raised it may have just
      // handed the lease over.
      yield* health.addRecheck(Effect.flatMap(store.alarms, judgeAlarms))
      yield* Effect.ignore(reload)
      yield* Effect.ignore(reloadAlarms)
      yield* observeShortfall
      for (const w of witnesses) yield* Effect.forkScoped(serveRestarting(w))
      yield* Effect.forkScoped(firstRoundDeadline)
      yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep(Duration.seconds(1)),
        Effect.zipRight(Effect.zipRight(Effect.ignore(reload), Effect.ignore(reloadAlarms)), observeShortfall))))
    }

    const linesAt = (size: number) =>
      Effect.map(Ref.get(known), (map) =>
        witnesses.flatMap((w) => {
          const stored = map.get(w.vkey)?.stored
          return stored !== undefined && stored.size === size ? [stored.line] : []
        }))

    // Alarms of witnesses not in AICS_WITNESSES are not reported: taking a retired witness
    // out of the list is how an operator sets its alarm aside (docs/operations.md).
    const status = Effect.gen(function*() {
      const map = yield* Ref.get(known)
      const stored = yield* Ref.get(alarms)
      const latest = yield* publisher.latest
      const nowSeconds = Math.floor((yield* clock.nowMillis) / 1000)
      const belowQuorumSeconds = yield* observeShortfall
      const list = witnesses.map((w): WitnessStatus => {
        const cosigned = map.get(w.vkey)?.stored
        const alarm = alarmOf(w.vkey, map, stored)
        return {
          name: w.key.name, url: w.url, vkey: w.vkey,
          cosignedSize: cosigned?.size,
          cosignedAt: cosigned?.timestamp,
          cosignedAgeSeconds: cosigned === undefined ? undefined : Math.max(0, nowSeconds - cosigned.timestamp),
          error: map.get(w.vkey)?.error,
          sawAnotherHistory: alarm !== undefined,
          anotherHistory: alarm
        }
      })
      return {
        quorum: settings.quorum,
        cosigningLatest: latest === undefined ? 0 : list.filter((w) => w.cosignedSize === latest.size).length,
        latestSize: latest?.size,
        belowQuorumSeconds,
        belowQuorum: belowQuorumSeconds > QUORUM_GRACE_SECONDS,
        witnesses: list
      }
    })

    // The series of docs/operations.md "Metrics", sampled at each scrape from the same status.
    yield* sampledOnScrape(Effect.flatMap(status, (s) => Effect.all([
      Metric.set(witnessQuorum, s.quorum),
      Metric.set(witnessCosigningLatest, s.cosigningLatest),
      Metric.set(witnessBelowQuorumSeconds, s.belowQuorumSeconds)
    ], { discard: true })))

    const report = Effect.map(status, (s): WitnessingReport => ({
      quorum: s.quorum,
      cosigning_latest: s.cosigningLatest,
      witnesses: s.witnesses.map((w) => ({
        name: w.name, url: w.url, vkey: w.vkey,
        cosigned_size: w.cosignedSize ?? null,
        cosigned_at: w.cosignedAt ?? null,
        cosigned_age_seconds: w.cosignedAgeSeconds ?? null,
        error: w.error ?? null
      }))
    }))

    return { linesAt, status, report }
  }))
}
