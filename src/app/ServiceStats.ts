// The service statistics document (docs/spec/service.md "Service statistics (GET /v2/stats)",
// "Telemetry": "counts cached for a few seconds"; docs/protocol.md section 16), served at
// /v2/stats and shown by the /stats page. The counts (domain/stats/serviceUsage.ts, a pure
// function of the resident parts of the log's state, whose counters the fold keeps, and the
// notice register's open count) are computed at most
// once per STATS_CACHE (a failure is not kept: the next request tries again); the host
// measurements are the HostMetrics port's background samples; status, time, uptime and the
// log head are read from memory on every request, so the head in `usage` and in `tlog` is
// always the latest published checkpoint, the one /v2/tlog/checkpoint answers.
//
// The agents online (domain/views/online.ts) are served from here too, reused for
// STATS_CACHE per window while the log has not grown, so a burst of /v2/online requests
// reads the window once. The window's agents and the names of those listed are read from
// the projection store (its index of the activity rows).

import { Context, Duration, Effect, Layer, Ref } from "effect"
import { toHex } from "../domain/bytes.js"
import { encodeU64 } from "../domain/encoding.js"
import { didKeyFromPublicKey } from "../domain/identity/didKey.js"
import { serviceList } from "../domain/stats/serviceList.js"
import { KEYS_NOTICE, type ServiceStatsDocument } from "../domain/stats/serviceStatsDocument.js"
import { isoSeconds } from "../domain/stats/requestStats.js"
import { serviceUsage, type ServiceUsage } from "../domain/stats/serviceUsage.js"
import { uptimeHuman } from "../domain/stats/uptime.js"
import { ONLINE_LISTED } from "../domain/views/limits.js"
import { onlineReads, onlineSince, onlineView, type OnlineView } from "../domain/views/online.js"
import { Clock } from "../ports/Clock.js"
import { Crypto } from "../ports/Crypto.js"
import { HostMetrics } from "../ports/HostMetrics.js"
import { NoticeRegister } from "../ports/NoticeRegister.js"
import { Signer } from "../ports/Signer.js"
import type { StorageError } from "../ports/StorageError.js"
import { Charter } from "./Charter.js"
import { CosignatureCollector } from "./CosignatureCollector.js"
import { cosignedNote } from "./servedCheckpoint.js"
import { LogNotary } from "./LogNotary.js"
import { tilesState } from "./LogStatus.js"
import { Publisher } from "./Publisher.js"
import { serviceHealth } from "./ServiceHealth.js"
import { gatePortsOf, ServiceConfig, TILE_PREFIX } from "./ServiceConfig.js"
import { StateReader } from "./StateReader.js"

/** How long counts and host measurements are reused. */
export const STATS_CACHE = Duration.seconds(5)

/** Windows whose /v2/online answer is kept at once. */
const ONLINE_CACHED_WINDOWS = 16

/** Reuses `compute`'s success for `ttlMs` (by `clock`); a failure is not kept. */
const cachedSuccess = <A, E>(compute: Effect.Effect<A, E>, nowMillis: Effect.Effect<number>, ttlMs: number) =>
  Effect.map(Ref.make<{ readonly at: number; readonly value: A } | undefined>(undefined), (cache) =>
    Effect.gen(function*() {
      const now = yield* nowMillis
      const kept = yield* Ref.get(cache)
      if (kept !== undefined && now - kept.at < ttlMs) return kept.value
      const value = yield* compute
      yield* Ref.set(cache, { at: now, value })
      return value
    }))

export class ServiceStats extends Context.Tag("aics/ServiceStats")<ServiceStats, {
  readonly document: Effect.Effect<ServiceStatsDocument, StorageError>
  /** The agents online in the last `windowSeconds` (views/online.ts), reused as the header says. */
  readonly online: (windowSeconds: number) => Effect.Effect<OnlineView, StorageError>
}>() {
  static readonly layer = Layer.effect(ServiceStats, Effect.gen(function*() {
    const config = yield* ServiceConfig
    const reader = yield* StateReader
    const publisher = yield* Publisher
    const notary = yield* LogNotary
    const charter = yield* Charter
    const signer = yield* Signer
    const crypto = yield* Crypto
    const host = yield* HostMetrics
    const notices = yield* NoticeRegister
    const clock = yield* Clock
    const health = yield* serviceHealth
    const emptyRootHex = toHex(crypto.sha256(new Uint8Array(0)))
    const logKid = didKeyFromPublicKey(signer.log.publicKey)
    const tilesPrefix = `${config.publicUrl}${TILE_PREFIX}`
    const services = serviceList(config.publicUrl, gatePortsOf(config))

    const collector = yield* CosignatureCollector
    /** The latest published checkpoint, as /checkpoint serves it: what the counts are reported against. */
    const head = Effect.flatMap(publisher.latest, (latest): Effect.Effect<{ size: number; rootHashHex: string; note: string | null }> =>
      latest === undefined
        ? Effect.succeed({ size: 0, rootHashHex: emptyRootHex, note: null })
        : Effect.map(cosignedNote(latest).pipe(Effect.provideService(CosignatureCollector, collector)), (note) =>
          ({ size: latest.size, rootHashHex: toHex(latest.rootHash), note: new TextDecoder().decode(note) })))

    const usage: Effect.Effect<ServiceUsage, StorageError> = yield* cachedSuccess(Effect.gen(function*() {
      const now = yield* clock.nowMillis
      return serviceUsage(yield* reader.resident, { now, noticesOpen: yield* notices.count("open"), head: yield* head })
    }), clock.nowMillis, Duration.toMillis(STATS_CACHE))

    const onlineCache = new Map<number, { readonly size: number; readonly at: number; readonly view: OnlineView }>()
    const online = (windowSeconds: number) =>
      Effect.gen(function*() {
        const { size } = (yield* reader.resident).counters
        const now = yield* clock.nowMillis
        const kept = onlineCache.get(windowSeconds)
        if (kept !== undefined && kept.size === size && now - kept.at < Duration.toMillis(STATS_CACHE)) return kept.view
        const recent = yield* reader.recentActivity(onlineSince(windowSeconds, now), ONLINE_LISTED)
        const view = onlineView(yield* reader.slice(onlineReads(recent)), recent, windowSeconds, now)
        // Windows are any second from 60 to 86,400: keep a few, not one per window ever asked.
        if (onlineCache.size >= ONLINE_CACHED_WINDOWS) onlineCache.clear()
        onlineCache.set(windowSeconds, { size, at: now, view })
        return view
      })

    const document = Effect.gen(function*() {
      const counts = yield* usage
      const m = yield* host.measure
      const report = yield* health
      const latest = yield* head
      const now = yield* clock.nowMillis
      const uptime = yield* host.uptimeSeconds
      return {
        status: report.status,
        domain: charter.terms.instanceDomain,
        timestamp: isoSeconds(now),
        uptime_seconds: uptime,
        uptime_human: uptimeHuman(uptime),
        services,
        usage: { ...counts, tlog_tree_size: latest.size, tlog_root_hash_hex: latest.rootHashHex },
        host: {
          process_rss_bytes: m.processRssBytes,
          cpu_percent: m.cpuPercent,
          load_average_1m: m.loadAverage1m,
          database_bytes: m.databaseBytes,
          disk_total_bytes: m.diskTotalBytes,
          disk_used_bytes: m.diskUsedBytes,
          disk_used_percent: m.diskUsedPercent
        },
        tlog: {
          origin: config.origin,
          tree_size: latest.size,
          root_hash_hex: latest.rootHashHex,
          signed_checkpoint: latest.note,
          log_vkey: notary.vkey,
          log_kid: logKid,
          // The server's key is the log key: it signs the checkpoints and receipts.
          server_vkey: notary.vkey,
          server_did: logKid,
          policy_kid: charter.terms.policyKid,
          policy_did: charter.terms.policyKid,
          policy_public_key_b64u: encodeU64(signer.policy.publicKey),
          owner_kid: charter.terms.ownerKid,
          charter_index: 0,
          tiles: tilesState(report.log, tilesPrefix),
          keys_notice: KEYS_NOTICE
        },
        witnesses: yield* collector.report
      } satisfies ServiceStatsDocument
    })
    return { document, online }
  }))
}
