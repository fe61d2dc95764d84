// The service statistics document (docs/spec/service.md "Service statistics (GET /v2/stats)"):
// its shape, member for member as the table lists them, which app/ServiceStats.ts fills and
// the /stats page (pages/statsPage.ts) shows. docs/protocol.md section 16 says what each
// member means.

import type { ServiceEntry } from "./serviceList.js"
import type { ServiceUsage } from "./serviceUsage.js"

/**
 * The tiles state, as /v2/tlog/checkpoint and /healthz report it: the one shape their
 * function gives (a type only; no code of the app runs here).
 */
/** The tiles' state as /v2/tlog/checkpoint and /v2/stats show it (docs/spec/service.md "Service statistics", `tlog.tiles`). */
export interface TilesState {
  readonly prefix: string
  readonly size: number
  readonly published_size: number
  readonly lag_entries: number
  readonly lag_seconds: number
  readonly mmd_seconds: number
  readonly error: string | null
  readonly diverged: boolean
}

/** Why the key members are only a convenience (docs/spec/service.md, below the statistics table). */
export const KEYS_NOTICE =
  "The key members are a convenience copy. Verify checkpoints and policy leaves only against keys obtained out of band: " +
  "the DNS TXT record _aics.<domain>, the aics package or the public repository, never this API alone."

export interface ServiceStatsDocument {
  readonly status: "OK" | "DEGRADED" | "DIVERGED"
  readonly domain: string
  readonly timestamp: string
  readonly uptime_seconds: number
  readonly uptime_human: string
  readonly services: ReadonlyArray<ServiceEntry>
  readonly usage: ServiceUsage
  readonly host: {
    readonly process_rss_bytes: number
    readonly cpu_percent: number
    readonly load_average_1m: number
    readonly database_bytes: number | null
    readonly disk_total_bytes: number | null
    readonly disk_used_bytes: number | null
    readonly disk_used_percent: number | null
  }
  readonly tlog: {
    readonly origin: string
    readonly tree_size: number
    readonly root_hash_hex: string
    readonly signed_checkpoint: string | null
    readonly log_vkey: string
    readonly log_kid: string
    readonly server_vkey: string
    readonly server_did: string
    readonly policy_kid: string
    readonly policy_did: string
    readonly policy_public_key_b64u: string
    readonly owner_kid: string
    readonly charter_index: number
    readonly tiles: TilesState
    readonly keys_notice: string
  }
  /** This log's witnesses (docs/protocol.md "Witnessing"), as /healthz reports them. */
  readonly witnesses?: WitnessingReport
}

/** The witnesses of the log and what each cosigned (app/CosignatureCollector.ts). */
export interface WitnessingReport {
  readonly quorum: number
  readonly cosigning_latest: number
  readonly witnesses: ReadonlyArray<{
    readonly name: string
    readonly url: string
    readonly vkey: string
    readonly cosigned_size: number | null
    readonly cosigned_at: number | null
    readonly cosigned_age_seconds: number | null
    readonly error: string | null
  }>
}

