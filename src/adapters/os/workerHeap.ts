// The heap limits of the service's worker threads (the write checks', WorkerWriteChecks.ts,
// and the file writer's, durableWrite.ts).
//
// Why: each worker is an isolate with a young generation of its own, which V8 sizes as it
// does the main thread's (16 MiB a semi-space on these machines). The workers' objects live
// for one message (a request's checks, a batch of files), so a smaller young generation only
// means more, cheaper scavenges. Under bench/write on a log of 1,000,000 entries their two
// heaps peaked at 49 and 57 MiB with V8's sizes and at 29 and 33 MiB with 8 MiB, the process
// at 437 against 418 MiB, at the same throughput (bench/README.md "Session 20").

import type { ResourceLimits } from "node:worker_threads"

export const WORKER_RESOURCE_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 8 }
