import { it } from "@effect/vitest"
import { Context, Effect, Layer, Option } from "effect"
import { describe, expect } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { PgBodyStoreLive } from "../../../src/adapters/pg/PgBodyStore.js"
import { equal, utf8 } from "../../../src/domain/bytes.js"
import { BodyStore } from "../../../src/ports/BodyStore.js"
import { bodyStoreContract } from "../../ports/BodyStore.contract.js"
import { testDatabase } from "../../support/pg.js"
import { openOn } from "./open.js"

const db = testDatabase()
const open = (url: string) => openOn(db, PgBodyStoreLive, url)

bodyStoreContract("PgBodyStore", { fresh: Effect.map(db.freshSchema, open), durable: true })

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
})
