// FsBodyStore's log (src/adapters/fs/bodyLayout.ts) and its recovery (bodyRecovery.ts) on
// files damaged the ways a crash can damage them: torn tails, a bad digest, zeroed pages,
// garbage or missing index entries. Also what the contract suite cannot see: removals
// replayed from the trusted part of the index, deduplication on disk, refusals, the
// compaction and the move from the one-file-per-body layout.

import { describe, expect } from "vitest"
import { it } from "@effect/vitest"
import { open, readdir, readFile, rm, stat, truncate, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Context, Effect, Exit, Fiber, Layer, Option, Scope } from "effect"
import { NodeCryptoLive } from "../../../src/adapters/crypto/nodeCrypto.js"
import { compactBodyStore } from "../../../src/adapters/fs/bodyCompact.js"
import {
  INDEX_ENTRY_SIZE,
  MAX_UNSYNCED_RECORDS,
  PUT_HEADER,
  REMOVAL_RECORD_SIZE
} from "../../../src/adapters/fs/bodyLayout.js"
import { BODY_INDEX_FILE } from "../../../src/adapters/fs/bodySidecar.js"
import { toHex, utf8 } from "../../../src/domain/bytes.js"
import { BodyStore, type StoredBody } from "../../../src/ports/BodyStore.js"
import { soleProcessLease } from "../../support/leases.js"
import { body, bodies, expectPresent, openStore, recordEnd, sizeOf, withStore } from "./bodyStoreFixtures.js"
import { tempDir } from "./tempDir.js"

const overwrite = (path: string, position: number, bytes: Uint8Array) =>
  Effect.promise(async () => {
    const handle = await open(path, "r+")
    try {
      await handle.write(bytes, 0, bytes.length, position)
    } finally {
      await handle.close()
    }
  })

/** A store in a new folder holding batch a, then batch b. */
const storeWith = (a: ReadonlyArray<StoredBody>, b: ReadonlyArray<StoredBody>) =>
  Effect.gen(function*() {
    const dir = join(yield* tempDir("body-recovery"), "bodies")
    yield* withStore(dir, (store) => Effect.zipRight(store.put(a), store.put(b)))
    return dir
  })

/** After recovery the files hold exactly the first `records` records, ending at `bytes`. */
const expectFiles = (dir: string, records: number, bytes: number) =>
  Effect.gen(function*() {
    expect(yield* sizeOf(dir, "bodies")).toBe(bytes)
    expect(yield* sizeOf(dir, "index")).toBe(INDEX_ENTRY_SIZE * records)
  })

describe("FsBodyStore recovery", () => {
  it.scoped("cuts a torn tail and keeps every whole record before it", () =>
    Effect.gen(function*() {
      const a = bodies("acknowledged", 10)
      const b = bodies("torn batch", 10)
      const aEnd = recordEnd(a, a.length)
      const full = recordEnd(b, b.length, aEnd)
      // Cuts inside a header, inside a body, on a record boundary, and at the very end.
      const cuts = [aEnd, aEnd + 3, aEnd + PUT_HEADER + 1, recordEnd(b, 4, aEnd), recordEnd(b, 4, aEnd) + 20, full - 1, full]
      for (const cut of cuts) {
        const dir = yield* storeWith(a, b)
        yield* Effect.promise(() => truncate(join(dir, "bodies"), cut))
        // The index may hold any part of the torn group's entries.
        yield* Effect.promise(() => truncate(join(dir, "index"), INDEX_ENTRY_SIZE * 10 + ((cut * 7) % (INDEX_ENTRY_SIZE * 10))))
        const kept = b.filter((_, i) => recordEnd(b, i + 1, aEnd) <= cut).length
        yield* withStore(dir, (store) =>
          Effect.gen(function*() {
            yield* expectPresent(store, a, true)
            yield* expectPresent(store, b.slice(0, kept), true)
            yield* expectPresent(store, b.slice(kept), false)
          }))
        yield* expectFiles(dir, 10 + kept, recordEnd(b, kept, aEnd))
      }
    }))

  it.scoped("a record whose bytes do not match its digest ends the valid records", () =>
    Effect.gen(function*() {
      const [a, b] = [bodies("a", 5), bodies("b", 8)]
      const dir = yield* storeWith(a, b)
      const at = recordEnd(b, 3, recordEnd(a, 5)) + PUT_HEADER + 2
      yield* overwrite(join(dir, "bodies"), at, utf8("!"))
      yield* withStore(dir, (store) =>
        Effect.gen(function*() {
          yield* expectPresent(store, [...a, ...b.slice(0, 3)], true)
          yield* expectPresent(store, b.slice(3), false)
        }))
      yield* expectFiles(dir, 8, recordEnd(b, 3, recordEnd(a, 5)))
    }))

  it.scoped("a zeroed page in the tail is cut with everything after it", () =>
    Effect.gen(function*() {
      const a = bodies("a", 3)
      const b = Array.from({ length: 6 }, (_, i) => body(`page ${i} ${"y".repeat(3000)}`))
      const dir = yield* storeWith(a, b)
      yield* overwrite(join(dir, "bodies"), 8192, new Uint8Array(4096))
      const kept = b.filter((_, i) => recordEnd(b, i + 1, recordEnd(a, 3)) <= 8192).length
      yield* withStore(dir, (store) =>
        Effect.gen(function*() {
          yield* expectPresent(store, [...a, ...b.slice(0, kept)], true)
          yield* expectPresent(store, b.slice(kept), false)
        }))
      yield* expectFiles(dir, 3 + kept, recordEnd(b, kept, recordEnd(a, 3)))
    }))

  it.scoped("rebuilds a garbage index tail and a missing index from the bodies", () =>
    Effect.gen(function*() {
      const [a, b] = [bodies("a", 4), bodies("b", 6)]
      const dir = yield* storeWith(a, b)
      const original = yield* Effect.promise(() => readFile(join(dir, "index")))
      yield* overwrite(join(dir, "index"), INDEX_ENTRY_SIZE * 5 + 7, new Uint8Array(100).fill(0xab))
      yield* withStore(dir, (store) => expectPresent(store, [...a, ...b], true))
      expect(toHex(yield* Effect.promise(() => readFile(join(dir, "index"))))).toBe(toHex(original))
      yield* Effect.promise(() => rm(join(dir, "index")))
      yield* withStore(dir, (store) => expectPresent(store, [...a, ...b], true))
      expect(toHex(yield* Effect.promise(() => readFile(join(dir, "index"))))).toBe(toHex(original))
    }))

  it.scoped("a clean reopen rewrites nothing", () =>
    Effect.gen(function*() {
      const dir = yield* storeWith(bodies("a", 4), bodies("b", 4))
      const times = () => Effect.promise(() => Promise.all(["bodies", "index"].map(async (f) => (await stat(join(dir, f))).mtimeMs)))
      const before = yield* times()
      yield* withStore(dir, (store) => Effect.sync(() => expect(store.shortfallAtOpen).toBeUndefined()))
      expect(yield* times()).toEqual(before)
    }))

  it.scoped("a removal survives reopening, from the verified tail and from the trusted index", () =>
    Effect.gen(function*() {
      const dir = join(yield* tempDir("body-removal"), "bodies")
      const first = bodies("first", 1500)
      const removed = [first[0]!, first[700]!, first[1499]!]
      const fence = yield* soleProcessLease
      yield* withStore(dir, (store) =>
        Effect.gen(function*() {
          yield* store.put(first)
          // One in a batch of its own, then two in one batch: one commit each.
          yield* store.remove([removed[0]!.digest], fence)
          yield* store.remove(removed.slice(1).map((b) => b.digest), fence)
          yield* expectPresent(store, removed, false)
        }))
      // The removal records are within the last records, which recovery scans.
      yield* withStore(dir, (store) => Effect.zipRight(expectPresent(store, removed, false), expectPresent(store, first.slice(1, 700), true)))
      // Push them into the trusted part, which is loaded from the index alone.
      const second = bodies("second", 2 * MAX_UNSYNCED_RECORDS + 10)
      yield* withStore(dir, (store) => store.put(second))
      yield* withStore(dir, (store) =>
        Effect.gen(function*() {
          yield* expectPresent(store, removed, false)
          yield* expectPresent(store, [first[1]!, first[698]!, first[1498]!, second[0]!, second[2000]!], true)
          // A removed body can come back, and go again.
          yield* store.put([removed[1]!])
          yield* expectPresent(store, [removed[1]!], true)
        }))
      yield* withStore(dir, (store) => expectPresent(store, [removed[1]!], true))
      const records = first.length + removed.length + second.length + 1
      yield* expectFiles(dir, records, recordEnd(first, first.length) + 3 * REMOVAL_RECORD_SIZE + recordEnd(second, second.length) + PUT_HEADER + removed[1]!.bytes.length)
    }))

  it.scoped("a torn removal record removes nothing", () =>
    Effect.gen(function*() {
      const a = bodies("a", 3)
      const dir = join(yield* tempDir("body-torn-removal"), "bodies")
      const fence = yield* soleProcessLease
      yield* withStore(dir, (store) => Effect.zipRight(store.put(a), store.remove([a[1]!.digest], fence)))
      yield* Effect.promise(() => truncate(join(dir, "bodies"), recordEnd(a, 3) + REMOVAL_RECORD_SIZE - 1))
      yield* withStore(dir, (store) => expectPresent(store, a, true))
      yield* expectFiles(dir, 3, recordEnd(a, 3))
    }))

  it.scoped("stores a body once, within a batch, across batches and across reopening", () =>
    Effect.gen(function*() {
      const [a, b] = [body("a body"), body("b body")]
      const dir = join(yield* tempDir("body-dedupe"), "bodies")
      const size = recordEnd([a, b], 2)
      yield* withStore(dir, (store) =>
        Effect.gen(function*() {
          yield* store.put([a, a, b, a])
          yield* store.put([b, a])
          yield* Effect.all([store.put([a]), store.put([a, b]), store.put([b])], { concurrency: "unbounded" })
        }))
      yield* expectFiles(dir, 2, size)
      yield* withStore(dir, (store) => store.put([a, b]))
      yield* expectFiles(dir, 2, size)
    }))

  it.scoped("refuses a body whose bytes do not hash to its digest, writing nothing", () =>
    Effect.gen(function*() {
      const dir = join(yield* tempDir("body-refuse"), "bodies")
      yield* withStore(dir, (store) =>
        Effect.gen(function*() {
          const good = body("good")
          const error = yield* Effect.flip(store.put([good, { digest: good.digest, bytes: utf8("other bytes") }]))
          expect(error._tag).toBe("StorageError")
          yield* expectPresent(store, [good], false)
          yield* store.put([good])
          yield* expectPresent(store, [good], true)
        }))
    }))

  it.scoped("opening trusts the synced index: it reads no old body, and fails when the trusted entries it checks do not chain", () =>
    Effect.gen(function*() {
      const list = bodies("many", 2 * MAX_UNSYNCED_RECORDS + 500)
      const dir = join(yield* tempDir("body-trusted"), "bodies")
      yield* withStore(dir, (store) => store.put(list))
      // A damaged byte in an old body goes unnoticed by recovery: it never reads it.
      yield* overwrite(join(dir, "bodies"), recordEnd(list, 5) + PUT_HEADER + 3, utf8("#"))
      yield* withStore(dir, (store) => expectPresent(store, list.slice(10, 20), true))
      yield* expectFiles(dir, list.length, recordEnd(list, list.length))
      // An entry the body index has applied is not read again: the store answers from the
      // sidecar, which took it when it still chained.
      const index = yield* Effect.promise(() => readFile(join(dir, "index")))
      yield* overwrite(join(dir, "index"), INDEX_ENTRY_SIZE * 3 + 32, new Uint8Array(8).fill(1))
      yield* withStore(dir, (store) => expectPresent(store, list.slice(0, 5), true))
      // Without the sidecar every trusted entry is checked: entries that no longer chain
      // mean a damaged index, and opening fails rather than dropping bodies.
      yield* Effect.promise(() => rm(join(dir, BODY_INDEX_FILE)))
      const unchained = yield* Effect.flip(withStore(dir, () => Effect.void))
      expect(unchained._tag).toBe("StorageError")
      expect(unchained.detail).toContain("does not follow")
      yield* Effect.promise(() => writeFile(join(dir, "index"), index))
      yield* withStore(dir, (store) => Effect.sync(() => expect(store.shortfallAtOpen).toBeUndefined()))
    }))

  it.scoped("a bodies file cut short inside the synced records opens: the bodies before the cut are served, the lost ones answered", () =>
    Effect.gen(function*() {
      const list = bodies("cut", 2 * MAX_UNSYNCED_RECORDS + 500)
      const trusted = list.length - MAX_UNSYNCED_RECORDS
      const dir = join(yield* tempDir("body-cut-synced"), "bodies")
      yield* withStore(dir, (store) => store.put(list))
      // Inside record 100: records 0-99 stay whole.
      yield* Effect.promise(() => truncate(join(dir, "bodies"), recordEnd(list, 100) + 10))
      yield* withStore(dir, (store) =>
        Effect.gen(function*() {
          expect(store.shortfallAtOpen).toEqual({
            file: "bodies/bodies",
            heldBytes: recordEnd(list, 100) + 10,
            describedBytes: recordEnd(list, list.length),
            synced: list.slice(100, trusted).map((b) => b.digest),
            unsynced: list.slice(trusted).map((b) => b.digest)
          })
          yield* expectPresent(store, list.slice(0, 100), true)
          yield* expectPresent(store, list.slice(100, 110), false)
          yield* expectPresent(store, list.slice(-10), false)
          // A lost body written again is stored again.
          yield* store.put([list[150]!])
          yield* expectPresent(store, [list[150]!], true)
        }))
      yield* expectFiles(dir, 101, recordEnd(list, 100) + PUT_HEADER + list[150]!.bytes.length)
      // The cut is the files' new end: the next open finds nothing missing.
      yield* withStore(dir, (store) =>
        Effect.gen(function*() {
          expect(store.shortfallAtOpen).toBeUndefined()
          yield* expectPresent(store, [...list.slice(0, 100), list[150]!], true)
        }))
    }))

  it.scoped("a body lost inside the synced records but removed in the last records is not reported", () =>
    Effect.gen(function*() {
      const list = bodies("cut then removed", 2 * MAX_UNSYNCED_RECORDS + 500)
      const fence = yield* soleProcessLease
      const dir = join(yield* tempDir("body-cut-removed"), "bodies")
      // The removal is the last record: among the last ones, read from the index's tail.
      yield* withStore(dir, (store) => Effect.zipRight(store.put(list), store.remove([list[200]!.digest], fence)))
      const trusted = list.length + 1 - MAX_UNSYNCED_RECORDS
      yield* Effect.promise(() => truncate(join(dir, "bodies"), recordEnd(list, 100) + 10))
      yield* withStore(dir, (store) =>
        Effect.gen(function*() {
          expect(store.shortfallAtOpen).toEqual({
            file: "bodies/bodies",
            heldBytes: recordEnd(list, 100) + 10,
            describedBytes: recordEnd(list, list.length) + REMOVAL_RECORD_SIZE,
            synced: list.slice(100, trusted).filter((_, i) => i !== 100).map((b) => b.digest),
            unsynced: list.slice(trusted).map((b) => b.digest)
          })
          yield* expectPresent(store, list.slice(0, 100), true)
        }))
    }))

  it.scoped("a bodies file cut short inside the last records names them as possibly a crash's", () =>
    Effect.gen(function*() {
      const [a, b] = [bodies("before the cut", 6), bodies("after the cut", 6)]
      const fence = yield* soleProcessLease
      const dir = yield* storeWith(a, b)
      // A removal after the cut takes its body out of the loss: retention had deleted it.
      yield* withStore(dir, (store) => store.remove([b[4]!.digest], fence))
      const cut = recordEnd(b, 2, recordEnd(a, 6)) + 3
      yield* Effect.promise(() => truncate(join(dir, "bodies"), cut))
      yield* withStore(dir, (store) =>
        Effect.gen(function*() {
          expect(store.shortfallAtOpen).toEqual({
            file: "bodies/bodies",
            heldBytes: cut,
            describedBytes: recordEnd(b, 6, recordEnd(a, 6)) + REMOVAL_RECORD_SIZE,
            synced: [],
            unsynced: [b[2]!, b[3]!, b[5]!].map((x) => x.digest)
          })
          yield* expectPresent(store, [...a, ...b.slice(0, 2)], true)
          yield* expectPresent(store, b.slice(2), false)
        }))
      yield* expectFiles(dir, 8, recordEnd(b, 2, recordEnd(a, 6)))
    }))

  it.scoped("reads running alongside puts see each body whole or not at all", () =>
    Effect.gen(function*() {
      const dir = join(yield* tempDir("body-concurrent"), "bodies")
      const batches = Array.from({ length: 30 }, (_, i) => bodies(`concurrent ${i}`, 20))
      const all = batches.flat()
      yield* withStore(dir, (store) =>
        Effect.gen(function*() {
          const writer = yield* Effect.fork(Effect.forEach(batches, (batch) => store.put(batch), { concurrency: 4, discard: true }))
          // Until the writer is done, check a few bodies of every batch at each pass.
          const sample = batches.flatMap((batch) => [batch[0]!, batch[7]!, batch[19]!])
          let seen = 0
          while (seen < sample.length && Option.isNone(yield* Fiber.poll(writer))) {
            // Lets the event loop run the writer's I/O callbacks between passes.
            yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
            seen = 0
            for (const b of sample) {
              const found = yield* store.get(b.digest)
              if (Option.isSome(found)) {
                expect(toHex(found.value)).toBe(toHex(b.bytes))
                seen++
              }
            }
          }
          yield* Fiber.join(writer)
          yield* expectPresent(store, all, true)
        }))
    }))

  it.scoped("a closed store refuses writes", () =>
    Effect.gen(function*() {
      const dir = join(yield* tempDir("body-closed"), "bodies")
      const scope = yield* Scope.make()
      const store = Context.get(yield* Layer.buildWithScope(openStore(dir), scope), BodyStore)
      yield* store.put([body("before")])
      yield* Scope.close(scope, Exit.void)
      const error = yield* Effect.flip(store.put([body("after")]))
      expect(error.detail).toContain("closed")
    }))
})

describe("FsBodyStore compaction", () => {
  it.scoped("drops removed bodies and removal records, keeps the rest", () =>
    Effect.gen(function*() {
      const dir = join(yield* tempDir("body-compact"), "bodies")
      const [a, b] = [bodies("expiring ciphertext", 6), bodies("kept", 6)]
      const fence = yield* soleProcessLease
      yield* withStore(dir, (store) =>
        Effect.gen(function*() {
          yield* store.put(a)
          yield* store.put(b)
          yield* store.remove(a.slice(0, 4).map((gone) => gone.digest), fence)
          // The store refuses to be compacted while it is open.
          const busy = yield* Effect.flip(compactBodyStore(dir).pipe(Effect.provide(NodeCryptoLive)))
          expect(busy.detail).toContain("open")
        }))
      const result = yield* compactBodyStore(dir).pipe(Effect.provide(NodeCryptoLive))
      const kept = [...a.slice(4), ...b]
      expect(result).toEqual({
        bodies: 8,
        dropped: 8,
        bytesBefore: recordEnd([...a, ...b], 12) + 4 * REMOVAL_RECORD_SIZE,
        bytesAfter: recordEnd(kept, 8)
      })
      const bytes = yield* Effect.promise(() => readFile(join(dir, "bodies")))
      expect(bytes.includes("expiring ciphertext 0")).toBe(false)
      expect(bytes.includes("expiring ciphertext 4")).toBe(true)
      expect((yield* Effect.promise(() => readdir(dir))).sort()).toEqual(["bodies", "index"])
      yield* withStore(dir, (store) =>
        Effect.gen(function*() {
          yield* expectPresent(store, kept, true)
          yield* expectPresent(store, a.slice(0, 4), false)
          yield* store.put([a[0]!])
        }))
      yield* withStore(dir, (store) => expectPresent(store, [a[0]!], true))
      // Nothing to drop: nothing changes.
      const again = yield* compactBodyStore(dir).pipe(Effect.provide(NodeCryptoLive))
      expect(again.dropped).toBe(0)
    }))

  it.scoped("an open deletes what an unfinished compaction left", () =>
    Effect.gen(function*() {
      const dir = join(yield* tempDir("body-leftovers"), "bodies")
      const a = bodies("a", 3)
      yield* withStore(dir, (store) => store.put(a))
      yield* Effect.promise(() => Promise.all(["bodies.compact", "index.compact"].map((name) => writeFile(join(dir, name), "partial"))))
      yield* withStore(dir, (store) => expectPresent(store, a, true))
      expect((yield* Effect.promise(() => readdir(dir))).sort()).toEqual(["bodies", BODY_INDEX_FILE, "index"])
    }))
})
