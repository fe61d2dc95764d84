// The composition root: which adapter serves each port, and nothing else. Filesystem
// storage under AICS_DATA_DIR (default ./data), node:crypto, the system clock, HTTP; or,
// with AICS_DATABASE_URL, PostgreSQL shared by any number of processes (one sequences).
// The storage and platform adapters are chosen in storageLayers.ts, which the benchmark
// that drives the sequencer in process builds too.

import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Console, Context, Effect, Layer } from "effect"
import { SupAssetFileLive } from "./adapters/fs/SupAssetFile.js"
import { HttpLive } from "./adapters/http/server.js"
import { environmentProvider } from "./adapters/os/environment.js"
import { heapGrowthAsSet } from "./adapters/os/heapGrowth.js"
import { freePortOn, startupChecks } from "./adapters/os/startupChecks.js"
import { startupFailureLine } from "./adapters/os/startupLine.js"
import { startupLines } from "./adapters/os/startupLines.js"
import { GateTcpLive } from "./adapters/tcp/gateServer.js"
import { LogVkeyFileLive } from "./adapters/keys/LogVkeyFile.js"
import { OwnerKidRecord } from "./adapters/keys/FileKeys.js"
import { InProcessWriteChecksLive } from "./adapters/workers/InProcessWriteChecks.js"
import { WorkerWriteChecksLive } from "./adapters/workers/WorkerWriteChecks.js"
import { Bodies } from "./app/Bodies.js"
import { ServiceHalt } from "./app/ServiceHalt.js"
import { CharterStorage, Platform, StorageAfterCharter } from "./storageLayers.js"
import { Charter, makeCharter } from "./app/Charter.js"
import { ChartedSettings } from "./app/charterSettings.js"
import { Contributions } from "./app/Contributions.js"
import { AdminWrites } from "./app/AdminWrites.js"
import { Admission } from "./app/Admission.js"
import { AuthorityRefusals } from "./app/AuthorityRefusals.js"
import { BodyLedger } from "./app/BodyLedger.js"
import { BodyShortfallLive } from "./app/BodyShortfall.js"
import { Card } from "./app/Card.js"
import { EntryWrites } from "./app/EntryWrites.js"
import { Gate } from "./app/Gate.js"
import { LogHealth } from "./app/LogHealth.js"
import { LogNotary } from "./app/LogNotary.js"
import { LogReader } from "./app/LogReader.js"
import { LogStatus } from "./app/LogStatus.js"
import { LogStream } from "./app/LogStream.js"
import { LogWriter } from "./app/LogWriter.js"
import { NodeRole } from "./app/NodeRole.js"
import { Notices, NoticeRetentionLive } from "./app/Notices.js"
import { PolicyWrites } from "./app/PolicyWrites.js"
import { Projection } from "./app/Projection.js"
import { StateReader } from "./app/StateReader.js"
import { Publisher } from "./app/Publisher.js"
import { Receipts } from "./app/Receipts.js"
import { RequestStats } from "./app/RequestStats.js"
import { Sequencer } from "./app/Sequencer.js"
import { ServiceConfig } from "./app/ServiceConfig.js"
import { ServiceStats } from "./app/ServiceStats.js"
import { SignedReads } from "./app/SignedReads.js"
import { SupAsset } from "./app/SupAsset.js"
import { TileAuditLive } from "./app/TileAudit.js"
import { WriteAnswers } from "./app/WriteAnswers.js"
import { WitnessVkeyFileLive } from "./adapters/keys/FileWitnessKey.js"
import { Witness } from "./app/Witness.js"
import { CosignatureCollector } from "./app/CosignatureCollector.js"
import { operationsConfig } from "./app/OperationsConfig.js"
import { LoggingLive } from "./adapters/logging/logging.js"
import { ProcessLifecycleLive } from "./adapters/logging/lifecycle.js"
import { MetricsServerLive } from "./adapters/metrics/MetricsServer.js"
import { clientVersion } from "./client/version.js"
import { OwnerKey } from "./ports/OwnerKey.js"

// The stateless write checks (signature, envelope, payload) on AICS_CHECK_WORKERS worker
// threads, or on the event loop when it is 0.
const WriteChecksLive = Layer.unwrapEffect(Effect.gen(function*() {
  const { origin, authorities, checkWorkers: workers } = yield* ServiceConfig
  return workers === 0 ? InProcessWriteChecksLive({ origin, authorities }) : WorkerWriteChecksLive({ origin, authorities, workers })
}))

const Http = Layer.unwrapEffect(Effect.zipWith(ServiceConfig, operationsConfig, (config, { pendingBytes }) =>
  HttpLive({ ...config, pendingBytes })))

// The text gate's TCP ports: plaintext (AICS_GATE_PORT) and TLS (AICS_GATE_TLS_PORT), each
// only when configured.
const GateTcp = Layer.unwrapEffect(Effect.map(ServiceConfig, ({ host, gate }) =>
  Layer.mergeAll(
    gate === undefined || gate.port === 0 ? Layer.empty : GateTcpLive({ host, port: gate.port }),
    gate === undefined || gate.tlsPort === 0 ? Layer.empty : GateTcpLive({ host, port: gate.tlsPort, tls: { certFile: gate.tlsCert!, keyFile: gate.tlsKey! } })
  )))

// Fair admission's token buckets (docs/protocol.md "Fair admission"): every write path and the
// HTTP middleware spend them.
const AdmissionLive = Admission.layer

// The SUP asset descriptor: the operator's file (AICS_SUP_ASSET_FILE) or the built-in one.
const SupAssetLive = Layer.unwrapEffect(Effect.map(ServiceConfig, (config) =>
  config.supAssetFile === undefined ? SupAsset.builtIn : SupAssetFileLive(config.supAssetFile)))

const VkeyFile = Layer.unwrapEffect(Effect.map(ServiceConfig, (config) =>
  Layer.merge(LogVkeyFileLive(config.dataDir), WitnessVkeyFileLive(config.dataDir))))

// Leaf 0 written, or checked against this start's settings and keys; then owner.kid, when a
// start on an existing log found it missing, is written from leaf 0 (FileKeys.ts). Below it
// only what the check reads is open (storageLayers.ts CharterStorage), and keys are made only
// by the start that creates the log (app/LogCreation.ts), so a start the check refuses writes
// nothing: the other stores come after it.
// Above it, the settings leaf 0 fixes are leaf 0's, whatever AICS_MMD_SECONDS and
// AICS_NOTICE_PERIOD_SECONDS say now (charterSettings.ts).
const CharterLive = ChartedSettings.pipe(
  Layer.provideMerge(Layer.effect(Charter, Effect.tap(makeCharter, () => Effect.flatMap(OwnerKidRecord, ({ record }) => record))))
)

// log.vkey is written before the server listens: a client may fetch it as soon as it can.
const Main = Layer.mergeAll(Http, GateTcp, TileAuditLive, NoticeRetentionLive).pipe(
  Layer.provide(VkeyFile),
  Layer.provideMerge(Gate.layer),
  Layer.provideMerge(Layer.mergeAll(EntryWrites.layer, AdminWrites.layer, SignedReads.layer, Bodies.layer, Notices.layer, Contributions.layer, RequestStats.layer,
    ServiceStats.layer)),
  Layer.provideMerge(Card.layer),
  Layer.provideMerge(SupAssetLive),
  Layer.provideMerge(Layer.mergeAll(WriteAnswers.layer, PolicyWrites.layer)),
  // A body file found short at start is reported from what the projection says the log names.
  Layer.provideMerge(BodyShortfallLive),
  Layer.provideMerge(BodyLedger.layer),
  // The views read from the projection store (state.db or PostgreSQL), folded from the log.
  Layer.provideMerge(StateReader.layer),
  Layer.provideMerge(Projection.layer),
  Layer.provideMerge(WriteChecksLive),
  // AuthorityRefusals: the refusals of a Host this node does not accept, in its log now and then.
  Layer.provideMerge(Layer.mergeAll(Sequencer.layer, Receipts.layer, AdmissionLive, AuthorityRefusals.layer)),
  // The live stream follows what this node learns of the log (GET /v2/stream).
  Layer.provideMerge(LogStream.layer),
  Layer.provideMerge(CosignatureCollector.layer),
  Layer.provideMerge(Layer.mergeAll(Publisher.layer, LogStatus.layer, Witness.layer)),
  // Every other store, once leaf 0 has passed its check.
  Layer.provideMerge(StorageAfterCharter),
  // The charter is written before the sequencer folds the log, so leaf 0 is in its state.
  Layer.provideMerge(CharterLive),
  Layer.provideMerge(Layer.mergeAll(LogWriter.layer, LogNotary.layer, LogReader.layer)),
  Layer.provideMerge(Layer.mergeAll(LogHealth.layer, NodeRole.layer, CharterStorage)),
  Layer.provideMerge(Platform)
)

// GET /metrics on a listener of its own (AICS_METRICS_PORT), beside the service.
const MetricsListener = Layer.unwrapEffect(Effect.map(operationsConfig, ({ metrics }) =>
  metrics === undefined ? Layer.empty : MetricsServerLive(metrics)))

// The start line first and the stop line last (lifecycle.ts), the metrics listener beside.
// ServiceHalt under everything, so that whatever finds the service unable to go on (a state.db
// found damaged while serving) stops the same service main waits on below.
const Service = MetricsListener.pipe(Layer.provideMerge(Main), Layer.provideMerge(ProcessLifecycleLive), Layer.provideMerge(ServiceHalt.layer))
// With a bad AICS_LOG_* (or any other operations setting) the default logger stays, so the
// start can say what is wrong (below) rather than exit without a word.
const Logging = Layer.unwrapEffect(Effect.map(
  Effect.orElseSucceed(operationsConfig, () => ({ logLevel: "info", logFormat: "pretty" }) as const),
  LoggingLive
))
// Traces of the write path only with AICS_OTLP_URL (app/Tracing.ts). Else the tracer is
// off altogether: the spans libraries open on their own (@effect/sql opens one per
// statement, with its text as an attribute) are then no-ops instead of objects no one reads,
// and the exporter's modules are not loaded.
const Tracing = Layer.unwrapEffect(Effect.gen(function*() {
  const { otlpTracesUrl } = yield* operationsConfig
  if (otlpTracesUrl === undefined) return Layer.setTracerEnabled(false)
  const { OtlpTracingLive } = yield* Effect.promise(() => import("./adapters/tracing/otlpTracing.js"))
  return OtlpTracingLive({ tracesUrl: otlpTracesUrl, serviceVersion: yield* Effect.promise(clientVersion) })
}))

// The start: settings, the checks that create nothing (startupChecks.ts), the heap's growth
// (heapGrowth.ts: before the service allocates, for as long as it runs), then the layers, then the lines that say
// what to do next. Any failure is one plain line and exit code 1 (startupLine.ts); every
// line goes through the logger AICS_LOG_FORMAT and AICS_LOG_LEVEL choose.
let started = false
const readSettings = Effect.provide(ServiceConfig, ServiceConfig.fromEnv)
const program = Effect.gen(function*() {
  const asked = yield* readSettings
  // AICS_PORT=0 asks for any free port: it is chosen now, so that what the settings derive
  // from the port (the public URL, the @authority values) names the port listened on.
  const settings = asked.port === 0
    ? yield* Effect.withConfigProvider(readSettings, environmentProvider({ ...process.env, AICS_PORT: String(yield* freePortOn(asked.host)) }))
    : asked
  const operations = yield* operationsConfig
  yield* startupChecks(settings, operations.metrics)
  yield* Effect.scoped(Effect.gen(function*() {
    yield* heapGrowthAsSet(operations)
    const context = yield* Layer.build(Service.pipe(Layer.provide(ServiceConfig.layer(settings))))
    started = true
    yield* startupLines(settings, Context.get(context, OwnerKey).kid)
    // Serves until SIGTERM interrupts it, or until a part of it halts it (app/ServiceHalt.ts).
    return yield* Context.get(context, ServiceHalt).halted
  }))
}).pipe(
  // Around the whole start, so every fiber of the service runs with the tracer, and the
  // spans still waiting are sent after the service has stopped.
  Effect.provide(Tracing),
  Effect.tapErrorCause((cause) => Cause.isInterruptedOnly(cause) ? Effect.void : Console.error(startupFailureLine(cause, started))),
  Effect.provide(Logging)
)

NodeRuntime.runMain(Effect.withConfigProvider(program, environmentProvider()), { disableErrorReporting: true, disablePrettyLogger: true })
