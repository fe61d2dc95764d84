// AICS_HEAP_GROWTH_PERCENT's effect (src/adapters/os/heapGrowth.ts), in processes of their own
// since V8's flags are the process's: a live set, then a stream of objects that each outlive
// the young generation and then die, as a write load's objects do. With the growth an operator
// short of memory sets (75%, docs/operations.md "The heap under load") the heap peaks well
// below where V8's own choice (the default, 0) lets it go.

import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"

// Run from the repository's root on the built module (test/support/globalSetup.ts builds dist/).
const PEAK_SCRIPT = `
import { Effect } from "effect"
import { getHeapStatistics } from "node:v8"
import { applyHeapGrowth } from "./dist/src/adapters/os/heapGrowth.js"
await Effect.runPromise(applyHeapGrowth(Number(process.argv[1])))
const live = []
for (let i = 0; i < 64 * 1024; i++) live.push({ i, data: new Array(120).fill(i) })
const recent = new Array(32 * 1024)
let peak = 0
for (let i = 0; i < 512 * 1024; i++) {
  recent[i % recent.length] = { i, data: new Array(120).fill(i) }
  if (i % 1024 === 0) peak = Math.max(peak, getHeapStatistics().total_heap_size)
}
process.stdout.write(JSON.stringify({ peak, live: live.length, recent: recent.length }))
`

const peakWith = async (percent: number): Promise<number> => {
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", PEAK_SCRIPT, String(percent)], { maxBuffer: 1024 * 1024 })
  return (JSON.parse(stdout) as { peak: number }).peak
}

describe("the heap's growth", () => {
  it("at 75% holds the heap well below V8's own growth under the same churn", async () => {
    const [own, bounded] = await Promise.all([peakWith(0), peakWith(75)])
    // Seen here: 386 MiB against 194.
    // The live set alone is about 96 MiB (64 Ki + 32 Ki arrays of about a KiB).
    expect(bounded).toBeGreaterThan(96 * 1024 * 1024)
    expect(bounded).toBeLessThan(own * 0.75)
  }, 60_000)
})
