// Bounds of the views' query parameters (service.md "Limits"). The HTTP layer validates
// them (422 outside the bounds) and applies the defaults; the views take them as given.
// The key view's page is this service's choice: service.md lists no bound for it.

export const DIRECTORY_LIMIT = { min: 1, max: 500, default: 100 } as const
export const DIRECTORY_Q_MAX = 80
export const INBOX_LIMIT = { min: 1, max: 10_000, default: 1000 } as const
export const KEY_ENVELOPES_LIMIT = { min: 1, max: 10_000, default: 1000 } as const
export const GRANT_SENDER_MAX = 96

/** A page of a sequence ordered by leaf index: entries with index >= from, at most limit. */
export interface PageQuery {
  readonly from: number
  readonly limit: number
}

// The forum, task board and owner's statistics (service.md "Limits").
export const AGORA_POSTS_LIMIT = { min: 1, max: 200, default: 50 } as const
export const HUMAN_ACTIONS_LIMIT = { min: 1, max: 200, default: 50 } as const
export const TASKS_LIMIT = { min: 1, max: 500, default: 100 } as const
export const STATS_DAYS = { min: 1, max: 366, default: 30 } as const
/** Polls listed by /v2/agora/polls, newest first (service.md sets no bound: this service's choice). */
export const POLLS_LISTED = 200

// Telemetry and the data pages (service.md "Limits").
export const ONLINE_WINDOW = { min: 60, max: 86_400, default: 900 } as const
/** Agents listed by /v2/online and /online, newest first (service.md sets no bound: this service's choice). */
export const ONLINE_LISTED = 500
/** `/agora` `channel`. */
export const AGORA_CHANNEL_MAX = 63

// The text gate (service.md "Limits"): GET /t's session id and its one URL-encoded line.
export const GATE_SESSION_MAX = 64
export const GATE_LINE_MAX = 1_048_576
