// The body store's maintenance command (src/compactBodies.ts), run as an operator runs it:
// the compiled command on a stopped service's data directory. What retention removed leaves
// the disk and every other body is still there; a directory another process holds, or one
// without a body store, is refused in one line and left as it was.

import { describe, expect } from "vitest"
import { it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { DataDirLockLive } from "../src/adapters/fs/dataDirLock.js"
import { soleProcessLease } from "./support/leases.js"
import { bodies, expectPresent, sizeOf, withStore } from "./adapters/fs/bodyStoreFixtures.js"
import { tempDir } from "./adapters/fs/tempDir.js"

const COMMAND = join(import.meta.dirname, "../dist/src/compactBodies.js")

/** Runs the command with `env`; its exit code and output. */
const compact = (env: Record<string, string>) =>
  Effect.promise(() => new Promise<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resolve) => {
    execFile(process.execPath, [COMMAND], { env: { PATH: process.env["PATH"] ?? "", ...env }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }))
  }))

/** A stopped service's data directory whose body store holds `n` bodies, the first `removed` of them removed (as retention does). */
const dataDirWith = (prefix: string, n: number, removed: number) =>
  Effect.gen(function*() {
    const dataDir = yield* tempDir("compactbodies")
    const dir = join(dataDir, "bodies")
    const list = bodies(prefix, n)
    const fence = yield* soleProcessLease
    yield* withStore(dir, (store) => Effect.zipRight(store.put(list), store.remove(list.slice(0, removed).map((b) => b.digest), fence)))
    return { dataDir, dir, list, before: yield* sizeOf(dir, "bodies") }
  })

describe("aics compact-bodies", () => {
  it.scoped("drops what retention removed from the disk, keeps every other body, and finds nothing more to do the second time", () =>
    Effect.gen(function*() {
      const { dataDir, dir, list, before } = yield* dataDirWith("kept-or-expired", 300, 200)

      const first = yield* compact({ AICS_DATA_DIR: dataDir })
      expect(first.stderr).toBe("")
      expect(first.code).toBe(0)
      // 200 removed bodies and a removal record of each.
      expect(first.stdout).toContain("kept 100 bodies, dropped 400 records")
      expect(yield* sizeOf(dir, "bodies")).toBeLessThan(before / 2)
      yield* withStore(dir, (store) => Effect.zipRight(expectPresent(store, list.slice(0, 200), false), expectPresent(store, list.slice(200), true)))

      const second = yield* compact({ AICS_DATA_DIR: dataDir })
      expect(second.code).toBe(0)
      expect(second.stdout).toContain("nothing to reclaim: 100 bodies")
    }))

  it.scoped("refuses a data directory a service holds, and one without a body store, touching neither", () =>
    Effect.gen(function*() {
      const { dataDir, dir, before } = yield* dataDirWith("held", 20, 1)

      // The lock a running service holds (src/storageLayers.ts takes it before any store opens).
      const refused = yield* Effect.scoped(Effect.zipRight(Layer.build(DataDirLockLive(dataDir)), compact({ AICS_DATA_DIR: dataDir })))
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain("in use by another aics process")
      expect(yield* sizeOf(dir, "bodies")).toBe(before)

      const missing = yield* compact({ AICS_DATA_DIR: join(dataDir, "typo") })
      expect(missing.code).toBe(1)
      expect(missing.stderr).toContain("holds no body store")
      expect(missing.stderr).toContain("AICS_DATA_DIR")
      expect(yield* sizeOf(dir, "bodies")).toBe(before)
    }))
})
