// How long the live stream's dispatcher rests after a dispatch (adapters/http/handlers/
// stream.ts). A dispatch writes the new events to every live subscriber's socket, on the
// event loop that also sequences the log's writes; with a thousand subscribers it is
// mostly syscalls, which cost per write as much as per byte (bench/stream, bench/README).
// Resting in proportion to how long the last dispatch kept the loop busy bounds the
// stream's share of the loop whatever the number of subscribers: more of them, fewer and
// larger writes each. The rest is at least MIN_REST_MS, so even a few subscribers get a
// burst of leaves in one write, and at most MAX_REST_MS: the delay a live event may wait.
// Past about 250 ms there is little left to save: a write's fixed cost (about 10 µs of
// syscall per socket) is then a few percent of the loop with a thousand subscribers, and
// what remains is the cost per byte, which no pacing changes (a fixed 1 s rest, four times
// fewer writes, left the system time an entry as it was), and which gzip reduces
// (sseWire.ts); 500 ms took p99 from the 202 to the event near the 1 s target on the
// loaded machine (bench/README.md).

/** The share of the event loop the dispatches may take. */
export const DISPATCH_SHARE = 0.05
export const MIN_REST_MS = 100
export const MAX_REST_MS = 250

/** The rest after a dispatch that kept the loop busy `busyMs`. */
export const restAfter = (busyMs: number): number =>
  Math.min(MAX_REST_MS, Math.max(MIN_REST_MS, (busyMs * (1 - DISPATCH_SHARE)) / DISPATCH_SHARE))
