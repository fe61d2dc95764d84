// The service statistics document (service.md "Service statistics (GET /v2/stats)",
// "Telemetry": "counts cached for a few seconds"; docs/protocol.md section 16), served at
// /v2/stats and shown by the /stats page. The counts (domain/stats/serviceUsage.ts, a pure
// function of the log's state and the notice register's open count) and the host
// measurements (the HostMetrics port) are computed at most once per STATS_CACHE; status,
// time, uptime and the log head are read from memory on every request, so the head in
// `usage` and in `tlog` is always the latest published checkpoint, the one
// /v2/tlog/checkpoint answers.

import { Context, Duration, Effect, Layer } from "effect"
import { toHex } from "../domain/bytes.js"
import { encodeU64 } from "../domain/encoding.js"
import { didKeyFromPublicKey } from "../domain/identity/didKey.js"
import { serviceList } from "../domain/stats/serviceList.js"
import { KEYS_NOTICE, type ServiceStatsDocument } from "../domain/stats/serviceStatsDocument.js"
import { serviceUsage } from "../domain/stats/serviceUsage.js"
import { uptimeHuman } from "../domain/stats/uptime.js"
import { Clock } from "../ports/Clock.js"
import { Crypto } from "../ports/Crypto.js"
import { HostMetrics } from "../ports/HostMetrics.js"
import { NoticeRegister } from "../ports/NoticeRegister.js"
import { Signer } from "../ports/Signer.js"
import type { StorageError } from "../ports/StorageError.js"
import { Charter } from "./Charter.js"
import { LogNotary } from "./LogNotary.js"
import { tilesState } from "./LogStatus.js"
import { Publisher } from "./Publisher.js"
import { Sequencer } from "./Sequencer.js"
import { serviceHealth } from "./ServiceHealth.js"
import { ServiceConfig, TILE_PREFIX } from "./ServiceConfig.js"

/** How long counts and host measurements are reused. */
export const STATS_CACHE = Duration.seconds(5)

/** ISO 8601 UTC to the second, as the owner statistics write it. */
const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z")

export class ServiceStats extends Context.Tag("aics/ServiceStats")<ServiceStats, {
  readonly document: Effect.Effect<ServiceStatsDocument, StorageError>
}>() {
  static readonly layer = Layer.effect(ServiceStats, Effect.gen(function*() {
    const config = yield* ServiceConfig
    const sequencer = yield* Sequencer
    const publisher = yield* Publisher
    const notary = yield* LogNotary
    const charter = yield* Charter
    const signer = yield* Signer
    const crypto = yield* Crypto
    const host = yield* HostMetrics
    const notices = yield* NoticeRegister
    const clock = yield* Clock
    const health = yield* serviceHealth
    const startedAt = yield* clock.nowMillis
    const emptyRootHex = toHex(crypto.sha256(new Uint8Array(0)))
    const logKid = didKeyFromPublicKey(signer.log.publicKey)
    const tilesPrefix = `${config.publicUrl}${TILE_PREFIX}`
    const services = serviceList(config.publicUrl)

    /** The latest published checkpoint: what the counts are reported against. */
    const head = Effect.map(publisher.latest, (latest) =>
      latest === undefined
        ? { size: 0, rootHashHex: emptyRootHex, note: null }
        : { size: latest.size, rootHashHex: toHex(latest.rootHash), note: new TextDecoder().decode(latest.note) })

    const measured = yield* Effect.cachedWithTTL(Effect.gen(function*() {
      const now = yield* clock.nowMillis
      const usage = serviceUsage(yield* sequencer.state, { now, noticesOpen: yield* notices.count("open"), head: yield* head })
      return { usage, host: yield* host.measure }
    }), STATS_CACHE)

    const document = Effect.gen(function*() {
      const { usage, host: m } = yield* measured
      const report = yield* health
      const latest = yield* head
      const now = yield* clock.nowMillis
      const uptime = Math.max(0, Math.floor((now - startedAt) / 1000))
      return {
        status: report.status,
        domain: charter.terms.instanceDomain,
        timestamp: isoSeconds(now),
        uptime_seconds: uptime,
        uptime_human: uptimeHuman(uptime),
        services,
        usage: { ...usage, tlog_tree_size: latest.size, tlog_root_hash_hex: latest.rootHashHex },
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
        }
      } satisfies ServiceStatsDocument
    })
    return { document }
  }))
}
