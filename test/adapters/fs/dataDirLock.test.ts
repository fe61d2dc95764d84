// One service at a time on a data directory (src/adapters/fs/dataDirLock.ts): the lock
// refuses a second holder, is free again when its holder's scope closes, and end to end a
// second start on a folder in use fails at once, touching nothing (no state.db moved
// aside as "damaged"), while a SIGKILL of the holder leaves no stale lock.

import { it } from "@effect/vitest"
import { readdir } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Exit, Layer } from "effect"
import { describe, expect } from "vitest"
import { DataDirLockLive } from "../../../src/adapters/fs/dataDirLock.js"
import { removeDir, startServer, tempDataDir } from "../../support/server.js"
import { tempDir } from "./tempDir.js"

describe("the data directory's lock", () => {
  it.scoped("refuses a second holder while the first holds it, and is free once the first lets go", () =>
    Effect.gen(function*() {
      const dir = join(yield* tempDir("lock"), "not yet made")
      const first = yield* Effect.exit(Layer.buildWithScope(DataDirLockLive(dir), yield* Effect.scope))
      expect(Exit.isSuccess(first)).toBe(true)
      const second = yield* Effect.exit(Effect.scoped(Layer.build(DataDirLockLive(dir))))
      expect(Exit.isFailure(second)).toBe(true)
      if (Exit.isFailure(second)) expect(String(second.cause)).toContain("is in use by another aics process")
    }))

  it.scoped("is taken again once its holder's scope has closed", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir("lock")
      yield* Effect.scoped(Layer.build(DataDirLockLive(dir)))
      const again = yield* Effect.exit(Effect.scoped(Layer.build(DataDirLockLive(dir))))
      expect(Exit.isSuccess(again)).toBe(true)
    }))

  it("makes a second service on a folder in use fail at once, touching nothing; a SIGKILL leaves no stale lock", async () => {
    const dataDir = await tempDataDir()
    try {
      const first = await startServer({ dataDir })
      const before = (await readdir(dataDir)).sort()
      const second = await startServer({ dataDir }).then(
        async (server) => {
          await server.stop()
          return "started"
        },
        (error: Error) => error.message
      )
      expect(second).toContain("is in use by another aics process")
      expect((await readdir(dataDir)).sort()).toEqual(before)
      expect(before.some((file) => file.includes("damaged"))).toBe(false)
      expect((await fetch(`${first.baseUrl}/healthz`)).status).toBe(200)
      await first.kill()
      const third = await startServer({ dataDir })
      expect((await fetch(`${third.baseUrl}/healthz`)).status).toBe(200)
      await third.stop()
    } finally {
      await removeDir(dataDir)
    }
  }, 90_000)
})
