// What the activity changed between two slices (stateSlice.ts activityChanges), found from
// the new leaves and the oldest entries only, equals the whole comparison of the two
// states' agents, for random runs of public leaves: agents writing again, bare keys
// claiming names, and entries ageing out of the day.

import { HashMap, Option } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { ACTIVITY_HORIZON_MS, type Activity, type ActivityState, emptyActivity, recordActivity } from "../../../src/domain/telemetry/activity.js"
import { activityChanges } from "../../../src/domain/write/stateSlice.js"

/** The whole comparison: every agent whose latest leaf differs, and every agent gone. */
const wholeDiff = (before: ActivityState, after: ActivityState) => {
  const upserts: Array<readonly [string, number]> = []
  for (const [actor, index] of after.lastByActor) {
    const old = HashMap.get(before.lastByActor, actor)
    if (Option.isSome(old) && old.value === index) continue
    upserts.push([actor, index])
  }
  const deletes = [...HashMap.keys(before.lastByActor)].filter((actor) => !HashMap.has(after.lastByActor, actor))
  return { upserts: upserts.sort(), deletes: deletes.sort() }
}

/** A public leaf: which of a few keys, whether it acts for the key's name, and how much later it is logged. */
const leaf = fc.record({ key: fc.integer({ min: 0, max: 5 }), named: fc.boolean(), gap: fc.oneof(fc.constant(1), fc.integer({ min: 0, max: ACTIVITY_HORIZON_MS / 2 })) })

describe("the activity's changes between two slices", () => {
  it("equal the whole comparison of their agents", () => {
    fc.assert(fc.property(fc.array(leaf, { maxLength: 40 }), fc.array(leaf, { minLength: 1, maxLength: 20 }), (earlier, run) => {
      let state = emptyActivity
      let index = 0
      let logged = 1_000_000
      const apply = ({ key, named, gap }: { key: number; named: boolean; gap: number }) => {
        logged += gap
        const activity: Activity = { kid: `did:key:z${key}`, name: named ? `name-${key}` : null, index, logged, type: "post" }
        state = recordActivity(state, activity)
        index++
      }
      for (const l of earlier) apply(l)
      const before = state
      const size = index
      for (const l of run) apply(l)
      const found = activityChanges(before, state, size)
      expect({
        upserts: found.upserts.map(([actor, activity]) => [actor, activity.index] as const).sort(),
        deletes: [...found.deletes].sort()
      }).toEqual(wholeDiff(before, state))
    }), { numRuns: 500 })
  })
})
