// Cosignatures on the filesystem: the latest cosignature of each witness in one JSON file,
// replaced atomically (atomicFile.ts) on each record, and kept in memory for the reads that
// every /checkpoint makes. One process serves the filesystem storage (main.ts), so the
// memory copy is the truth once loaded.

import { Effect, Layer, Option, Ref } from "effect"
import { fromUtf8, utf8 } from "../../domain/bytes.js"
import { Cosignatures, type CollectedCosignature } from "../../ports/Cosignatures.js"
import { StorageError } from "../../ports/StorageError.js"
import { writeFileAtomically } from "./atomicFile.js"
import { readOptionalFile } from "./readOptional.js"

const isRecord = (value: unknown): value is CollectedCosignature => {
  const v = value as Partial<CollectedCosignature> | null
  return typeof v?.witness === "string" && typeof v.line === "string" && Number.isSafeInteger(v.size) && Number.isSafeInteger(v.timestamp)
}

export const FsCosignaturesLive = (path: string) =>
  Layer.effect(Cosignatures, Effect.gen(function*() {
    const stored = yield* readOptionalFile("read cosignatures", path)
    let initial: ReadonlyArray<CollectedCosignature> = []
    if (Option.isSome(stored)) {
      const parsed: unknown = yield* Effect.try({
        try: () => JSON.parse(fromUtf8(stored.value)),
        catch: () => new StorageError({ operation: "read cosignatures", detail: `${path} is not JSON` })
      })
      if (!Array.isArray(parsed) || !parsed.every(isRecord)) {
        return yield* new StorageError({ operation: "read cosignatures", detail: `${path} is not a list of cosignatures` })
      }
      initial = parsed
    }
    const current = yield* Ref.make(initial)
    const lock = yield* Effect.makeSemaphore(1)

    const record = (cosignature: CollectedCosignature) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const all = yield* Ref.get(current)
        const previous = all.find((c) => c.witness === cosignature.witness)
        if (previous !== undefined && previous.size > cosignature.size) return
        const next = [...all.filter((c) => c.witness !== cosignature.witness), cosignature]
        yield* writeFileAtomically(path, utf8(JSON.stringify(next) + "\n"), 0o644)
        yield* Ref.set(current, next)
      }))

    return { record, list: Ref.get(current) }
  }))
