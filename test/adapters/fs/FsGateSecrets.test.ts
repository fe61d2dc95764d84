import { readdir, stat } from "node:fs/promises"
import { join } from "node:path"
import { it } from "@effect/vitest"
import { Effect } from "effect"
import { expect } from "vitest"
import { FsGateSecretsLive } from "../../../src/adapters/fs/FsGateSecrets.js"
import { MemoryGateSecretsLive } from "../../../src/adapters/memory/MemoryGateSecrets.js"
import { GateSecrets } from "../../../src/ports/GateSecrets.js"
import { gateSecretsContract } from "../../ports/GateSecrets.contract.js"
import { tempDir } from "./tempDir.js"

gateSecretsContract("FsGateSecrets", { fresh: Effect.map(tempDir("gate-secrets"), FsGateSecretsLive), durable: true })
gateSecretsContract("MemoryGateSecrets", { fresh: Effect.succeed(MemoryGateSecretsLive), durable: false })

it.scoped("FsGateSecrets keeps one file per name, readable by the service only, and no temporary files", () =>
  Effect.gen(function*() {
    const dir = yield* tempDir("gate-secrets-files")
    yield* Effect.scoped(Effect.flatMap(GateSecrets, (s) => Effect.all([s.put("carol", 7, "scrypt$a"), s.put("carol", 7, "scrypt$b")])).pipe(
      Effect.provide(FsGateSecretsLive(dir))
    ))
    expect(yield* Effect.promise(() => readdir(dir))).toEqual(["7-carol"])
    expect((yield* Effect.promise(() => stat(join(dir, "7-carol")))).mode & 0o777).toBe(0o600)
  }))
