// A temporary folder under os.tmpdir() for one test, removed when the test's scope closes.

import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"

export const tempDir = (prefix: string) =>
  Effect.acquireRelease(
    Effect.promise(() => mkdtemp(join(tmpdir(), `aics-${prefix}-`))),
    (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
  )
