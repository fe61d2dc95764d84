// The HTTP server: the HttpApi with its handlers, on Node's http module. Requests that do
// not match an endpoint's schemas answer 422 problem+json (docs/spec/profile.md section 7) instead of
// HttpApi's built-in 400; /openapi.json is generated from the same schemas. The tracer is
// off: a span per request costs more than most of these handlers do.

import { createServer } from "node:http"
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import type * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { HttpApiDecodeError } from "@effect/platform/HttpApiError"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer } from "effect"
import { AdminWrites } from "../../app/AdminWrites.js"
import { Bodies } from "../../app/Bodies.js"
import { BodyLedger } from "../../app/BodyLedger.js"
import { BodyStore } from "../../ports/BodyStore.js"
import { Card } from "../../app/Card.js"
import { Charter } from "../../app/Charter.js"
import { Clock } from "../../ports/Clock.js"
import { Crypto } from "../../ports/Crypto.js"
import { Contributions } from "../../app/Contributions.js"
import { EntryWrites } from "../../app/EntryWrites.js"
import { Gate } from "../../app/Gate.js"
import { LogNotary } from "../../app/LogNotary.js"
import { LogReader } from "../../app/LogReader.js"
import { LogStatus } from "../../app/LogStatus.js"
import { LogStore } from "../../ports/LogStore.js"
import { Notices } from "../../app/Notices.js"
import { Publisher } from "../../app/Publisher.js"
import { ReadCursors } from "../../ports/ReadCursors.js"
import { RequestStats } from "../../app/RequestStats.js"
import { Projection } from "../../app/Projection.js"
import { Sequencer } from "../../app/Sequencer.js"
import { ServiceConfig } from "../../app/ServiceConfig.js"
import { ServiceStats } from "../../app/ServiceStats.js"
import { SignedReads } from "../../app/SignedReads.js"
import { ReplayStoreHealth } from "../../app/ReplayStoreHealth.js"
import { StateReader } from "../../app/StateReader.js"
import { SupAsset } from "../../app/SupAsset.js"
import { TileSink } from "../../ports/TileSink.js"
import { AicsApi } from "./api.js"
import { builtWithOnly } from "./builtWithOnly.js"
import { countRequests } from "./countRequests.js"
import { DiscoveryHandlers } from "./handlers/discovery.js"
import { DiscoveryDocsHandlers } from "./handlers/discoveryDocs.js"
import { GuidePagesHandlers } from "./handlers/guidePages.js"
import { AdminHandlers } from "./handlers/admin.js"
import { AgoraHandlers } from "./handlers/agora.js"
import { ContributionsHandlers } from "./handlers/contributions.js"
import { OwnerHandlers } from "./handlers/owner.js"
import { SupHandlers } from "./handlers/sup.js"
import { TasksHandlers } from "./handlers/tasks.js"
import { GovernanceHandlers } from "./handlers/governance.js"
import { EntriesHandlers } from "./handlers/entries.js"
import { IdentityHandlers } from "./handlers/identity.js"
import { MessagingHandlers } from "./handlers/messaging.js"
import { NoticesHandlers } from "./handlers/notices.js"
import { TelemetryHandlers } from "./handlers/telemetry.js"
import { ServiceStatsHandlers } from "./handlers/serviceStats.js"
import { DataPagesHandlers } from "./handlers/dataPages.js"
import { ItemPagesHandlers } from "./handlers/itemPages.js"
import { TilesHandlers } from "./handlers/tiles.js"
import { TlogHandlers } from "./handlers/tlog.js"
import { closeDraining } from "./closeDraining.js"
import { leanEntryRoute } from "./leanEntryRoute.js"
import { leanStreamRoute } from "./leanStreamRoute.js"
import { leanWriteRoute } from "./leanWriteRoute.js"
import { leanFirst, type LeanSlot } from "./leanFirst.js"
import { trackHttpConnections } from "../metrics/connectionStates.js"
import { boundPendingBytes, DEFAULT_PENDING_BYTES, type PendingBytesLimits } from "./pendingBytes.js"
import { ownerRoutesFirst } from "./ownerRoutesFirst.js"
import { deliverPages } from "./pageDelivery.js"
import { ProblemForEveryError } from "./problemForEveryError.js"
import { decodeEveryParameter, oneErrorPerParameter } from "./parameterErrors.js"
import { InvalidRequest, PROBLEM_CONTENT_TYPE } from "./problem.js"
import { GateHandlers } from "./handlers/gate.js"
import { WitnessHandlers } from "./handlers/witness.js"
import { Witness } from "../../app/Witness.js"
import { CosignatureCollector } from "../../app/CosignatureCollector.js"
import { Admission } from "../../app/Admission.js"
import { admitRequests } from "./admission.js"
import { DEFAULT_CONNECTIONS_PER_ADDRESS } from "../../domain/admission/budgets.js"
import { type Cidr, LOOPBACK_PROXIES } from "../../domain/admission/clientAddress.js"
import { capConnectionsPerAddress } from "../tcp/connectionsPerAddress.js"
import { StreamHandlers } from "./handlers/stream.js"
import { McpHandlers } from "./handlers/mcp.js"
import { SelfRoutes } from "./selfRoutes.js"
import { StreamHub } from "./streamHub.js"
import { LogStream } from "../../app/LogStream.js"
import { StreamConfig } from "../../app/StreamConfig.js"
import { WriteAnswers } from "../../app/WriteAnswers.js"
import { reportLine } from "../logging/logging.js"

const isDecodeError = (error: unknown): error is HttpApiDecodeError =>
  (error as { _tag?: unknown } | undefined)?._tag === "HttpApiDecodeError"

const describePath = (path: ReadonlyArray<PropertyKey>) => path.map(String).join(".")

/**
 * HttpApi's schema failures, answered as the 422 problem of docs/spec/profile.md section 7; on an
 * owner route only to the owner, a stranger getting the signature's 401 or 403 instead
 * (ownerRoutesFirst.ts).
 */
// (The app's error type says never because HttpApi encodes declared errors itself; decode
// failures still travel through the middleware, hence the widening and narrowing casts.)
const DecodeErrorsAs422 = HttpApiBuilder.middleware(Effect.map(ownerRoutesFirst, (ownerFirst) => (app: HttpApp.Default) =>
  Effect.catchIf(ownerFirst(app) as Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest>, isDecodeError, (error) => {
    const errors = oneErrorPerParameter(error.issues.map((issue) => ({ path: describePath(issue.path), message: issue.message })))
    const detail = errors.map((e) => `${e.path || "request"}: ${e.message}`).join("; ")
    const problem = InvalidRequest.of("invalid_parameters", detail, errors)
    return HttpServerResponse.json(problem, { status: 422, contentType: PROBLEM_CONTENT_TYPE }).pipe(Effect.orDie)
  }) as unknown as typeof app))

decodeEveryParameter(AicsApi)

// Each group is built with only the services its handlers use (builtWithOnly.ts says why).
const ApiLive = HttpApiBuilder.api(AicsApi).pipe(
  Layer.provide([
    builtWithOnly(Charter, CosignatureCollector, LogNotary, LogReader, LogStatus, LogStore, Publisher, ServiceConfig)(TlogHandlers),
    builtWithOnly(Bodies, Crypto, EntryWrites, LogReader, LogStatus, LogStore, Publisher, ServiceConfig, WriteAnswers)(EntriesHandlers),
    builtWithOnly(CosignatureCollector, Publisher, ServiceConfig, TileSink)(TilesHandlers),
    builtWithOnly(Charter)(DiscoveryHandlers),
    builtWithOnly(BodyLedger, CosignatureCollector, LogStatus, Projection, ReplayStoreHealth, Sequencer, ServiceConfig, StateReader)(TelemetryHandlers),
    builtWithOnly(LogNotary, LogReader, Projection, Publisher, ReadCursors, ServiceConfig, SignedReads, StateReader)(IdentityHandlers),
    builtWithOnly(BodyStore, Clock, LogStore, Publisher, ReadCursors, ServiceConfig, SignedReads, StateReader)(MessagingHandlers),
    builtWithOnly(AdminWrites, EntryWrites)(AdminHandlers),
    builtWithOnly(Charter, Notices, SignedReads)(NoticesHandlers),
    builtWithOnly(BodyStore, Clock, Publisher, ServiceConfig, StateReader)(AgoraHandlers),
    builtWithOnly(Clock, Publisher, ServiceConfig, StateReader)(TasksHandlers),
    builtWithOnly(Publisher, ServiceConfig, StateReader, SupAsset)(SupHandlers),
    builtWithOnly(Clock, Publisher, ServiceConfig, StateReader)(GovernanceHandlers),
    builtWithOnly(Card, Charter, Clock, RequestStats, SignedReads, StateReader)(OwnerHandlers),
    builtWithOnly(Contributions, ServiceConfig)(ContributionsHandlers),
    builtWithOnly(Charter, Clock, CosignatureCollector, Publisher, ServiceConfig, TileSink)(DiscoveryDocsHandlers),
    builtWithOnly(Card, Charter, Clock, ServiceConfig, StateReader)(GuidePagesHandlers),
    builtWithOnly(ServiceStats)(ServiceStatsHandlers),
    builtWithOnly(BodyStore, Clock, Projection, ServiceStats, StateReader)(DataPagesHandlers),
    builtWithOnly(Bodies, BodyStore, Clock, LogReader, LogStatus, LogStore, Projection, Publisher, ServiceConfig, StateReader)(ItemPagesHandlers),
    builtWithOnly(Gate, ServiceConfig)(GateHandlers),
    builtWithOnly(Witness)(WitnessHandlers),
    builtWithOnly(StreamHub)(StreamHandlers),
    builtWithOnly(SelfRoutes)(McpHandlers)
  ])
)

/**
 * Idle keep-alive connections are kept 65 s, past the 60 s idle timeout of common load
 * balancers: a server that closes first races the peer reusing the socket, and the peer
 * sees "other side closed" on a request it had every right to send (Node's default is 5 s,
 * which a client whose event loop stalls for a second under load already loses).
 */
const KEEP_ALIVE_MS = 65_000

/**
 * Room for GET /t's one URL-encoded line (docs/spec/service.md "Limits": `l` up to 1048576
 * characters) in the request line; Node's default header limit is 16 KiB.
 */
const MAX_HEADER_BYTES = 1_048_576 + 65_536

/** A request must arrive whole within this (Node's default is 300 s); above headersTimeout. */
const REQUEST_TIMEOUT_MS = 120_000
/** Connections held at once; past it Node closes new ones at once. */
const MAX_HTTP_CONNECTIONS = 4096

const createKeepAliveServer = (cap: {
  readonly perAddress: number
  readonly trusted: ReadonlyArray<Cidr>
  readonly pendingBytes: PendingBytesLimits
  readonly lean: LeanSlot
}) => () => {
  const server = leanFirst(
    boundPendingBytes(trackHttpConnections(closeDraining(createServer({ maxHeaderSize: MAX_HEADER_BYTES }))), cap.pendingBytes),
    cap.lean
  )
  // No address may hold more than its share of MAX_HTTP_CONNECTIONS (trusted proxies aside).
  capConnectionsPerAddress(server, cap.perAddress, cap.trusted)
  server.keepAliveTimeout = KEEP_ALIVE_MS
  // Must exceed keepAliveTimeout, or a request arriving at the end of the idle time is cut.
  server.headersTimeout = KEEP_ALIVE_MS + 1_000
  // The 1.1 MiB head every route accepts (for GET /t) bounds one request's memory; these
  // bound how many and how long (docs/protocol.md 17.4): a whole request within
  // REQUEST_TIMEOUT_MS of its first byte, at most MAX_HTTP_CONNECTIONS at once.
  server.requestTimeout = REQUEST_TIMEOUT_MS
  server.maxConnections = MAX_HTTP_CONNECTIONS
  return server
}

// "Listening on <address>", as @effect/platform's HttpServer.withLogAddress says it, but as a
// line of the start's report: written whatever AICS_LOG_LEVEL says (logging.ts reportLine).
const withReportedAddress = <A, E, R>(layer: Layer.Layer<A, E, R>) =>
  Layer.effectDiscard(HttpServer.addressFormattedWith((address) => reportLine(`Listening on ${address}`))).pipe(Layer.provideMerge(layer))

/**
 * Serves the API on host:port until the scope closes. The server runs its requests in a
 * context of only the services its middleware uses (builtWithOnly.ts says why).
 */
export const HttpLive = (options: {
  readonly host: string
  readonly port: number
  readonly limits?: { readonly connectionsPerAddress: number } | undefined
  readonly trustedProxies?: ReadonlyArray<Cidr> | undefined
  readonly pendingBytes?: PendingBytesLimits
  /** GET /v2/entries/{index}, POST /v2/entries and GET /v2/stream through leanEntryRoute.ts, leanWriteRoute.ts and leanStreamRoute.ts (the default) or through HttpApi. */
  readonly leanRoutes?: boolean
}) => {
  // Filled in below once the services the lean route reads are at hand.
  const lean: LeanSlot = { handler: undefined }
  // The app the server serves (its routes and the API's middleware, not admission and
  // counting, which wrap it below) is also handed, as a web handler, to the routes that
  // call the service's own routes in process (selfRoutes.ts: POST /mcp). It runs in the
  // context the server runs requests in. (The app a serve middleware is given would not
  // do: it already writes its answer to Node's response.)
  return Layer.unwrapEffect(Effect.gen(function*() {
    const self = yield* SelfRoutes
    const runtime = yield* Effect.runtime<HttpRouter.HttpRouter.DefaultServices>()
    self.serve(HttpApp.toWebHandlerRuntime(runtime)(yield* HttpApiBuilder.httpApp))
    if (options.leanRoutes !== false) {
      const entry = yield* leanEntryRoute
      const write = yield* leanWriteRoute
      const stream = yield* leanStreamRoute
      lean.handler = (req, res) => write(req, res) || entry(req, res) || stream(req, res)
    }
    // The page routes' answers (ETag, gzip, an error as a page for a browser): pageDelivery.ts.
    return HttpApiBuilder.serve((app) => countRequests(deliverPages(admitRequests(app))))
  })).pipe(
    // The instances HttpApiBuilder.serve provides itself (the same layers, built once).
    Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]),
    Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" })),
    // The owner routes' 401/403 come before the router's 404 (ownerRoutesFirst.ts), and every
    // answer still empty after that gets its problem document.
    Layer.provide(ProblemForEveryError),
    Layer.provide(DecodeErrorsAs422),
    withReportedAddress,
    HttpMiddleware.withTracerDisabledWhen(() => true),
    Layer.provide(NodeHttpServer.layer(createKeepAliveServer({
      perAddress: options.limits?.connectionsPerAddress ?? DEFAULT_CONNECTIONS_PER_ADDRESS,
      trusted: options.trustedProxies ?? LOOPBACK_PROXIES,
      pendingBytes: options.pendingBytes ?? DEFAULT_PENDING_BYTES,
      lean
    }), { host: options.host, port: options.port })),
    builtWithOnly(
      RequestStats, HttpApi.Api, Charter, Clock, Crypto, ServiceConfig, Admission, SelfRoutes,
      // The lean routes' bundle (handlers/entryBundle.ts), writes and streams.
      Bodies, LogReader, LogStatus, LogStore, Publisher, EntryWrites, StreamHub
    ),
    Layer.provide(ApiLive),
    // One hub for the lean route and HttpApi's (the streams an address holds are counted once).
    Layer.provide(builtWithOnly(LogStream, StreamConfig)(StreamHub.layer)),
    // One instance for the server, which sets it, and the routes that call through it.
    Layer.provide(SelfRoutes.layer)
  )
}
