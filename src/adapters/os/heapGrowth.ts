// How far V8 lets the JavaScript heap grow past what the last full collection kept, before
// it collects again (AICS_HEAP_GROWTH_PERCENT; docs/operations.md "The heap under load").
//
// Why: under a steady write load a request's objects live for its batch, tens of
// milliseconds, long enough to outlive two young-generation collections, so they are
// promoted and die in the old generation: about 30 KB an entry, 40 MiB a second at 1,300
// entries a second. V8 then lets the old generation reach up to four times what survives a
// full collection before the next: on bench/write the event loop's old generation peaked at
// about 280 MiB and the process at 550 MiB, against about 255 MiB idle. At 75% a full
// collection comes at 1.75 times the survivors and the process peaked at 376-384 MiB; the
// collector then runs about four times as often, which cost 2.5-4% of bench/write's
// throughput and 8% of bench/stream's with 1,000 subscribers, whose live heap is larger
// (bench/README.md "Session 20"). Throughput is the scarcer of the two on the machines the
// service is measured on, so the default leaves V8's choice; an operator short of memory
// sets 75 (docs/operations.md "The heap under load").
//
// V8 reads the setting each time a full collection sets the next limit, so setting it as
// the process starts holds for every isolate of the process (the worker threads' too).

import { setFlagsFromString } from "node:v8"
import { Effect } from "effect"

/** Sets the process's heap growth, in per cent; 0 sets nothing (V8's own growth). */
export const applyHeapGrowth = (percent: number): Effect.Effect<void> =>
  Effect.sync(() => {
    if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`)
  })
