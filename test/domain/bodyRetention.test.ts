// Which bodies retention may delete (domain/bodyRetention.ts; docs/spec/service.md item 10 and "Body
// status"): the bytes of a digest go only once every entry naming it is hidden by a
// tombstone or ciphertext past its expiry. Never while a public body (a post, a task, a
// policy or the charter document) that no tombstone hides names the same bytes, nor while a
// later ciphertext with the same bytes is live. The ledger decides by a summary folded per
// entry, walking the ciphertext in log order and letting only a digest's newest entry that
// no tombstone hides decide, and walking the tombstones as they are logged (NamingScan);
// those are checked against the full scan of every entry naming a digest (fullScan below,
// the rule in words) on random logs, with retention run at random moments as they grow.

import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { mayDelete, type NamingScan, neededUntilWith, NOT_NAMED, SCAN_START, scanDeletes, scanSettled, scanWith, TOMBSTONE_SCAN_START } from "../../src/domain/bodyRetention.js"
import { bodyStatus, DAY_MS, expiresUnder, type BodyEntry } from "../../src/domain/bodyStatus.js"
import { PureLog } from "../support/identityAgents.js"

const CIPHERTEXT = ["dm", "capsule"]
const PUBLIC = ["post", "task", "poll", "policy", "charter"]
const T0 = 1_795_000_000_000

const entryArb = fc.record({
  index: fc.integer({ min: 1, max: 1_000_000 }),
  type: fc.constantFrom(...CIPHERTEXT, ...PUBLIC),
  logged: fc.integer({ min: T0, max: T0 + 400 * DAY_MS })
})
const daysArb = fc.integer({ min: 90, max: 400 })
const nowArb = fc.integer({ min: T0, max: T0 + 900 * DAY_MS })

/** The rule in words: some entry names it, and each is ciphertext whose retention has run out. */
const allExpired = (naming: ReadonlyArray<BodyEntry>, days: number, now: number) =>
  naming.length > 0 && naming.every((e) => CIPHERTEXT.includes(e.type) && now >= e.logged + days * DAY_MS)

/** The full scan: every entry naming the digest, each hidden by a tombstone or asked for its expiry. */
const fullScan = (naming: ReadonlyArray<BodyEntry>, days: number, now: number, hidden: ReadonlySet<number> = new Set()) =>
  naming.length > 0 && naming.every((e) => {
    if (hidden.has(e.index)) return true
    const expiresAt = expiresUnder(e, days)
    return expiresAt !== null && now >= expiresAt
  })

/** Whether the full summary of `naming` allows deleting at `now`. */
/** The summary of a whole list of entries, folded as the ledger folds them one by one. */
const bytesNeededUntil = (naming: Iterable<Pick<BodyEntry, "type" | "logged">>, retentionDays: number): number => {
  let until = NOT_NAMED
  for (const entry of naming) until = neededUntilWith(until, entry, retentionDays)
  return until
}

const deletable = (naming: ReadonlyArray<BodyEntry>, days: number, now: number) => mayDelete(bytesNeededUntil(naming, days), now)

/** A log naming a few digests, in log order: `logged` never goes backwards (write/decide.ts). */
const logArb = fc.array(
  fc.record({ digest: fc.constantFrom("a", "b", "c", "d", "e"), type: fc.constantFrom(...CIPHERTEXT, ...CIPHERTEXT, ...PUBLIC), step: fc.nat(30 * DAY_MS) }),
  { maxLength: 40 }
).map((rows) => {
  let logged = T0
  return rows.map((row, index) => ({ digest: row.digest, entry: { index: index + 1, type: row.type, logged: (logged += row.step) } }))
})

describe("body retention", () => {
  it("may delete a digest's bytes exactly when every entry naming it is expired ciphertext", () => {
    fc.assert(fc.property(fc.array(entryArb, { maxLength: 6 }), daysArb, nowArb, (naming, days, now) => {
      expect(deletable(naming, days, now)).toBe(allExpired(naming, days, now))
    }), { numRuns: 500 })
  })

  it("never deletes bytes an entry's own status still shows available", () => {
    fc.assert(fc.property(fc.array(entryArb, { minLength: 1, maxLength: 6 }), daysArb, nowArb, (naming, days, now) => {
      const state = new PureLog({ retentionDays: days, label: "retention agrees" }).state
      expect(deletable(naming, days, now)).toBe(naming.every((entry) => bodyStatus(state, entry, now).state === "expired"))
    }), { numRuns: 200 })
  })

  it("keeps bytes for good once a public body names them, and until the last ciphertext expires", () => {
    fc.assert(fc.property(fc.array(entryArb, { minLength: 1, maxLength: 6 }), daysArb, (naming, days) => {
      const until = bytesNeededUntil(naming, days)
      if (naming.some((e) => PUBLIC.includes(e.type))) expect(until).toBe(Infinity)
      else expect(until).toBe(Math.max(...naming.map((e) => e.logged + days * DAY_MS)))
    }), { numRuns: 300 })
  })

  it("does not depend on the order of the entries, and no entry or later time undoes a keep or a delete", () => {
    fc.assert(fc.property(
      fc.array(entryArb, { minLength: 1, maxLength: 6 }), entryArb, daysArb, nowArb, fc.nat(400 * DAY_MS),
      (naming, extra, days, now, later) => {
        const before = deletable(naming, days, now)
        expect(deletable([...naming].reverse(), days, now)).toBe(before)
        // One more entry naming the bytes never frees them earlier.
        if (!before) expect(deletable([...naming, extra], days, now)).toBe(false)
        // Bytes that may go now may go later too.
        if (before) expect(deletable(naming, days, now + later)).toBe(true)
      }
    ), { numRuns: 300 })
  })

  it("decides by the summary folded entry by entry exactly as the full scan does, at any time", () => {
    fc.assert(fc.property(logArb, daysArb, nowArb, (log, days, now) => {
      const until = new Map<string, number>()
      const naming = new Map<string, Array<BodyEntry>>()
      for (const { digest, entry } of log) {
        until.set(digest, neededUntilWith(until.get(digest) ?? NOT_NAMED, entry, days))
        naming.set(digest, [...(naming.get(digest) ?? []), entry])
        // After every leaf, not only at the end: the summary is right as the log grows.
        for (const [d, entries] of naming) expect(mayDelete(until.get(d)!, now)).toBe(fullScan(entries, days, now))
      }
      expect(mayDelete(NOT_NAMED, now)).toBe(false)
    }), { numRuns: 300 })
  })

  it("walking the due ciphertext in log order deletes, each digest once, exactly the digests the full scan deletes", () => {
    fc.assert(fc.property(logArb, daysArb, nowArb, (log, days, now) => {
      // As the fold keeps them: the ciphertext in log order, and each digest's entries.
      const ciphertexts = log.filter(({ entry }) => expiresUnder(entry, days) !== null)
      const naming = new Map<string, Array<BodyEntry>>()
      for (const { digest, entry } of log) naming.set(digest, [...(naming.get(digest) ?? []), entry])
      // Log order is expiry order: the walk stops at the first ciphertext not yet due.
      const expiries = ciphertexts.map(({ entry }) => expiresUnder(entry, days)!)
      expect(expiries).toEqual([...expiries].sort((x, y) => x - y))
      const deleted: Array<string> = []
      let read = 0
      for (const { digest, entry } of ciphertexts) {
        if (expiresUnder(entry, days)! > now) break
        let scan = SCAN_START
        for (const named of [...naming.get(digest)!].reverse()) {
          read++
          scan = scanWith(scan, named, entry.index, days)
          if (scanSettled(scan, now)) break
        }
        if (scanDeletes(scan, now)) deleted.push(digest)
      }
      const expected = [...naming].filter(([, entries]) => fullScan(entries, days, now)).map(([d]) => d)
      expect(new Set(deleted).size).toBe(deleted.length)
      expect([...deleted].sort()).toEqual(expected.sort())
      // A ciphertext that does not decide costs one entry read; one that does, its digest's entries.
      expect(read).toBeLessThanOrEqual(ciphertexts.length + log.length)
    }), { numRuns: 500 })
  })

  it("decides once however often the same bytes were written, and keeps a digest no entry names", () => {
    // The reviewer's case: one ciphertext written over and over is decided by its last write.
    const writes = Array.from({ length: 10_000 }, (_, i) => ({ index: i + 1, type: "capsule", logged: T0 + i }))
    const newestFirst = [...writes].reverse()
    const scanFor = (index: number, now: number) => {
      let scan = SCAN_START
      let read = 0
      for (const entry of newestFirst) {
        read++
        scan = scanWith(scan, entry, index, 90)
        if (scanSettled(scan, now)) break
      }
      return { deletes: scanDeletes(scan, now), read }
    }
    const lastExpiry = T0 + 9_999 + 90 * DAY_MS
    // An earlier write never decides, at one entry read, whenever it comes due.
    expect(scanFor(1, lastExpiry)).toEqual({ deletes: false, read: 1 })
    // The last write decides: kept a millisecond before its expiry, deleted from it.
    expect(scanFor(10_000, lastExpiry - 1)).toEqual({ deletes: false, read: 1 })
    expect(scanFor(10_000, lastExpiry).deletes).toBe(true)
    // A post naming the same bytes keeps them for good.
    let shared = SCAN_START
    for (const entry of [{ index: 3, type: "post", logged: T0 }, { index: 2, type: "capsule", logged: T0 }]) shared = scanWith(shared, entry, 3, 90)
    expect(scanDeletes(shared, Number.MAX_SAFE_INTEGER)).toBe(false)
    expect(scanDeletes(SCAN_START, Number.MAX_SAFE_INTEGER)).toBe(false)
    expect(mayDelete(bytesNeededUntil([], 90), Number.MAX_SAFE_INTEGER)).toBe(false)
  })

  it("lets a tombstone free bytes no other entry needs, and never bytes another entry still needs", () => {
    const post = { index: 5, type: "post", logged: T0 }
    const capsule = { index: 3, type: "capsule", logged: T0 }
    const hide = (hidden: ReadonlySet<number>) => (entries: ReadonlyArray<BodyEntry>) => {
      let scan: NamingScan = TOMBSTONE_SCAN_START
      for (const entry of entries) scan = scanWith(scan, entry, post.index, 90, hidden.has(entry.index))
      return scanDeletes(scan, T0)
    }
    // A hidden post that alone names its bytes: they go at once.
    expect(hide(new Set([5]))([post])).toBe(true)
    // A capsule naming the same bytes that has not expired keeps them...
    expect(hide(new Set([5]))([post, capsule])).toBe(false)
    // ...unless a tombstone hides it too.
    expect(hide(new Set([5, 3]))([post, capsule])).toBe(true)
    // A second post no tombstone hides keeps them for good.
    expect(hide(new Set([5]))([post, { index: 4, type: "post", logged: T0 }])).toBe(false)
    // A hidden entry is an entry naming the bytes, not none.
    expect(neededUntilWith(NOT_NAMED, post, 90, true)).not.toBe(NOT_NAMED)
  })

  it("the two walks, run at any moments as the log grows, delete only unneeded bytes, and in the end every unneeded digest", () => {
    /** A log in order: entries naming digests, tombstones of earlier entries, and retention's runs, at times that never go back. */
    const eventsArb = fc.array(
      fc.oneof(
        { weight: 5, arbitrary: fc.record({ kind: fc.constant("entry" as const), digest: fc.constantFrom("a", "b", "c", "d"), type: fc.constantFrom(...CIPHERTEXT, ...CIPHERTEXT, ...PUBLIC), step: fc.nat(30 * DAY_MS) }) },
        { weight: 2, arbitrary: fc.record({ kind: fc.constant("tombstone" as const), pick: fc.nat(), step: fc.nat(DAY_MS) }) },
        { weight: 2, arbitrary: fc.record({ kind: fc.constant("run" as const), step: fc.nat(200 * DAY_MS) }) }
      ),
      { maxLength: 40 }
    )
    fc.assert(fc.property(eventsArb, daysArb, (events, days) => {
      let now = T0
      let index = 0
      const naming = new Map<string, Array<BodyEntry>>()
      const digestOf = new Map<number, string>()
      const hidden = new Set<number>()
      const stored = new Set<string>()
      const ciphertexts: Array<{ digest: string; entry: BodyEntry }> = []
      const tombstones: Array<number> = []
      let ciphertextsAt = 0
      let tombstonesAt = 0

      const decide = (digest: string, start: NamingScan, at: number) => {
        let scan = start
        for (const entry of [...naming.get(digest)!].reverse()) {
          scan = scanWith(scan, entry, at, days, hidden.has(entry.index))
          if (scanSettled(scan, now)) break
        }
        if (!scanDeletes(scan, now)) return
        // Never bytes an entry still needs.
        expect(fullScan(naming.get(digest)!, days, now, hidden)).toBe(true)
        stored.delete(digest)
      }
      const run = () => {
        for (; ciphertextsAt < ciphertexts.length; ciphertextsAt++) {
          const { digest, entry } = ciphertexts[ciphertextsAt]!
          if (expiresUnder(entry, days)! > now) break
          decide(digest, SCAN_START, entry.index)
        }
        for (; tombstonesAt < tombstones.length; tombstonesAt++) {
          const target = tombstones[tombstonesAt]!
          decide(digestOf.get(target)!, TOMBSTONE_SCAN_START, target)
        }
      }

      for (const event of events) {
        now += event.step
        if (event.kind === "run") run()
        else if (event.kind === "entry") {
          const entry = { index: ++index, type: event.type, logged: now }
          naming.set(event.digest, [...(naming.get(event.digest) ?? []), entry])
          digestOf.set(entry.index, event.digest)
          // A write stores its bytes again if they were deleted.
          stored.add(event.digest)
          if (CIPHERTEXT.includes(entry.type)) ciphertexts.push({ digest: event.digest, entry })
        } else {
          const open = [...digestOf.keys()].filter((i) => !hidden.has(i))
          if (open.length === 0) continue
          const target = open[event.pick % open.length]!
          index++
          hidden.add(target)
          tombstones.push(target)
        }
      }
      // Long after the last leaf, one more run: what no entry needs is gone, the rest kept.
      now += (days + 1) * DAY_MS
      run()
      for (const [digest, entries] of naming) expect(stored.has(digest)).toBe(!fullScan(entries, days, now, hidden))
    }), { numRuns: 1000 })
  })
})
