// Secret verifiers on the filesystem: one file per secret-bound name, `<claim index>-<name>`
// (a name is [a-z0-9-], so it is a safe file name), holding the verifier. A put writes a
// temporary file, fsyncs it, and links it to its name: link never replaces an existing
// file, so the first verifier of a pair stays even with two writers, and a crash leaves
// either no file or the whole one. The folder is fsynced before put answers. Mode 0600:
// a verifier is not a secret, but it is what a guesser would want.

import { constants } from "node:fs"
import { link, mkdir, open, rm } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Layer, Option } from "effect"
import { fromUtf8, utf8 } from "../../domain/bytes.js"
import { GateSecrets } from "../../ports/GateSecrets.js"
import { attempt, syncFolder, writeFully } from "./fileIo.js"
import { readOptionalFile } from "./readOptional.js"

let counter = 0

export const FsGateSecretsLive = (directory: string) =>
  Layer.effect(GateSecrets, Effect.gen(function*() {
    yield* attempt("open gate secrets", directory, () => mkdir(directory, { recursive: true, mode: 0o700 }))
    const fileOf = (name: string, claimIndex: number) => join(directory, `${claimIndex}-${name}`)

    return {
      put: (name, claimIndex, verifier) =>
        attempt("put gate secret", name, async () => {
          const temp = join(directory, `.${claimIndex}-${name}.${process.pid}.${counter++}.tmp`)
          const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600)
          try {
            await writeFully(handle, utf8(verifier), 0)
            await handle.sync()
          } finally {
            await handle.close()
          }
          try {
            await link(temp, fileOf(name, claimIndex))
            return true
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
            throw error
          } finally {
            await rm(temp, { force: true })
            await syncFolder(directory)
          }
        }),
      get: (name, claimIndex) =>
        Effect.map(readOptionalFile("get gate secret", fileOf(name, claimIndex)), Option.match({
          onNone: () => undefined,
          onSome: fromUtf8
        })),
      remove: (name, claimIndex) =>
        attempt("remove gate secret", name, async () => {
          await rm(fileOf(name, claimIndex), { force: true })
          await syncFolder(directory)
        })
    }
  }))
