// PgBodyStore: the contract, and what only a database shared by several nodes shows: big
// batches, and removes fenced by the sequencing lease (leaseEpoch.ts; docs/operations.md,
// "Retention"). A remove under a fence that a later lease superseded deletes nothing; a
// remove in progress holds the next holder's raise of the epoch until it commits, so that
// holder's puts come after it. The fences come from PgCoordination's leases, as in service.

import { it } from "@effect/vitest"
import { Context, Effect, Layer, Option, Scope } from "effect"
import { describe, expect } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { PgBodyStoreLive } from "../../../src/adapters/pg/PgBodyStore.js"
import { equal, utf8 } from "../../../src/domain/bytes.js"
import { BodyStore } from "../../../src/ports/BodyStore.js"
import { Coordination } from "../../../src/ports/Coordination.js"
import { bodyStoreContract } from "../../ports/BodyStore.contract.js"
import { leaseFenceOf } from "../../support/leases.js"
import { testDatabase } from "../../support/pg.js"
import { holdBodyRow, nextLeaseAfterWrite, sessionOn } from "../../support/pgSessions.js"
import { coordinationOn, openOn, twoNodesOn } from "./open.js"

const db = testDatabase()
const open = (url: string) => openOn(db, PgBodyStoreLive, url)

bodyStoreContract("PgBodyStore", {
  fresh: Effect.map(db.freshSchema, (url) => ({ open: open(url), lease: leaseFenceOf(coordinationOn(db, url)) })),
  durable: true
})

const body = (bytes: Uint8Array) => ({ digest: nodeCrypto.sha256(bytes), bytes })

describe("PgBodyStore on PostgreSQL", () => {
  it.scoped("puts a batch larger than one statement, and large bodies, in one put", () =>
    Effect.gen(function*() {
      const store = Context.get(yield* Layer.build(open(yield* db.freshSchema)), BodyStore)
      const small = Array.from({ length: 2_500 }, (_, i) => body(utf8(`body ${i}`)))
      const large = Array.from({ length: 3 }, (_, i) => body(new Uint8Array(5 * 1024 * 1024).fill(i + 1)))
      yield* store.put([...small, ...large, small[0]!])
      for (const b of [small[0]!, small[1_234]!, small[2_499]!, ...large]) {
        const got = yield* store.get(b.digest)
        expect(Option.isSome(got) && equal(got.value, b.bytes)).toBe(true)
      }
      // Again, with one new body: the rest are already stored (ON CONFLICT DO NOTHING).
      const fresh = body(utf8("one more"))
      yield* store.put([...small, fresh])
      expect(Option.isSome(yield* store.get(fresh.digest))).toBe(true)
    }))

  it.scoped("refuses a body over the size limit", () =>
    Effect.gen(function*() {
      const store = Context.get(yield* Layer.build(open(yield* db.freshSchema)), BodyStore)
      const tooLarge = body(new Uint8Array(16 * 1024 * 1024 + 1))
      expect((yield* Effect.flip(store.put([tooLarge])))._tag).toBe("StorageError")
    }))

  it.scoped("a remove under a fence a later lease superseded deletes nothing and answers superseded", () =>
    Effect.gen(function*() {
      const url = yield* db.freshSchema
      const store = Context.get(yield* Layer.build(open(url)), BodyStore)
      const coordination = Context.get(yield* Layer.build(coordinationOn(db, url)), Coordination)
      const [expired, other] = [body(utf8("expired ciphertext")), body(utf8("other expired ciphertext"))]
      yield* store.put([expired, other])
      // A lease given up, then the next one: its successor's.
      const deposed = yield* Effect.scoped(Effect.map(coordination.lease(), (lease) => lease.fence))
      const current = (yield* coordination.lease()).fence
      expect(current.epoch).toBeGreaterThan(deposed.epoch)
      expect(yield* store.remove([expired.digest, other.digest], deposed)).toBe("superseded")
      expect([yield* store.has(expired.digest), yield* store.has(other.digest)]).toEqual([true, true])
      expect(yield* store.remove([expired.digest], current)).toBe("removed")
      expect([yield* store.has(expired.digest), yield* store.has(other.digest)]).toEqual([false, true])
    }))

  it.scopedLive.runIf(db.multiSession)("a remove in progress holds the next holder's raise of the epoch until it commits", () =>
    Effect.gen(function*() {
      const url = yield* db.freshSchema
      const admin = yield* sessionOn(url)
      // Two nodes: a pool, a body store and a coordination each.
      const [a, b] = yield* twoNodesOn(db, BodyStore, PgBodyStoreLive, url)
      const expired = body(utf8("ciphertext that node A deletes"))
      yield* a.store.put([expired])
      const leaseOfA = yield* Scope.make()
      const fenceOfA = (yield* Scope.extend(a.coordination.lease(), leaseOfA)).fence

      // A's remove takes the epoch row FOR SHARE, then its DELETE waits on a row lock the
      // test holds: the remove's transaction stays open, holding the share lock. A's lease
      // ends; B takes the advisory lock, and its raise waits on A's transaction until A's
      // remove commits.
      const blocker = yield* holdBodyRow(url, expired.digest)
      const { written, next } = yield* nextLeaseAfterWrite(admin, blocker, a.store.remove([expired.digest], fenceOfA), leaseOfA,
        b.coordination.lease())
      expect(written).toBe("removed")
      const fenceOfB = next.fence
      expect(fenceOfB.epoch).toBeGreaterThan(fenceOfA.epoch)
      // B's puts come after A's delete.
      expect(yield* b.store.has(expired.digest)).toBe(false)
      yield* b.store.put([expired])
      expect(yield* a.store.has(expired.digest)).toBe(true)
      // And A, still unaware, deletes nothing from now on.
      expect(yield* a.store.remove([expired.digest], fenceOfA)).toBe("superseded")
      expect(yield* b.store.has(expired.digest)).toBe(true)
    }))
})
