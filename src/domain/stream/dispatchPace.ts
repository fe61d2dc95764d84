// How long the live stream's dispatcher rests after a dispatch (adapters/http/handlers/
// stream.ts). A dispatch writes the new events to every live subscriber's socket, on the
// event loop that also sequences the log's writes; with a thousand subscribers it is
// mostly syscalls, whose cost is some per write and some per byte (bench/stream,
// bench/README). Resting in proportion to how long the last dispatch kept the loop busy
// bounds the stream's share of the loop whatever the number of subscribers: more of them,
// fewer and larger writes each. The rest is at least MIN_REST_MS, so even a few subscribers
// get a burst of leaves in one write, and at most MAX_REST_MS: the delay a live event may
// wait, reached only when a dispatch is long (a thousand subscribers, not a few).
// Sent as they are, the events' bytes were most of the cost and longer rests bought
// nothing (a fixed 1 s rest, four times fewer writes, left the system time an entry as it
// was). In gzip (sseWire.ts) the bytes are a quarter, the writes' own cost is the larger
// part, and the cap of 500 ms rather than 250 took the throughput with 1,000 gzip
// subscribers from 0.86 to about 0.9 of that without, p99 from the 202 to the event from
// 280 to 525 ms (the target is under 1 s).

/** The share of the event loop the dispatches may take. */
export const DISPATCH_SHARE = 0.05
export const MIN_REST_MS = 100
export const MAX_REST_MS = 500

/** The rest after a dispatch that kept the loop busy `busyMs`. */
export const restAfter = (busyMs: number): number =>
  Math.min(MAX_REST_MS, Math.max(MIN_REST_MS, (busyMs * (1 - DISPATCH_SHARE)) / DISPATCH_SHARE))
