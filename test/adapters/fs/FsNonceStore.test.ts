// The filesystem replay store (src/adapters/fs/FsNonceStore.ts): the NonceStore contract,
// and what it adds to the memory store: a pair accepted before a restart is refused after
// it (the journal is loaded back), expired pairs are dropped at load, and a torn last line
// or a foreign one is skipped.

import { appendFile, readFile } from "node:fs/promises"
import { join } from "node:path"
import { Context, Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { FsNonceStoreLive, parseJournal } from "../../../src/adapters/fs/FsNonceStore.js"
import { Clock } from "../../../src/ports/Clock.js"
import { NonceStore } from "../../../src/ports/NonceStore.js"
import { nonceStoreContract } from "../../ports/NonceStore.contract.js"
import { removeDir, tempDataDir } from "../../support/server.js"

nonceStoreContract("FsNonceStore", {
  fresh: Effect.acquireRelease(Effect.promise(tempDataDir), (dir) => Effect.promise(() => removeDir(dir))).pipe(
    Effect.map((dir) => FsNonceStoreLive(dir).pipe(Layer.provide(Clock.system)))
  ),
  forgottenBy: (until) => (Math.floor(until / 60) + 1) * 60,
  propertyRuns: 100
})

const KEY = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"

/** Opens the store on `dir`, runs `use`, closes it (as a process stopping). */
const withStoreOn = <A>(dir: string, use: (store: typeof NonceStore.Service) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const scope = yield* Effect.scope
    const context = yield* Layer.buildWithScope(FsNonceStoreLive(dir).pipe(Layer.provide(Clock.system)), scope)
    return yield* use(Context.get(context, NonceStore))
  })))

describe("FsNonceStore across a restart", () => {
  it("refuses after a restart a pair it accepted before, and forgets expired pairs", async () => {
    const dir = await tempDataDir()
    try {
      const now = Math.floor(Date.now() / 1000)
      expect(await withStoreOn(dir, (store) => Effect.all([
        store.remember(KEY, "n1", now + 600, now),
        store.remember(KEY, "n2", now - 10, now - 700),
        store.remember("a b", "c\nd", now + 600, now)
      ]))).toEqual([true, true, true])
      // A torn last line and a foreign one: skipped.
      await appendFile(join(dir, "nonces.journal"), "garbage\n17")
      expect(await withStoreOn(dir, (store) => Effect.all([
        store.remember(KEY, "n1", now + 600, now),
        store.remember("a b", "c\nd", now + 600, now),
        store.remember(KEY, "n2", now + 600, now),
        store.remember(KEY, "n3", now + 600, now)
      ]))).toEqual([false, false, true, true])
      // The start compacted the journal: the expired pair and the damage are gone.
      const pairs = parseJournal(await readFile(join(dir, "nonces.journal"), "utf8"), 0)
      expect(pairs.map((p) => p.key).sort()).toEqual([`${KEY.length}:${KEY} n1`, `${KEY.length}:${KEY} n2`, `${KEY.length}:${KEY} n3`, "3:a b c\nd"].sort())
    } finally {
      await removeDir(dir)
    }
  })
})
