// The ProjectionStore contract (src/ports/ProjectionStore.ts), run against every adapter.

import { it } from "@effect/vitest"
import { Chunk, Effect, HashMap, type Layer, type Scope } from "effect"
import fc from "fast-check"
import { describe, expect } from "vitest"
import type { NameRecord } from "../../src/domain/write/logState.js"
import { emptyResident, namesOnlyChanges, type StateChanges } from "../../src/domain/write/stateSlice.js"
import { type ProjectionCommit, ProjectionStore } from "../../src/ports/ProjectionStore.js"

export interface ProjectionStoreUnderTest {
  /** A new, empty store and the layer that opens it (again: the adapters are durable). */
  readonly fresh: Effect.Effect<Layer.Layer<ProjectionStore, unknown>, unknown, Scope.Scope>
}

const withStore = <A, E>(layer: Layer.Layer<ProjectionStore, unknown>, use: (s: typeof ProjectionStore.Service) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(ProjectionStore, use).pipe(Effect.provide(layer)))

/** A key-tier name claimed at `claimIndex`, optionally rotated at `rotatedAt`. */
export const claimed = (name: string, claimIndex: number, rotatedAt?: number): NameRecord => {
  const claim = {
    type: "claim" as const, index: claimIndex, logged: 1000 + claimIndex, signer: `did:key:z${name}`,
    kid: `did:key:z${name}`, x25519: `x-${name}`, recovery: claimIndex % 2 === 0 ? `did:key:zR${name}` : null
  }
  const base: NameRecord = {
    name, tier: "key", kid: claim.kid, kidIndex: claimIndex, x25519: claim.x25519, x25519Index: claimIndex,
    recovery: claim.recovery, claimIndex, events: Chunk.of(claim)
  }
  if (rotatedAt === undefined) return base
  const kid = `did:key:z${name}-2`
  return {
    ...base, kid, kidIndex: rotatedAt,
    events: Chunk.append(base.events, { type: "key.rotate", index: rotatedAt, logged: 1000 + rotatedAt, signer: claim.kid, prevKid: claim.kid, kid })
  }
}

const secretName = (name: string, claimIndex: number): NameRecord => ({
  name, tier: "secret", kid: "did:key:zPolicy", kidIndex: claimIndex, x25519: "", x25519Index: null, recovery: null, claimIndex,
  events: Chunk.of({ type: "claim", index: claimIndex, logged: 5, signer: "did:key:zPolicy", kid: "did:key:zPolicy", x25519: "", recovery: null })
})

/** A stand-in leaf hash for the leaf before `size`. */
export const leafAt = (size: number): Uint8Array => new Uint8Array(32).fill(size % 251)

/** A fold step of the leaves [from, upTo) that changed only these names. */
export const step = (from: number, upTo: number, names: ReadonlyArray<NameRecord>, more: Partial<StateChanges> = {}): ProjectionCommit => ({
  from,
  upTo,
  lastLeaf: leafAt(upTo),
  changes: { ...namesOnlyChanges(names, upTo), ...more }
})

const withoutEvents = ({ events: _events, ...fields }: NameRecord) => fields

export const projectionStoreContract = (name: string, adapter: ProjectionStoreUnderTest): void => {
  describe(`ProjectionStore contract: ${name}`, () => {
    it.scoped("starts empty at folded 0", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withStore(layer, (store) => Effect.gen(function*() {
          expect(yield* store.folded).toBe(0)
          expect(yield* store.lastLeaf).toBe(null)
          expect((yield* store.names(["alice"])).size).toBe(0)
          expect(yield* store.directory({ limit: 10 })).toEqual({ names: [], truncated: false })
          expect(yield* store.directory({ part: "ali", limit: 10 })).toEqual({ names: [], truncated: false })
        }))
      }))

    it.scoped("applies a step only from the folded index, all of it, and keeps it across a reopen", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        const alice = claimed("alice", 1)
        const bob = claimed("bob-agent", 3)
        yield* withStore(layer, (store) => Effect.gen(function*() {
          expect(yield* store.commit(step(0, 4, [alice, bob]))).toBe(true)
          // A stale or repeated step changes nothing.
          expect(yield* store.commit(step(0, 4, [claimed("alice", 1, 2)]))).toBe(false)
          expect(yield* store.commit(step(5, 6, [claimed("carol", 5)]))).toBe(false)
          expect(yield* store.folded).toBe(4)
          expect(yield* store.lastLeaf).toEqual(leafAt(4))
        }))
        yield* withStore(layer, (store) => Effect.gen(function*() {
          expect(yield* store.folded).toBe(4)
          expect(yield* store.lastLeaf).toEqual(leafAt(4))
          const slice = yield* store.names(["alice", "bob-agent", "nobody"])
          expect([...slice.keys()].sort()).toEqual(["alice", "bob-agent"])
          expect(slice.get("alice")).toEqual(alice)
          expect(slice.get("bob-agent")).toEqual(bob)
          // A later step updates a name in place: the rotation and its event, same claim place.
          const rotated = claimed("alice", 1, 4)
          expect(yield* store.commit(step(4, 6, [rotated, secretName("zed", 5)]))).toBe(true)
          expect((yield* store.names(["alice"])).get("alice")).toEqual(rotated)
          expect((yield* store.names(["zed"])).get("zed")).toEqual(secretName("zed", 5))
          expect((yield* store.directory({ limit: 10 })).names).toEqual([withoutEvents(rotated), withoutEvents(bob), withoutEvents(secretName("zed", 5))])
          expect(yield* store.folded).toBe(6)
        }))
      }))

    it.scoped("pages the directory in claim order and searches by a part of the name", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        const names = Array.from({ length: 40 }, (_, i) => claimed(`agent-${String(i).padStart(2, "0")}${i % 3 === 0 ? "-fox" : ""}`, 10 + 2 * i))
        yield* withStore(layer, (store) => Effect.gen(function*() {
          // Two steps, the second claims and rotates.
          expect(yield* store.commit(step(0, 50, names.slice(0, 20)))).toBe(true)
          expect(yield* store.commit(step(50, 200, [...names.slice(20), claimed(names[3]!.name, names[3]!.claimIndex, 150)]))).toBe(true)
          const all = names.map((r, i) => withoutEvents(i === 3 ? claimed(r.name, r.claimIndex, 150) : r))

          const first = yield* store.directory({ limit: 15 })
          expect(first).toEqual({ names: all.slice(0, 15), truncated: true })
          const second = yield* store.directory({ after: first.names.at(-1)!.claimIndex, limit: 15 })
          expect(second).toEqual({ names: all.slice(15, 30), truncated: true })
          const last = yield* store.directory({ after: second.names.at(-1)!.claimIndex, limit: 15 })
          expect(last).toEqual({ names: all.slice(30), truncated: false })
          expect(yield* store.directory({ limit: 40 })).toEqual({ names: all, truncated: false })

          // Trigram-sized parts, short parts, parts with LIKE's and FTS's own characters.
          const matching = (part: string) => all.filter((r) => r.name.includes(part))
          for (const part of ["fox", "-fox", "agent-1", "nt-0", "7", "-f", "ag", "zzz", "%", "_", "\"", "a\"b", "agent-%"]) {
            expect((yield* store.directory({ part, limit: 100 })).names).toEqual(matching(part))
          }
          const foxes = matching("fox")
          expect(yield* store.directory({ part: "fox", limit: 5 })).toEqual({ names: foxes.slice(0, 5), truncated: true })
          expect(yield* store.directory({ part: "fox", after: foxes[4]!.claimIndex, limit: 100 }))
            .toEqual({ names: foxes.slice(5), truncated: false })
          expect(yield* store.directory({ part: "fox", limit: foxes.length })).toEqual({ names: foxes, truncated: false })
        }))
      }))

    it.scoped("searches thousands of names: common parts, rare parts, and pages through both", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        // Common parts everywhere; "rare" only near the end; "mid" every 40th name.
        const names = Array.from({ length: 3000 }, (_, i) =>
          claimed(`${i >= 2990 ? "rare" : "common"}-${i % 40 === 0 ? "mid-" : ""}${i}`, 5 + i))
        const all = names.map(withoutEvents)
        yield* withStore(layer, (store) => Effect.gen(function*() {
          expect(yield* store.commit(step(0, 3005, names))).toBe(true)
          for (const part of ["common", "mon-1", "rare", "mid", "e-2", "99", "are-2995", "zzz"]) {
            const matching = all.filter((r) => r.name.includes(part))
            const first = yield* store.directory({ part, limit: 100 })
            expect(first).toEqual({ names: matching.slice(0, 100), truncated: matching.length > 100 })
            if (matching.length > 100) {
              const next = yield* store.directory({ part, after: first.names.at(-1)!.claimIndex, limit: 100 })
              expect(next).toEqual({ names: matching.slice(100, 200), truncated: matching.length > 200 })
            }
          }
        }))
      }))

    it.scoped("answers the names whose claim named a key as recovery key, claim order, a page from a claim index, across a reopen", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        const shared = "did:key:zShared"
        const namedBy = (name: string, claimIndex: number, recovery: string | null): NameRecord => ({ ...claimed(name, claimIndex), recovery })
        // Claims naming the shared key, others naming another key or none, over two steps;
        // a later step rotates one of them (its row is written again, its recovery stays).
        const first = [namedBy("owl", 2, shared), namedBy("fox", 3, "did:key:zOther"), namedBy("elk", 5, shared), namedBy("emu", 6, null)]
        const second = [namedBy("yak", 9, shared), namedBy("asp", 11, shared)]
        yield* withStore(layer, (store) => Effect.gen(function*() {
          expect(yield* store.recoveryNames(shared, { from: 0, limit: 10 })).toEqual([])
          expect(yield* store.commit(step(0, 8, first))).toBe(true)
          expect(yield* store.commit(step(8, 12, second))).toBe(true)
          expect(yield* store.commit(step(12, 14, [{ ...namedBy("elk", 5, shared), ...claimed("elk", 5, 13), recovery: shared }]))).toBe(true)
        }))
        yield* withStore(layer, (store) => Effect.gen(function*() {
          const all = [{ name: "owl", claimIndex: 2 }, { name: "elk", claimIndex: 5 }, { name: "yak", claimIndex: 9 }, { name: "asp", claimIndex: 11 }]
          expect(yield* store.recoveryNames(shared, { from: 0, limit: 10 })).toEqual(all)
          // A page: at most `limit`, from a claim index on (inclusive).
          expect(yield* store.recoveryNames(shared, { from: 0, limit: 2 })).toEqual(all.slice(0, 2))
          expect(yield* store.recoveryNames(shared, { from: 5, limit: 2 })).toEqual(all.slice(1, 3))
          expect(yield* store.recoveryNames(shared, { from: 6, limit: 10 })).toEqual(all.slice(2))
          expect(yield* store.recoveryNames(shared, { from: 12, limit: 10 })).toEqual([])
          expect(yield* store.recoveryNames("did:key:zOther", { from: 0, limit: 10 })).toEqual([{ name: "fox", claimIndex: 3 }])
          expect(yield* store.recoveryNames("did:key:zNobody", { from: 0, limit: 10 })).toEqual([])
          yield* store.reset
          expect(yield* store.recoveryNames(shared, { from: 0, limit: 10 })).toEqual([])
        }))
      }))

    it.scoped("reset empties the store for a rebuild", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withStore(layer, (store) => Effect.gen(function*() {
          expect(yield* store.commit(step(0, 3, [claimed("alice", 1)]))).toBe(true)
          yield* store.reset
          expect(yield* store.folded).toBe(0)
          expect(yield* store.lastLeaf).toBe(null)
          expect((yield* store.names(["alice"])).size).toBe(0)
          expect(yield* store.directory({ part: "ali", limit: 10 })).toEqual({ names: [], truncated: false })
          // The same leaves fold again from 0.
          expect(yield* store.commit(step(0, 3, [claimed("alice", 1)]))).toBe(true)
          expect((yield* store.directory({ part: "alice", limit: 10 })).names).toEqual([withoutEvents(claimed("alice", 1))])
        }))
      }))

    it.scoped("keeps where each of retention's walks stands, never moving it back, across a reopen and until a reset", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        yield* withStore(layer, (store) => Effect.gen(function*() {
          expect(yield* store.retained("ciphertexts")).toBe(0)
          expect(yield* store.retained("tombstones")).toBe(0)
          yield* store.retain("ciphertexts", 3)
          expect(yield* store.retained("ciphertexts")).toBe(3)
          // Each walk's position is its own.
          expect(yield* store.retained("tombstones")).toBe(0)
          yield* store.retain("tombstones", 40)
          expect(yield* store.retained("tombstones")).toBe(40)
          expect(yield* store.retained("ciphertexts")).toBe(3)
          // A turn that ends later but went less far (another node's) leaves the further position.
          yield* store.retain("ciphertexts", 2)
          yield* store.retain("tombstones", 39)
          expect(yield* store.retained("ciphertexts")).toBe(3)
          expect(yield* store.retained("tombstones")).toBe(40)
          yield* store.retain("ciphertexts", 12)
          // A fold step does not touch them.
          expect(yield* store.commit(step(0, 2, [claimed("alice", 1)]))).toBe(true)
        }))
        yield* withStore(layer, (store) => Effect.gen(function*() {
          expect(yield* store.retained("ciphertexts")).toBe(12)
          expect(yield* store.retained("tombstones")).toBe(40)
          expect((yield* store.rows([{ area: "names", key: "alice" }])).names).toEqual([claimed("alice", 1)])
          yield* store.reset
          expect(yield* store.retained("ciphertexts")).toBe(0)
          expect(yield* store.retained("tombstones")).toBe(0)
          yield* store.retain("ciphertexts", 1)
          expect(yield* store.retained("ciphertexts")).toBe(1)
          expect(yield* store.retained("tombstones")).toBe(0)
        }))
      }))

    it.scoped("pages the ciphertext list and the entries naming a digest like every list", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        const ciphertexts = [
          { index: 3, digest: "d1", expiresAt: 7_776_003_000, size: 10, before: 0 },
          { index: 5, digest: "d2", expiresAt: 7_776_005_000, size: 20, before: 10 }
        ]
        const naming = [{ index: 3, type: "capsule", logged: 3000 }, { index: 4, type: "post", logged: 4000 }]
        yield* withStore(layer, (store) => Effect.gen(function*() {
          expect(yield* store.commit(step(0, 6, [], {
            appends: [{ area: "ciphertexts", key: "", elements: ciphertexts }, { area: "bodyNaming", key: "d1", elements: naming }]
          }))).toBe(true)
        }))
        yield* withStore(layer, (store) => Effect.gen(function*() {
          expect(yield* store.list("ciphertexts", "", { before: 1, limit: 1 })).toEqual({ length: 2, elements: [{ n: 0, value: ciphertexts[0] }] })
          expect((yield* store.list("bodyNaming", "d1", { limit: 10 })).elements.map((e) => e.value)).toEqual([...naming].reverse())
          expect(yield* store.list("bodyNaming", "d2", { limit: 10 })).toEqual({ length: 0, elements: [] })
        }))
      }))

    it.scoped("writes and deletes rows, appends to lists after their last element, pages them newest first, keeps the resident parts", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        const head = { seq: 3, hash: new Uint8Array([1, 2, 3]), index: 7 }
        const key = { kid: "did:key:zA", name: "alice", boundIndex: 1, unboundIndex: null, envelopes: Chunk.empty<number>() }
        const governance = { ...emptyResident.governance, audits: Chunk.make(4, 5), suspensions: HashMap.make(["alice", { subject: "alice", index: 6, logged: 9, order: "o", until: null, endedIndex: null }]) }
        const activity = { kid: "did:key:zA", name: "alice", index: 7, logged: 1000, type: "post" }
        yield* withStore(layer, (store) => Effect.gen(function*() {
          expect(yield* store.resident).toEqual(emptyResident)
          expect(yield* store.list("channelPosts", "general", { limit: 5 })).toEqual({ length: 0, elements: [] })
          expect(yield* store.commit(step(0, 8, [claimed("alice", 1)], {
            upserts: [{ area: "chains", key: "did:key:zA", value: head }, { area: "keys", key: "did:key:zA", value: key }, { area: "bodies", key: "5", value: "digest" },
              { area: "activity", key: "name:alice", value: activity }],
            appends: [{ area: "channelPosts", key: "general", elements: [2, 3] }, { area: "envelopes", key: "did:key:zA", elements: [1, 2, 3] }],
            resident: { ...emptyResident, counters: { ...emptyResident.counters, size: 8, lastLogged: 1000 }, governance },
            residentChanged: { service: false, governance: true, tasks: false }
          }))).toBe(true)
          expect(yield* store.commit(step(8, 9, [], {
            deletes: [{ area: "bodies", key: "5" }],
            // A list with elements, a new one, and the first again: each numbered after what it holds.
            appends: [
              { area: "channelPosts", key: "general", elements: [8] },
              { area: "envelopes", key: "did:key:zB", elements: [8] },
              { area: "channelPosts", key: "general", elements: [9] }
            ],
            resident: { ...emptyResident, counters: { ...emptyResident.counters, size: 9, lastLogged: 1001 }, governance }
          }))).toBe(true)
        }))
        // Reopened: what the commits wrote.
        yield* withStore(layer, (store) => Effect.gen(function*() {
          const loaded = yield* store.rows([
            { area: "chains", key: "did:key:zA" }, { area: "keys", key: "did:key:zA" }, { area: "bodies", key: "5" },
            { area: "grants", key: "1" }, { area: "names", key: "alice" }, { area: "names", key: "bob" },
            { area: "activity", key: "name:alice" }, { area: "activity", key: "name:nobody" }
          ])
          expect(loaded.rows).toEqual([
            { area: "chains", key: "did:key:zA", value: head }, { area: "keys", key: "did:key:zA", value: key },
            { area: "activity", key: "name:alice", value: activity }
          ])
          expect(loaded.names).toEqual([claimed("alice", 1)])
          expect(yield* store.list("channelPosts", "general", { limit: 2 })).toEqual({ length: 4, elements: [{ n: 3, value: 9 }, { n: 2, value: 8 }] })
          expect(yield* store.list("channelPosts", "general", { before: 1, limit: 5 })).toEqual({ length: 4, elements: [{ n: 0, value: 2 }] })
          // A page past the start is empty, and still says the list's length.
          expect(yield* store.list("channelPosts", "general", { before: 0, limit: 5 })).toEqual({ length: 4, elements: [] })
          expect((yield* store.list("envelopes", "did:key:zA", { limit: 10 })).elements.map((e) => e.value)).toEqual([3, 2, 1])
          expect(yield* store.list("envelopes", "did:key:zB", { limit: 10 })).toEqual({ length: 1, elements: [{ n: 0, value: 8 }] })
          // The keys of an area's lists, in order, from a key on, a page at a time.
          expect(yield* store.listKeys("envelopes", { limit: 10 })).toEqual(["did:key:zA", "did:key:zB"])
          expect(yield* store.listKeys("envelopes", { limit: 1 })).toEqual(["did:key:zA"])
          expect(yield* store.listKeys("envelopes", { after: "did:key:zA", limit: 10 })).toEqual(["did:key:zB"])
          expect(yield* store.listKeys("channelPosts", { limit: 10 })).toEqual(["general"])
          expect(yield* store.listKeys("inboxes", { limit: 10 })).toEqual([])
          // The keys of an area's rows, in order, from a key on; a deleted row is gone.
          expect(yield* store.rowKeys("keys", { limit: 10 })).toEqual(["did:key:zA"])
          expect(yield* store.rowKeys("keys", { after: "did:key:zA", limit: 10 })).toEqual([])
          expect(yield* store.rowKeys("bodies", { limit: 10 })).toEqual([])
          const resident = yield* store.resident
          expect(resident.counters).toEqual({ ...emptyResident.counters, size: 9, lastLogged: 1001 })
          expect(Chunk.toReadonlyArray(resident.governance.audits)).toEqual([4, 5])
          expect(HashMap.get(resident.governance.suspensions, "alice")._tag).toBe("Some")
          expect(yield* store.recentActivity(0, 10)).toEqual({ count: 1, latest: [activity] })
          yield* store.reset
          expect(yield* store.resident).toEqual(emptyResident)
          expect((yield* store.rows([{ area: "chains", key: "did:key:zA" }])).rows).toEqual([])
          expect(yield* store.list("channelPosts", "general", { limit: 5 })).toEqual({ length: 0, elements: [] })
          expect(yield* store.listKeys("envelopes", { limit: 10 })).toEqual([])
        }))
      }))

    it.scoped("answers the agents of a window from the activity rows, newest first, counted, after replacements and deletes", () =>
      Effect.gen(function*() {
        const layer = yield* adapter.fresh
        const at = (actor: string, index: number, logged: number) => {
          const [kind, id] = actor.split(":") as [string, string]
          return { area: "activity" as const, key: actor, value: { kid: kind === "key" ? id : null, name: kind === "name" ? id : null, index, logged, type: "post" } }
        }
        // Five agents over two commits; in the second, carol writes again and the bare key
        // dave claims a name (its bare-key row goes for the name's).
        const first = [at("name:alice", 1, 1000), at("name:bob", 2, 2000), at("name:carol", 3, 2000), at("key:dave", 4, 3000), at("key:erin", 5, 4000)]
        const second = [at("name:carol", 6, 5000), at("name:dave", 7, 5000)]
        yield* withStore(layer, (store) => Effect.gen(function*() {
          expect(yield* store.recentActivity(0, 10)).toEqual({ count: 0, latest: [] })
          expect(yield* store.commit(step(0, 6, [], { upserts: first, resident: { ...emptyResident, counters: { ...emptyResident.counters, size: 6 } } }))).toBe(true)
          expect(yield* store.commit(step(6, 8, [], {
            upserts: second,
            deletes: [{ area: "activity", key: "key:dave" }],
            resident: { ...emptyResident, counters: { ...emptyResident.counters, size: 8 } }
          }))).toBe(true)
        }))
        // Reopened: the window's agents, newest first by leaf index.
        yield* withStore(layer, (store) => Effect.gen(function*() {
          const values = (rows: ReadonlyArray<ReturnType<typeof at>>) => rows.map((row) => row.value)
          expect(yield* store.recentActivity(0, 10)).toEqual({ count: 5, latest: values([second[1]!, second[0]!, first[4]!, first[1]!, first[0]!]) })
          // The window starts at `since`, inclusive; the limit cuts the list, not the count.
          expect(yield* store.recentActivity(2000, 10)).toEqual({ count: 4, latest: values([second[1]!, second[0]!, first[4]!, first[1]!]) })
          expect(yield* store.recentActivity(2000, 2)).toEqual({ count: 4, latest: values([second[1]!, second[0]!]) })
          expect(yield* store.recentActivity(4001, 1)).toEqual({ count: 2, latest: values([second[1]!]) })
          expect(yield* store.recentActivity(5001, 10)).toEqual({ count: 0, latest: [] })
          expect(yield* store.recentActivity(0, 0)).toEqual({ count: 5, latest: [] })
        }))
      }))

    it.scoped("counts the agents of any window as the rows do, across minutes, replacements and deletes", () =>
      Effect.gen(function*() {
        // Agents write at times spread over five minutes (Unix ms, never negative), again and
        // again, and some go; every window (its start on a minute's edge, inside one, before
        // all) counts what a filter of the rows counts. A store may count by the minute
        // (stateRows.ts ACTIVITY_MINUTE_MS).
        const MINUTE = 60_000
        const write = fc.record({ agent: fc.nat(11), logged: fc.oneof(fc.nat(5 * MINUTE), fc.nat(5).map((m) => m * MINUTE), fc.integer({ min: 1, max: 5 }).map((m) => m * MINUTE - 1)) })
        const commitOf = fc.record({ writes: fc.array(write, { maxLength: 6 }), leaving: fc.array(fc.nat(11), { maxLength: 2 }) })
        const since = fc.oneof(fc.integer({ min: -1000, max: 6 * MINUTE }), fc.nat(6).map((m) => m * MINUTE), fc.nat(6).map((m) => m * MINUTE + 1))
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(fc.array(commitOf, { minLength: 1, maxLength: 5 }), fc.array(since, { minLength: 1, maxLength: 6 }), (commits, windows) =>
              Effect.runPromise(Effect.scoped(Effect.gen(function*() {
                const layer = yield* adapter.fresh
                const rows = new Map<string, { key: string; index: number; logged: number; value: Record<string, unknown> }>()
                let folded = 0
                yield* withStore(layer, (store) => Effect.gen(function*() {
                  for (const { writes, leaving } of commits) {
                    const upserts = new Map<string, { area: "activity"; key: string; value: Record<string, unknown> }>()
                    writes.forEach(({ agent, logged }, k) => {
                      const key = `name:a${agent}`
                      const value = { kid: null, name: `a${agent}`, index: folded + k, logged, type: "post" }
                      upserts.set(key, { area: "activity", key, value })
                      rows.set(key, { key, index: folded + k, logged, value })
                    })
                    const deletes = [...new Set(leaving.map((agent) => `name:a${agent}`))].filter((key) => !upserts.has(key) && rows.has(key))
                    for (const key of deletes) rows.delete(key)
                    const upTo = folded + writes.length + 1
                    expect(yield* store.commit(step(folded, upTo, [], {
                      upserts: [...upserts.values()],
                      deletes: deletes.map((key) => ({ area: "activity", key })),
                      resident: { ...emptyResident, counters: { ...emptyResident.counters, size: upTo } }
                    }))).toBe(true)
                    folded = upTo
                  }
                  for (const start of windows) {
                    const inWindow = [...rows.values()].filter((row) => row.logged >= start)
                      .sort((a, b) => b.logged - a.logged || b.index - a.index)
                    expect(yield* store.recentActivity(start, 3)).toEqual({ count: inWindow.length, latest: inWindow.slice(0, 3).map((row) => row.value) })
                  }
                }))
              })).pipe(Effect.orDie))),
            { numRuns: 25 }
          )
        )
      }), 120_000)
  })
}
