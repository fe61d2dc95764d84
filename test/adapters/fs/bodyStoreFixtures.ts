// What the FsBodyStore tests share: opening a store on a folder, bodies of assorted sizes,
// where their records end, and checking which of them a store answers.

import { expect } from "vitest"
import { stat } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Layer, Option } from "effect"
import { nodeCrypto, NodeCryptoLive } from "../../../src/adapters/crypto/nodeCrypto.js"
import { PUT_HEADER } from "../../../src/adapters/fs/bodyLayout.js"
import { FsBodyStoreLive } from "../../../src/adapters/fs/FsBodyStore.js"
import { toHex, utf8 } from "../../../src/domain/bytes.js"
import { BodyStore, type StoredBody } from "../../../src/ports/BodyStore.js"

export type Store = typeof BodyStore.Service

export const openStore = (dir: string) => FsBodyStoreLive(dir).pipe(Layer.provide(NodeCryptoLive))

export const withStore = <A, E>(dir: string, use: (store: Store) => Effect.Effect<A, E>) =>
  Effect.flatMap(BodyStore, use).pipe(Effect.provide(openStore(dir)))

export const body = (text: string): StoredBody => {
  const bytes = utf8(text)
  return { digest: nodeCrypto.sha256(bytes), bytes }
}

/** n bodies of assorted sizes (0 to about 900 bytes). */
export const bodies = (prefix: string, n: number): Array<StoredBody> =>
  Array.from({ length: n }, (_, i) => body(`${prefix} ${i} ` + "x".repeat((i * 97) % 900)))

export const recordEnd = (list: ReadonlyArray<StoredBody>, n: number, from = 0) =>
  list.slice(0, n).reduce((sum, b) => sum + PUT_HEADER + b.bytes.length, from)

export const sizeOf = (dir: string, name: string) => Effect.promise(async () => (await stat(join(dir, name))).size)

/** get answers each body's bytes when `present`, nothing otherwise. */
export const expectPresent = (store: Store, list: ReadonlyArray<StoredBody>, present: boolean) =>
  Effect.forEach(list, (b) =>
    Effect.map(store.get(b.digest), (found) => {
      if (present) expect(Option.map(found, toHex)).toEqual(Option.some(toHex(b.bytes)))
      else expect(Option.isNone(found)).toBe(true)
    }), { discard: true })
