import { appendFile, readFile } from "node:fs/promises"
import { join } from "node:path"
import { it } from "@effect/vitest"
import { Effect } from "effect"
import { expect } from "vitest"
import { FsReadCursorsLive } from "../../../src/adapters/fs/FsReadCursors.js"
import { MemoryReadCursorsLive } from "../../../src/adapters/memory/MemoryReadCursors.js"
import { ReadCursors } from "../../../src/ports/ReadCursors.js"
import { readCursorsContract } from "../../ports/ReadCursors.contract.js"
import { tempDir } from "./tempDir.js"

readCursorsContract("FsReadCursors", { fresh: Effect.map(tempDir("cursors"), FsReadCursorsLive), durable: true })
readCursorsContract("MemoryReadCursors", { fresh: Effect.succeed(MemoryReadCursorsLive), durable: false })

it.scoped("FsReadCursors ignores a torn last line and keeps appending after it", () =>
  Effect.gen(function*() {
    const dir = yield* tempDir("cursors-torn")
    yield* Effect.scoped(Effect.flatMap(ReadCursors, (c) => c.advance("did:key:zA", 7)).pipe(Effect.provide(FsReadCursorsLive(dir))))
    yield* Effect.promise(() => appendFile(join(dir, "read-cursors"), "did:key:zA 9"))
    yield* Effect.scoped(Effect.gen(function*() {
      const cursors = yield* ReadCursors
      expect(yield* cursors.get("did:key:zA")).toBe(9)
      yield* cursors.advance("did:key:zB", 3)
    }).pipe(Effect.provide(FsReadCursorsLive(dir))))
    const text = yield* Effect.promise(() => readFile(join(dir, "read-cursors"), "utf8"))
    expect(text.split("\n").filter((l) => l.length > 0)).toEqual(["did:key:zA 7", "did:key:zA 9", "did:key:zB 3"])
  }))
