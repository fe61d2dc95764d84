// The filesystem replay store (src/adapters/fs/FsNonceStore.ts): the NonceStore contract,
// and what it adds: a pair accepted before a restart is refused after it (the pairs are rows
// of nonces.db), expired rows are deleted as the clock passes them (the file holds the pairs
// of a signature's lifetime, not of the store's life), an earlier version's journal is moved
// into the file once, and a damaged file is moved aside for a new one.

import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { join } from "node:path"
import Database from "better-sqlite3"
import { Context, Effect, Either, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { FsNonceStoreLive, NONCES_FILE, pairKey } from "../../../src/adapters/fs/FsNonceStore.js"
import { Clock } from "../../../src/ports/Clock.js"
import { NonceStore } from "../../../src/ports/NonceStore.js"
import { nonceStoreContract } from "../../ports/NonceStore.contract.js"
import { removeDir, tempDataDir } from "../../support/server.js"

nonceStoreContract("FsNonceStore", {
  fresh: Effect.acquireRelease(Effect.promise(tempDataDir), (dir) => Effect.promise(() => removeDir(dir))).pipe(
    Effect.map((dir) => FsNonceStoreLive(dir).pipe(Layer.provide(Clock.system)))
  ),
  forgottenBy: (until) => until + 1,
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

/** The rows of the store's file, read beside it (the store closed). */
const rowsIn = (dir: string): number => {
  const db = new Database(join(dir, NONCES_FILE), { readonly: true })
  try {
    return (db.prepare("SELECT count(*) AS n FROM nonces").get() as { n: number }).n
  } finally {
    db.close()
  }
}

const withDir = async (use: (dir: string) => Promise<void>) => {
  const dir = await tempDataDir()
  try {
    await use(dir)
  } finally {
    await removeDir(dir)
  }
}

describe("FsNonceStore across a restart", () => {
  it("refuses after a restart a pair it accepted before", () =>
    withDir(async (dir) => {
      const now = Math.floor(Date.now() / 1000)
      expect(await withStoreOn(dir, (store) => Effect.all([
        store.remember(KEY, "n1", now + 600, now),
        store.remember("a b", "c\nd", now + 600, now)
      ]))).toEqual([true, true])
      expect(await withStoreOn(dir, (store) => Effect.all([
        store.remember(KEY, "n1", now + 600, now),
        store.remember("a b", "c\nd", now + 600, now),
        store.remember(KEY, "n2", now + 600, now)
      ]))).toEqual([false, false, true])
    }))

  it("deletes expired rows as the clock passes them, the unexpired kept", () =>
    withDir(async (dir) => {
      const T = 1_700_000_040
      await withStoreOn(dir, (store) => Effect.gen(function*() {
        // 2,500 pairs expiring at T + 10 and 10 that outlive them.
        for (let i = 0; i < 2_500; i++) expect(yield* store.remember(KEY, `short-${i}`, T + 10, T)).toBe(true)
        for (let i = 0; i < 10; i++) expect(yield* store.remember(KEY, `long-${i}`, T + 10_000, T)).toBe(true)
      }))
      expect(rowsIn(dir)).toBe(2_510)
      // Later, each remember may sweep a bounded number of expired rows: a few remembers
      // take them all, and the pairs still remembered stay refused.
      await withStoreOn(dir, (store) => Effect.gen(function*() {
        for (let i = 0; i < 5; i++) expect(yield* store.remember(KEY, `later-${i}`, T + 10_000, T + 100)).toBe(true)
        for (let i = 0; i < 10; i++) expect(yield* store.remember(KEY, `long-${i}`, T + 10_000, T + 100)).toBe(false)
      }))
      expect(rowsIn(dir)).toBe(15)
    }))

  it("moves an earlier version's journal into the file once, skipping expired, torn and foreign lines", () =>
    withDir(async (dir) => {
      const now = Math.floor(Date.now() / 1000)
      const line = (keyid: string, nonce: string, until: number) => `${until} ${encodeURIComponent(pairKey(keyid, nonce))}\n`
      await mkdir(dir, { recursive: true })
      await writeFile(join(dir, "nonces.journal"), line(KEY, "n1", now + 600) + line(KEY, "old", now - 10) + line("a b", "c\nd", now + 600) + "garbage\n17")
      expect(await withStoreOn(dir, (store) => Effect.all([
        store.remember(KEY, "n1", now + 600, now),
        store.remember("a b", "c\nd", now + 600, now),
        store.remember(KEY, "old", now + 600, now),
        store.remember(KEY, "n3", now + 600, now)
      ]))).toEqual([false, false, true, true])
      expect(await readdir(dir)).not.toContain("nonces.journal")
    }))

  it("moves a damaged file aside and answers from a new one", () =>
    withDir(async (dir) => {
      const now = Math.floor(Date.now() / 1000)
      await writeFile(join(dir, NONCES_FILE), "this is not a database, but long enough to be read as one ".repeat(100))
      expect(await withStoreOn(dir, (store) => store.remember(KEY, "n1", now + 600, now))).toBe(true)
      const files = await readdir(dir)
      const aside = files.find((file) => file.startsWith(`${NONCES_FILE}.damaged-`))
      expect(aside).toBeDefined()
      expect((await readFile(join(dir, aside!), "utf8")).startsWith("this is not a database")).toBe(true)
      expect(await withStoreOn(dir, (store) => store.remember(KEY, "n1", now + 600, now))).toBe(false)
    }))

  it("starts when its file cannot be opened, refuses each remember with the storage error until it can, then answers", () =>
    withDir(async (dir) => {
      const now = Math.floor(Date.now() / 1000)
      // A file where the store's folder should be: neither the folder nor the file can be made.
      const folder = join(dir, "nonces")
      await writeFile(folder, "in the way")
      await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
        const scope = yield* Effect.scope
        const context = yield* Layer.buildWithScope(FsNonceStoreLive(folder).pipe(Layer.provide(Clock.system)), scope)
        const store = Context.get(context, NonceStore)
        const refused = yield* Effect.either(store.remember(KEY, "n1", now + 600, now))
        expect(Either.isLeft(refused) && refused.left._tag).toBe("StorageError")
        expect(Either.isLeft(refused) && refused.left.detail).toContain(folder)
        yield* Effect.promise(() => rm(folder))
        expect(yield* store.remember(KEY, "n1", now + 600, now)).toBe(true)
        expect(yield* store.remember(KEY, "n1", now + 600, now)).toBe(false)
      })))
    }))
})
