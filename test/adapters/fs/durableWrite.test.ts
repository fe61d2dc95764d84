// The durable batch writer on its own thread (src/adapters/fs/durableWrite.ts): whole files
// or none, immutable files never changed, failures as StorageErrors with nothing left behind.

import { readdir, readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { makeDurableWriter } from "../../../src/adapters/fs/durableWrite.js"
import { tempDir } from "./tempDir.js"

const bytes = (text: string) => new TextEncoder().encode(text)
const text = (path: string) => Effect.promise(() => readFile(path, "utf8"))
/** Every name under the folder, recursively (temporary files start with "."). */
const namesUnder = (folder: string) => Effect.promise(() => readdir(folder, { recursive: true }))

describe("makeDurableWriter", () => {
  it.scoped("writes a batch into new nested folders and leaves no temporary file", () =>
    Effect.gen(function*() {
      const root = join(yield* tempDir("durable"), "root")
      const writer = yield* makeDurableWriter(root)
      yield* writer.write([
        { path: join(root, "a", "b", "one"), bytes: bytes("1") },
        { path: join(root, "a", "two"), bytes: bytes("2") },
        { path: join(root, "three"), bytes: new Uint8Array(0) }
      ])
      expect(yield* text(join(root, "a", "b", "one"))).toBe("1")
      expect(yield* text(join(root, "a", "two"))).toBe("2")
      expect(yield* text(join(root, "three"))).toBe("")
      // A rewrite replaces a mutable file whole.
      yield* writer.write([{ path: join(root, "a", "two"), bytes: bytes("2 again") }])
      expect(yield* text(join(root, "a", "two"))).toBe("2 again")
      expect((yield* namesUnder(root)).filter((name) => name.split("/").some((part) => part.startsWith(".")))).toEqual([])
    }))

  it.scoped("skips an immutable file with the same bytes and refuses different ones, writing nothing of that batch", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("durable")
      const writer = yield* makeDurableWriter(root)
      const full = join(root, "tile", "0", "000")
      yield* writer.write([{ path: full, bytes: bytes("full"), immutable: true }])
      yield* writer.write([{ path: full, bytes: bytes("full"), immutable: true }, { path: join(root, "other"), bytes: bytes("x") }])
      expect(yield* text(join(root, "other"))).toBe("x")
      const refused = yield* Effect.exit(writer.write([
        { path: join(root, "other"), bytes: bytes("y") },
        { path: full, bytes: bytes("fork"), immutable: true }
      ]))
      expect(Exit.isFailure(refused)).toBe(true)
      expect(String(Exit.isFailure(refused) ? refused.cause : "")).toMatch(/refusing to fork/)
      expect(yield* text(full)).toBe("full")
      expect(yield* text(join(root, "other"))).toBe("x")
    }))

  it.scoped("answers a StorageError when a folder cannot be made, and goes on working", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("durable")
      const writer = yield* makeDurableWriter(root)
      yield* Effect.promise(() => writeFile(join(root, "plain"), "a file, not a folder"))
      const failed = yield* Effect.flip(writer.write([{ path: join(root, "plain", "inside"), bytes: bytes("z") }]))
      expect(failed._tag).toBe("StorageError")
      expect(failed.operation).toBe("mkdir")
      yield* writer.write([{ path: join(root, "fine"), bytes: bytes("ok") }])
      expect(yield* text(join(root, "fine"))).toBe("ok")
      expect((yield* namesUnder(root)).filter((name) => name.startsWith("."))).toEqual([])
    }))
})
