// The TileSink contract (src/ports/TileSink.ts), as tests every adapter must pass. The suite
// only talks to the port, through a layer the adapter's test file supplies.

import { describe, expect } from "vitest"
import { it } from "@effect/vitest"
import { Effect, Option, type Layer, type Scope } from "effect"
import { toHex, utf8 } from "../../src/domain/bytes.js"
import { TileSink } from "../../src/ports/TileSink.js"

export interface TileSinkUnderTest {
  /**
   * A new, empty sink, removed when the scope closes, and the layer that opens it; building
   * the layer again reopens the same sink when `durable`.
   */
  readonly fresh: Effect.Effect<Layer.Layer<TileSink, unknown>, unknown, Scope.Scope>
  readonly durable: boolean
}

type Sink = typeof TileSink.Service

const withSink = <A, E, R>(open: Layer.Layer<TileSink, unknown>, use: (sink: Sink) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(TileSink, use).pipe(Effect.provide(open))

const storageError = <A, E extends { readonly _tag?: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) => expect(error._tag).toBe("StorageError"))

const bytesOf = (text: string) => utf8(text)

const expectTile = (sink: Sink, path: string, expected: Uint8Array | undefined) =>
  Effect.map(sink.readTile(path), (found) =>
    expect(Option.map(found, toHex)).toEqual(expected === undefined ? Option.none() : Option.some(toHex(expected))))

export const tileSinkContract = (name: string, adapter: TileSinkUnderTest): void => {
  describe(`TileSink contract: ${name}`, () => {
    it.scoped("writes tiles and reads them back; missing ones are none", () =>
      Effect.gen(function*() {
        const open = yield* adapter.fresh
        yield* withSink(open, (sink) =>
          Effect.gen(function*() {
            yield* expectTile(sink, "tile/0/000", undefined)
            expect(yield* sink.readCheckpoint).toEqual(Option.none())
            const tiles = [
              { path: "tile/0/000", bytes: new Uint8Array(8192).fill(1) },
              { path: "tile/1/000.p/3", bytes: new Uint8Array(96).fill(2) },
              { path: "tile/0/x001/234.p/5", bytes: new Uint8Array(160).fill(3) },
              { path: "tile/entries/000", bytes: bytesOf("entries") }
            ]
            yield* sink.writeTiles(tiles)
            yield* sink.writeTiles([])
            for (const tile of tiles) yield* expectTile(sink, tile.path, tile.bytes)
            yield* expectTile(sink, "tile/0/001", undefined)
            yield* expectTile(sink, "tile/0/x001/234", undefined)
          }))
      }))

    it.scoped("never rewrites a full tile: same bytes are accepted, different bytes refused", () =>
      Effect.gen(function*() {
        const open = yield* adapter.fresh
        yield* withSink(open, (sink) =>
          Effect.gen(function*() {
            const original = bytesOf("full tile")
            yield* sink.writeTiles([{ path: "tile/0/000", bytes: original }])
            yield* sink.writeTiles([{ path: "tile/0/000", bytes: original }])
            yield* storageError(sink.writeTiles([{ path: "tile/0/000", bytes: bytesOf("a fork") }]))
            yield* expectTile(sink, "tile/0/000", original)
            // A refused batch writes none of its tiles.
            yield* storageError(sink.writeTiles([
              { path: "tile/0/001", bytes: bytesOf("new") },
              { path: "tile/0/000", bytes: bytesOf("a fork") }
            ]))
            yield* expectTile(sink, "tile/0/001", undefined)
            // The same path twice in one batch with different bytes is refused too.
            yield* storageError(sink.writeTiles([
              { path: "tile/0/002", bytes: bytesOf("one") },
              { path: "tile/0/002", bytes: bytesOf("two") }
            ]))
            yield* expectTile(sink, "tile/0/002", undefined)
          }))
      }))

    it.scoped("keeps the partial tiles of every size", () =>
      Effect.gen(function*() {
        const open = yield* adapter.fresh
        yield* withSink(open, (sink) =>
          Effect.gen(function*() {
            yield* sink.writeTiles([{ path: "tile/0/000.p/1", bytes: new Uint8Array(32).fill(1) }])
            yield* sink.writeTiles([{ path: "tile/0/000.p/2", bytes: new Uint8Array(64).fill(1) }])
            yield* sink.writeTiles([{ path: "tile/0/000", bytes: new Uint8Array(8192).fill(1) }])
            yield* expectTile(sink, "tile/0/000.p/1", new Uint8Array(32).fill(1))
            yield* expectTile(sink, "tile/0/000.p/2", new Uint8Array(64).fill(1))
            yield* expectTile(sink, "tile/0/000", new Uint8Array(8192).fill(1))
          }))
      }))

    it.scoped("replaces the checkpoint", () =>
      Effect.gen(function*() {
        const open = yield* adapter.fresh
        yield* withSink(open, (sink) =>
          Effect.gen(function*() {
            yield* sink.writeCheckpoint(bytesOf("checkpoint 1\n"))
            expect(Option.map(yield* sink.readCheckpoint, toHex)).toEqual(Option.some(toHex(bytesOf("checkpoint 1\n"))))
            yield* sink.writeCheckpoint(bytesOf("checkpoint 2, longer\n"))
            expect(Option.map(yield* sink.readCheckpoint, toHex)).toEqual(Option.some(toHex(bytesOf("checkpoint 2, longer\n"))))
            yield* sink.writeCheckpoint(bytesOf("3\n"))
            expect(Option.map(yield* sink.readCheckpoint, toHex)).toEqual(Option.some(toHex(bytesOf("3\n"))))
          }))
      }))

    it.scoped("refuses paths that could leave the prefix", () =>
      Effect.gen(function*() {
        const open = yield* adapter.fresh
        yield* withSink(open, (sink) =>
          Effect.gen(function*() {
            const bad = ["", "/tile/0/000", "tile/../checkpoint", "../x", "tile//000", "tile/./000", "tile/0/", "tile\\0\\000", "tile/.hidden", "checkpoint", "other/000"]
            for (const path of bad) {
              yield* storageError(sink.writeTiles([{ path, bytes: bytesOf("x") }]))
              yield* storageError(sink.readTile(path))
            }
            expect(yield* sink.readCheckpoint).toEqual(Option.none())
          }))
      }))

    if (adapter.durable) {
      it.scoped("a reopened sink has the same tiles and checkpoint", () =>
        Effect.gen(function*() {
          const open = yield* adapter.fresh
          yield* withSink(open, (sink) =>
            Effect.gen(function*() {
              yield* sink.writeTiles([{ path: "tile/0/000", bytes: bytesOf("full") }, { path: "tile/0/001.p/7", bytes: bytesOf("part") }])
              yield* sink.writeCheckpoint(bytesOf("cp\n"))
            }))
          yield* withSink(open, (sink) =>
            Effect.gen(function*() {
              yield* expectTile(sink, "tile/0/000", bytesOf("full"))
              yield* expectTile(sink, "tile/0/001.p/7", bytesOf("part"))
              expect(Option.map(yield* sink.readCheckpoint, toHex)).toEqual(Option.some(toHex(bytesOf("cp\n"))))
              yield* storageError(sink.writeTiles([{ path: "tile/0/000", bytes: bytesOf("fork after reopen") }]))
            }))
        }))
    }
  })
}
