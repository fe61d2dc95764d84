// The LogStore contract (src/ports/LogStore.ts), as tests every adapter must pass: the
// filesystem, memory and PostgreSQL stores. The suite only talks to the port, through a
// layer the adapter's test file supplies, and checks it against a model log built with
// appendLeaf, the same code the writer uses. It appends under the fence of a lease that the
// store's own kind of deployment grants (what a later lease does to an append needs
// several sessions: the PostgreSQL tests check it).

import { describe, expect } from "vitest"
import { it } from "@effect/vitest"
import { Effect, Layer, Option, type Scope } from "effect"
import fc from "fast-check"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { toHex, utf8 } from "../../src/domain/bytes.js"
import { appendLeaf, emptyFrontier, frontierFromHashes, frontierIndexes, frontierRoot, type Frontier } from "../../src/domain/tlog/frontier.js"
import { makeTreeHasher, type Hash } from "../../src/domain/tlog/hasher.js"
import { storedHashCount } from "../../src/domain/tlog/storedHash.js"
import { inclusionProofIndexes } from "../../src/domain/tlog/inclusion.js"
import type { LeaseFence } from "../../src/ports/LeaseFence.js"
import { LogStore, type AppendedLeaf } from "../../src/ports/LogStore.js"

export interface LogStoreUnderTest {
  /** A new, empty store (a folder, a database schema...), removed when the scope closes. */
  readonly fresh: Effect.Effect<FreshLogStore, unknown, Scope.Scope>
  readonly durable: boolean
  /** fast-check runs of the model test (each one makes a fresh store). */
  readonly propertyRuns?: number
}

export interface FreshLogStore {
  /** The layer that opens the store; building it again after the last build was released reopens the same store when `durable`. */
  readonly open: Layer.Layer<LogStore, unknown>
  /** Takes the sequencing lease of the store's deployment, held until the scope closes; answers its fence. */
  readonly lease: Effect.Effect<LeaseFence, unknown, Scope.Scope>
}

export const hasher = makeTreeHasher(nodeCrypto.sha256)

/**
 * Deterministic entry bytes of a length, from a seed: a label ("entry <seed>", cut to the
 * length) and pseudo-random bytes. Short entries of different seeds can be equal, which
 * gives the model tests duplicate leaves for free.
 */
export const entryBytes = (seed: number, length: number): Uint8Array => {
  const bytes = new Uint8Array(length)
  let state = (seed * 2654435761 + length) >>> 0
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) >>> 0
    bytes[i] = state >>> 24
  }
  bytes.set(utf8(`entry ${seed}`).subarray(0, length))
  return bytes
}

/** The log a correct store must hold: entries, every stored hash, the frontier. */
export class LogModel {
  readonly entries: Array<Uint8Array> = []
  readonly hashes: Array<Hash> = []
  frontier: Frontier = emptyFrontier
  private readonly first = new Map<string, number>()

  get size(): number {
    return this.entries.length
  }

  /** The batch to pass to append for these entries; the model now includes them. */
  add(entries: ReadonlyArray<Uint8Array>): Array<AppendedLeaf> {
    return entries.map((bytes) => {
      const step = appendLeaf(hasher, this.frontier, hasher.leafHash(bytes))
      this.frontier = step.frontier
      const key = toHex(step.stored[0]!)
      if (!this.first.has(key)) this.first.set(key, this.entries.length)
      this.entries.push(bytes)
      this.hashes.push(...step.stored)
      return { bytes, hashes: step.stored }
    })
  }

  /** The batch for these entries at the current size, without adding them. */
  peek(entries: ReadonlyArray<Uint8Array>): Array<AppendedLeaf> {
    let frontier = this.frontier
    return entries.map((bytes) => {
      const step = appendLeaf(hasher, frontier, hasher.leafHash(bytes))
      frontier = step.frontier
      return { bytes, hashes: step.stored }
    })
  }

  firstIndexOf(leafHash: Hash): number | undefined {
    return this.first.get(toHex(leafHash))
  }
}

const hex = (values: ReadonlyArray<Uint8Array>) => values.map(toHex)

type Store = typeof LogStore.Service

const storageError = <A, E extends { readonly _tag?: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) => {
    expect(error._tag).toBe("StorageError")
    return error
  })

/** Everything a reader can see matches the model. */
export const expectStoreMatches = (store: Store, model: LogModel) =>
  Effect.gen(function*() {
    const n = model.size
    const total = storedHashCount(n)
    expect(yield* store.size).toBe(n)
    expect(hex(yield* store.readEntries(0, n))).toEqual(hex(model.entries))
    expect(hex(yield* store.readHashRange(0, total))).toEqual(hex(model.hashes))
    // The positions a root and a proof need, out of order and repeated.
    const wanted = [...frontierIndexes(n)].reverse()
    if (total > 0) wanted.push(0, total - 1, Math.floor(total / 2), 0)
    expect(hex(yield* store.readHashes(wanted))).toEqual(wanted.map((p) => toHex(model.hashes[p]!)))
    const root = frontierRoot(hasher, frontierFromHashes(n, yield* store.readHashes(frontierIndexes(n))))
    expect(toHex(root)).toBe(toHex(frontierRoot(hasher, model.frontier)))
    for (let index = 0; index < n; index++) {
      const leafHash = model.hashes[storedHashCount(index)]!
      expect(yield* store.findLeaf(leafHash)).toEqual(Option.some(model.firstIndexOf(leafHash)!))
    }
    // Each leaf with its inclusion proof's hashes (in the proof's order), as the bundle reads
    // them; and with none, as when the cache holds them all.
    for (let index = 0; index < n; index++) {
      const proof = inclusionProofIndexes(index, n)
      const read = yield* store.readEntryAndHashes(index, proof)
      expect(toHex(read.entry)).toBe(toHex(model.entries[index]!))
      expect(hex(read.hashes)).toEqual(proof.map((p) => toHex(model.hashes[p]!)))
      expect(hex((yield* store.readEntryAndHashes(index, [])).hashes)).toEqual([])
    }
    yield* storageError(store.readEntries(0, n + 1))
    yield* storageError(store.readHashRange(0, total + 1))
    yield* storageError(store.readHashes([total]))
    yield* storageError(store.readEntryAndHashes(n, []))
    if (n > 0) yield* storageError(store.readEntryAndHashes(0, [0, total]))
  })

const withStore = <A, E, R>(open: Layer.Layer<LogStore, unknown>, use: (store: Store) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(LogStore, use).pipe(Effect.provide(open))

const entriesOf = (seeds: ReadonlyArray<readonly [number, number]>) => seeds.map(([seed, length]) => entryBytes(seed, length))

export const logStoreContract = (name: string, adapter: LogStoreUnderTest): void => {
  describe(`LogStore contract: ${name}`, () => {
    it.scoped("starts empty", () =>
      Effect.gen(function*() {
        const { open } = yield* adapter.fresh
        yield* withStore(open, (store) =>
          Effect.gen(function*() {
            expect(yield* store.size).toBe(0)
            expect(yield* store.readEntries(0, 0)).toEqual([])
            expect(yield* store.readHashRange(0, 0)).toEqual([])
            expect(yield* store.readHashes([])).toEqual([])
            expect(yield* store.findLeaf(hasher.leafHash(utf8("nothing")))).toEqual(Option.none())
            yield* storageError(store.readEntries(0, 1))
            yield* storageError(store.readHashes([0]))
            yield* storageError(store.readHashRange(0, 1))
            yield* storageError(store.readEntryAndHashes(0, []))
          }))
      }))

    it.scoped("appends batches and reads them back", () =>
      Effect.gen(function*() {
        const { open, lease } = yield* adapter.fresh
        const fence = yield* lease
        const model = new LogModel()
        yield* withStore(open, (store) =>
          Effect.gen(function*() {
            yield* store.append(0, model.add(entriesOf([[1, 10], [2, 0], [3, 300], [4, 1], [5, 65_535]])), fence)
            yield* store.append(5, model.add(entriesOf([[6, 7], [7, 8], [8, 9]])), fence)
            yield* store.append(8, [], fence)
            yield* expectStoreMatches(store, model)
            expect(hex(yield* store.readEntries(2, 6))).toEqual(hex(model.entries.slice(2, 6)))
            expect(hex(yield* store.readEntries(7, 8))).toEqual(hex(model.entries.slice(7, 8)))
            expect(yield* store.readEntries(8, 8)).toEqual([])
            expect(hex(yield* store.readHashRange(3, 9))).toEqual(hex(model.hashes.slice(3, 9)))
            // Leaves may come with the body their entry names: a store keeps it beside the
            // leaf or ignores it, the log is the same; a read then tells the body's presence
            // (none is stored here) or leaves the caller to ask the body store.
            const named = [{ digest: new Uint8Array(32).fill(7), rides: true }, { digest: new Uint8Array(32).fill(8), rides: false }, undefined]
            const leaves = model.add(entriesOf([[11, 40], [12, 50], [13, 60]]))
            yield* store.append(8, leaves.map((leaf, i) => ({ ...leaf, body: named[i] })), fence)
            yield* expectStoreMatches(store, model)
            for (const [i, body] of named.entries()) {
              const read = (yield* store.readEntryAndHashes(8 + i, [])).body
              if (read !== undefined) expect(read).toEqual({ stored: false, bytes: undefined })
              if (body === undefined) expect(read).toBeUndefined()
            }
          }))
      }))

    it.scoped("refuses an append that does not start at the size, and changes nothing", () =>
      Effect.gen(function*() {
        const { open, lease } = yield* adapter.fresh
        const fence = yield* lease
        const model = new LogModel()
        yield* withStore(open, (store) =>
          Effect.gen(function*() {
            yield* storageError(store.append(1, model.peek(entriesOf([[1, 5]])), fence))
            yield* store.append(0, model.add(entriesOf([[1, 5], [2, 5], [3, 5]])), fence)
            const next = entriesOf([[4, 5]])
            yield* storageError(store.append(2, model.peek(next), fence))
            yield* storageError(store.append(4, model.peek(next), fence))
            yield* storageError(store.append(-1, model.peek(next), fence))
            expect(yield* store.size).toBe(3)
            yield* store.append(3, model.add(next), fence)
            yield* expectStoreMatches(store, model)
          }))
      }))

    it.scoped("refuses malformed batches and changes nothing", () =>
      Effect.gen(function*() {
        const { open, lease } = yield* adapter.fresh
        const fence = yield* lease
        const model = new LogModel()
        yield* withStore(open, (store) =>
          Effect.gen(function*() {
            yield* store.append(0, model.add(entriesOf([[1, 3]])), fence)
            const [good] = model.peek(entriesOf([[2, 4]]))
            // Leaf 1 stores its leaf hash and the root of leaves 0..1.
            expect(good!.hashes).toHaveLength(2)
            const otherHash = hasher.leafHash(utf8("other"))
            yield* storageError(store.append(1, [{ bytes: good!.bytes, hashes: [otherHash, good!.hashes[1]!] }], fence))
            yield* storageError(store.append(1, [{ bytes: good!.bytes, hashes: [good!.hashes[0]!] }], fence))
            yield* storageError(store.append(1, [{ bytes: good!.bytes, hashes: [...good!.hashes, otherHash] }], fence))
            yield* storageError(store.append(1, [{ bytes: good!.bytes, hashes: [good!.hashes[0]!, new Uint8Array(31)] }], fence))
            const tooLong = new Uint8Array(65_536)
            yield* storageError(store.append(1, model.peek([tooLong]), fence))
            // A bad leaf anywhere refuses the whole batch.
            const batch = model.peek(entriesOf([[3, 3], [4, 4], [5, 5]]))
            yield* storageError(store.append(1, [batch[0]!, batch[1]!, { ...batch[2]!, hashes: [otherHash] }], fence))
            yield* expectStoreMatches(store, model)
            yield* store.append(1, model.add(entriesOf([[2, 4]])), fence)
            yield* expectStoreMatches(store, model)
          }))
      }))

    it.scoped("findLeaf answers the first index with the hash", () =>
      Effect.gen(function*() {
        const { open, lease } = yield* adapter.fresh
        const fence = yield* lease
        const model = new LogModel()
        yield* withStore(open, (store) =>
          Effect.gen(function*() {
            const same = entryBytes(9, 40)
            yield* store.append(0, model.add([entryBytes(1, 20), same, entryBytes(2, 20)]), fence)
            yield* store.append(3, model.add([same, entryBytes(3, 20)]), fence)
            expect(yield* store.findLeaf(hasher.leafHash(same))).toEqual(Option.some(1))
            expect(yield* store.findLeaf(hasher.leafHash(entryBytes(3, 20)))).toEqual(Option.some(4))
            expect(yield* store.findLeaf(hasher.leafHash(entryBytes(4, 20)))).toEqual(Option.none())
            // Same first 8 bytes as a real leaf hash, different after: not that leaf.
            const lookalike = hasher.leafHash(same).slice()
            lookalike[31] ^= 1
            expect(yield* store.findLeaf(lookalike)).toEqual(Option.none())
          }))
      }))

    it.scoped("serializes concurrent appends at the same start: one wins", () =>
      Effect.gen(function*() {
        const { open, lease } = yield* adapter.fresh
        const fence = yield* lease
        yield* withStore(open, (store) =>
          Effect.gen(function*() {
            const model = new LogModel()
            const a = model.peek(entriesOf([[1, 10], [2, 10]]))
            const b = model.peek(entriesOf([[3, 10]]))
            const results = yield* Effect.all([Effect.either(store.append(0, a, fence)), Effect.either(store.append(0, b, fence))], {
              concurrency: 2
            })
            const winners = results.filter((result) => result._tag === "Right")
            expect(winners).toHaveLength(1)
            model.add(results[0]._tag === "Right" ? entriesOf([[1, 10], [2, 10]]) : entriesOf([[3, 10]]))
            yield* expectStoreMatches(store, model)
          }))
      }))

    if (adapter.durable) {
      it.scoped("a reopened store holds the same log and keeps appending", () =>
        Effect.gen(function*() {
          const { open, lease } = yield* adapter.fresh
          const fence = yield* lease
          const model = new LogModel()
          yield* withStore(open, (store) => store.append(0, model.add(entriesOf([[1, 1], [2, 2], [3, 3], [4, 4], [5, 5]])), fence))
          yield* withStore(open, (store) =>
            Effect.gen(function*() {
              yield* expectStoreMatches(store, model)
              yield* store.append(5, model.add(entriesOf([[6, 6], [7, 7]])), fence)
            }))
          yield* withStore(open, (store) => expectStoreMatches(store, model))
        }))
    }

    it.scoped("matches a model log over random batches", () =>
      Effect.gen(function*() {
        const entry = fc.tuple(fc.nat(25), fc.nat(300))
        const step = fc.record({
          entries: fc.array(entry, { maxLength: 14 }),
          wrongStart: fc.integer({ min: -2, max: 2 }),
          reopen: fc.boolean()
        })
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), (steps) =>
              Effect.runPromise(Effect.scoped(Effect.gen(function*() {
                const { open, lease } = yield* adapter.fresh
          const fence = yield* lease
                const model = new LogModel()
                // Runs of steps share one open store; a durable store is reopened between runs.
                const runs: Array<Array<typeof steps[number]>> = [[]]
                for (const s of steps) {
                  runs[runs.length - 1]!.push(s)
                  if (s.reopen && adapter.durable) runs.push([])
                }
                for (const run of runs) {
                  yield* withStore(open, (store) =>
                    Effect.gen(function*() {
                      for (const s of run) {
                        const entries = entriesOf(s.entries)
                        if (s.wrongStart !== 0 && entries.length > 0) {
                          const refused = yield* Effect.either(store.append(model.size + s.wrongStart, model.peek(entries), fence))
                          expect(refused._tag).toBe("Left")
                        }
                        yield* store.append(model.size, model.add(entries), fence)
                        expect(yield* store.size).toBe(model.size)
                      }
                      yield* expectStoreMatches(store, model)
                    }))
                }
              })))
            ),
            { numRuns: adapter.propertyRuns ?? 30 }
          )
        )
      }))
  })
}
