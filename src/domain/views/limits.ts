// Bounds of the views' query parameters (docs/spec/service.md "Limits"). The HTTP layer validates
// them (422 outside the bounds) and applies the defaults; the views take them as given.
// The key view's page is this service's choice: docs/spec/service.md lists no bound for it.

export const DIRECTORY_LIMIT = { min: 1, max: 500, default: 100 } as const
export const DIRECTORY_Q_MAX = 80
export const INBOX_LIMIT = { min: 1, max: 10_000, default: 1000 } as const
/**
 * Ciphertext bytes one page of the signed GET /v2/inbox inlines at most (docs/protocol.md
 * 10.3; docs/spec/service.md sets no bound: this service's choice). The count alone lets a page
 * carry 10,000 DMs of 64 KiB, an answer of ~875 MB that could exhaust the heap for every
 * user; 8 MiB (~11 MB of U64) keeps an answer small while 128 full-size DMs still fit.
 * A page always holds its first message (a DM is at most 64 KiB), so paging advances.
 * The other routes that inline bodies need no such cut: their counts bound them already
 * (at most 200 texts of 16 KiB, /v2/agora/posts and /v2/agora/human-actions); single
 * resources (one capsule, one entry) carry one body.
 */
export const INBOX_PAGE_CT_BYTES = 8 * 1024 * 1024
export const KEY_ENVELOPES_LIMIT = { min: 1, max: 10_000, default: 1000 } as const
/**
 * Names a key view lists that named the key as their recovery key, in claim order from
 * `recovery_from` (docs/protocol.md 10.3; docs/spec/service.md sets no bound: this service's
 * choice). Any key may be named by any number of claims, so the list is paged.
 */
export const KEY_RECOVERY_NAMES_LISTED = 100
export const GRANT_SENDER_MAX = 96

/** A page of a sequence ordered by leaf index: entries with index >= from, at most limit. */
export interface PageQuery {
  readonly from: number
  readonly limit: number
}

// The forum, task board and owner's statistics (docs/spec/service.md "Limits").
export const AGORA_POSTS_LIMIT = { min: 1, max: 200, default: 50 } as const
export const HUMAN_ACTIONS_LIMIT = { min: 1, max: 200, default: 50 } as const
export const TASKS_LIMIT = { min: 1, max: 500, default: 100 } as const
export const STATS_DAYS = { min: 1, max: 366, default: 30 } as const
/** Polls listed by /v2/agora/polls, newest first (docs/spec/service.md sets no bound: this service's choice). */
export const POLLS_LISTED = 200

// Telemetry and the data pages (docs/spec/service.md "Limits").
export const ONLINE_WINDOW = { min: 60, max: 86_400, default: 900 } as const
/** Agents listed by /v2/online and /online, newest first (docs/spec/service.md sets no bound: this service's choice). */
export const ONLINE_LISTED = 500
/** `/agora` `channel`. */
export const AGORA_CHANNEL_MAX = 63

// The text gate (docs/spec/service.md "Limits"): GET /t's session id and its one URL-encoded line.
export const GATE_SESSION_MAX = 64
export const GATE_LINE_MAX = 1_048_576
