// Grows a service's log to a given size with realistic signed traffic (trafficModel.ts),
// through the real sequencer and stores in this process: the storage the service would
// build from the same environment (src/storageLayers.ts: AICS_DATA_DIR, or PostgreSQL with
// AICS_DATABASE_URL), the charter on an empty log, the LogWriter, the Sequencer deciding
// on slices of the projection store, and the Publisher writing tiles and checkpoints. Each
// entry passes checkSubmission, as POST /v2/entries's checks do (on a worker thread,
// trafficWorker.ts), then Sequencer.submit; what the stores hold afterwards is what the
// service would have written. Only the HTTP signature, the nonce store and the admission
// budgets are skipped: they write no leaf.
//
//   AICS_DATA_DIR=<dir> [AICS_DATABASE_URL=...] node dist/bench/trafficGenerate.js <size>
//
// A log that already holds leaves is read back first (every agent's chain, grants, polls,
// recent posts: trafficModel.ts observes them) and continued up to <size>. bench/scaleTraffic
// runs this in a child process of its own and reads the last line, `SUMMARY {json}`.
//
// Many submissions are in flight at once (IN_FLIGHT, two of the sequencer's batches), so
// batches are as large as under a real load.

import { Worker } from "node:worker_threads"
import { Effect, Either, Layer, ManagedRuntime, Stream } from "effect"
import { nodeCrypto } from "../src/adapters/crypto/nodeCrypto.js"
import { Charter, makeCharter } from "../src/app/Charter.js"
import { LogHealth } from "../src/app/LogHealth.js"
import { LogNotary } from "../src/app/LogNotary.js"
import { LogReader } from "../src/app/LogReader.js"
import { LogWriter } from "../src/app/LogWriter.js"
import { NodeRole } from "../src/app/NodeRole.js"
import { Publisher } from "../src/app/Publisher.js"
import { MAX_BATCH, Sequencer } from "../src/app/Sequencer.js"
import { ServiceConfig } from "../src/app/ServiceConfig.js"
import { utf8 } from "../src/domain/bytes.js"
import { encodeU64 } from "../src/domain/encoding.js"
import type { Envelope } from "../src/domain/envelope/envelope.js"
import { envelopeOfLeaf, submissionFromRelayed } from "../src/domain/write/relayed.js"
import { LogStore } from "../src/ports/LogStore.js"
import { Platform, Storage } from "../src/storageLayers.js"
import { makeSigner } from "./trafficKeys.js"
import { type Plan, TrafficModel } from "./trafficModel.js"
import type { SignAnswer, SignJob } from "./trafficWorker.js"

/** Submissions in flight: enough for two full batches, so one gathers while the other commits. */
const IN_FLIGHT = 2 * MAX_BATCH
/** Worker threads that sign and check (BENCH_SIGN_WORKERS): one keeps up with the sequencer on two cores. */
const SIGN_WORKERS = Number(process.env["BENCH_SIGN_WORKERS"] ?? 1)
/** Entries per message to a worker. */
const JOBS_PER_MESSAGE = 128
/** Leaves read per call when the log is read back. */
const READ_CHUNK = 1024
const PROGRESS_EVERY_MS = 10_000

/** What the service builds to write leaves, from the same environment, without its HTTP side. */
const Writer = Layer.mergeAll(Sequencer.layer, Publisher.layer).pipe(
  Layer.provideMerge(Layer.effect(Charter, makeCharter)),
  Layer.provideMerge(Layer.mergeAll(LogWriter.layer, LogNotary.layer, LogReader.layer)),
  Layer.provideMerge(Layer.mergeAll(LogHealth.layer, NodeRole.layer)),
  Layer.provideMerge(Storage),
  Layer.provideMerge(Platform),
  Layer.provideMerge(ServiceConfig.fromEnv)
)

export interface GenerateSummary {
  readonly start: number
  readonly size: number
  readonly accepted: number
  readonly refused: Readonly<Record<string, number>>
  readonly byType: Readonly<Record<string, number>>
  readonly readBackSeconds: number
  readonly startSeconds: number
  readonly seconds: number
  readonly perSecond: number
  /** CPU of this process (every thread: the sequencer's, the stores', the signing worker's) per entry written, ms. */
  readonly cpuMsPerEntry: number
  readonly maxRssMiB: number
  readonly agents: number
  readonly agentNumbers: number
  readonly channels: ReadonlyArray<string>
  readonly dmRecipients: ReadonlyArray<{ readonly agent: number; readonly gen: number; readonly kid: string }>
}

const rssMiB = () => process.memoryUsage.rss() / 2 ** 20

/** A promise and its two ends (Promise.withResolvers is Node 22's). */
const deferred = () => {
  let resolve!: () => void
  let reject!: (error: unknown) => void
  const promise = new Promise<void>((yes, no) => {
    resolve = yes
    reject = no
  })
  return { promise, resolve, reject }
}

const generate = async (target: number): Promise<GenerateSummary> => {
  const started = performance.now()
  const runtime = ManagedRuntime.make(Writer)
  try {
    const { sequencer, store, publisher, config } = await runtime.runPromise(Effect.all({
      sequencer: Sequencer, store: LogStore, publisher: Publisher, config: ServiceConfig
    }))
    // Submissions wait for the lease: a process that does not lead would relay them.
    await runtime.runPromise(Effect.flatMap(NodeRole, ({ leading }) =>
      Stream.runDrain(Stream.takeUntil(leading.changes, (lead) => lead))))
    const startSeconds = (performance.now() - started) / 1000
    const start = await runtime.runPromise(store.size)
    const signer = makeSigner()
    const model = new TrafficModel(config.origin, signer)

    // Read back what earlier runs wrote.
    const readStarted = performance.now()
    for (let from = 0; from < start; from += READ_CHUNK) {
      const leaves = await runtime.runPromise(store.readEntries(from, Math.min(start, from + READ_CHUNK)))
      leaves.forEach((leaf, i) => {
        const { envelopeJcs } = envelopeOfLeaf(leaf)
        model.observe(JSON.parse(envelopeJcs) as Envelope, from + i, encodeU64(nodeCrypto.sha256(utf8(envelopeJcs))))
      })
    }
    const readBackSeconds = (performance.now() - readStarted) / 1000
    if (start > 0) console.log(`read back ${start} leaves in ${readBackSeconds.toFixed(1)} s: ${model.agentCount} agents`)

    const context = { sha256: nodeCrypto.sha256, ed25519: nodeCrypto.ed25519 }
    const refused: Record<string, number> = {}
    const byType: Record<string, number> = {}
    const refusalDetails: Array<string> = []
    let accepted = 0
    /** Planned and not yet answered: at the workers or in the sequencer. */
    let inFlight = 0
    let maxRss = rssMiB()
    const writeStarted = performance.now()
    const cpuStarted = process.cpuUsage()
    let lastLine = { at: writeStarted, size: start }
    const finish = deferred()

    const settle = (plan: Plan) => {
      inFlight--
      plan.release()
      schedule()
    }
    const refusal = (plan: Plan, code: string, detail: string) => {
      refused[code] = (refused[code] ?? 0) + 1
      if (refusalDetails.length < 5) refusalDetails.push(`${plan.type} by agent ${plan.agent.n}: ${code} ${detail}`)
      settle(plan)
    }

    /** A signed and checked entry, rebuilt as the sequencer rebuilds a relayed one, submitted. */
    const pending = new Map<number, Plan>()
    const sequence = (signed: SignAnswer) => {
      const plan = pending.get(signed.id)!
      pending.delete(signed.id)
      if ("refused" in signed) return refusal(plan, signed.refused, signed.detail)
      const submission = submissionFromRelayed({ envelopeJcs: signed.envelopeJcs, body: signed.body }, context)
      if (Either.isLeft(submission)) return refusal(plan, submission.left.code, submission.left.detail)
      runtime.runPromise(sequencer.submit(submission.right)).then((outcome) => {
        if (outcome._tag === "Refused") return refusal(plan, outcome.refusal.code, outcome.refusal.detail)
        accepted++
        byType[plan.type] = (byType[plan.type] ?? 0) + 1
        // Before the agent is free again: its next entry follows this one in its chain.
        model.observe(submission.right.envelope, outcome.index, encodeU64(submission.right.envelopeHash))
        settle(plan)
      }, finish.reject)
    }
    const workers = Array.from({ length: SIGN_WORKERS }, () => {
      const worker = new Worker(new URL("./trafficWorker.js", import.meta.url), { workerData: { origin: config.origin } })
      worker.on("message", (answers: ReadonlyArray<SignAnswer>) => answers.forEach(sequence))
      worker.on("error", finish.reject)
      return worker
    })
    let nextId = 0
    let nextWorker = 0

    let scheduled = false
    /** Refills the flight once the answers of a batch are all in. */
    const schedule = () => {
      if (scheduled) return
      scheduled = true
      setImmediate(pump)
    }
    const pump = () => {
      scheduled = false
      const now = Math.floor(Date.now() / 1000)
      let jobs: Array<SignJob> = []
      const send = () => {
        workers[nextWorker++ % workers.length]!.postMessage(jobs)
        jobs = []
      }
      while (inFlight < IN_FLIGHT && start + accepted + inFlight < target) {
        const plan = model.next(now)
        const id = nextId++
        pending.set(id, plan)
        inFlight++
        jobs.push({ id, seed: plan.seed, body: plan.body, envelope: {
          v: "AICS-1", origin: config.origin, type: plan.type, kid: plan.agent.kid, seq: plan.agent.seq, prev: plan.agent.prev,
          payload: plan.payload as Envelope["payload"]
        } })
        if (jobs.length === JOBS_PER_MESSAGE) send()
      }
      if (jobs.length > 0) send()
      const at = performance.now()
      maxRss = Math.max(maxRss, rssMiB())
      if (at - lastLine.at >= PROGRESS_EVERY_MS) {
        const size = start + accepted
        console.log(`${size} leaves, ${((size - lastLine.size) / ((at - lastLine.at) / 1000)).toFixed(0)} entries/s, RSS ${maxRss.toFixed(0)} MiB`)
        lastLine = { at, size }
      }
      if (inFlight === 0 && start + accepted >= target) finish.resolve()
      // Every refusal is a flaw of the generator: a few are shown, and too many stop the run.
      else if (Object.values(refused).reduce((a, b) => a + b, 0) > 100 + accepted / 100) {
        finish.reject(new Error(`too many refusals: ${JSON.stringify(refused)}\n${refusalDetails.join("\n")}`))
      }
    }
    pump()
    await finish.promise.finally(() => Promise.all(workers.map((worker) => worker.terminate())))
    const seconds = (performance.now() - writeStarted) / 1000
    const cpu = process.cpuUsage(cpuStarted)
    await runtime.runPromise(publisher.publishNow)
    if (refusalDetails.length > 0) console.log(`refusals:\n  ${refusalDetails.join("\n  ")}`)
    return {
      start, size: start + accepted, accepted, refused, byType, readBackSeconds, startSeconds, seconds,
      perSecond: accepted / Math.max(seconds, 1e-9), cpuMsPerEntry: (cpu.user + cpu.system) / 1000 / Math.max(accepted, 1), maxRssMiB: Math.round(maxRss), agents: model.agentCount, agentNumbers: model.agentNumbers,
      channels: model.channels, dmRecipients: model.dmRecipients.slice(0, 64)
    }
  } finally {
    await runtime.dispose()
  }
}

const target = Number(process.argv[2])
if (!Number.isSafeInteger(target) || target < 1) {
  console.error("usage: AICS_DATA_DIR=<dir> [AICS_DATABASE_URL=...] node dist/bench/trafficGenerate.js <size>")
  process.exit(2)
}
generate(target).then((summary) => {
  console.log(`SUMMARY ${JSON.stringify(summary)}`)
  process.exit(0)
}, (error) => {
  console.error(error)
  process.exit(1)
})
