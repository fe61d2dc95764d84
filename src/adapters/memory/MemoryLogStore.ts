// LogStore in memory, for fast tests of the application layer: the same contract as
// FsLogStore (test/ports/LogStore.contract.ts), the same refusals (appendCheck.ts), and no
// durability: the log lives as long as the layer. Bytes are copied in and out so that a
// caller mutating its arrays cannot change the log, as with a real store. append takes the
// lease's fence without checking it: the store is one process's, whose lease is never lost
// to another process (src/ports/LogStore.ts).

import { Effect, Layer, Option } from "effect"
import { toHex } from "../../domain/bytes.js"
import { makeTreeHasher, type Hash } from "../../domain/tlog/hasher.js"
import { storedHashCount } from "../../domain/tlog/storedHash.js"
import { Crypto } from "../../ports/Crypto.js"
import { LogStore, readEntryAndHashesInTurn, type AppendedLeaf } from "../../ports/LogStore.js"
import { StorageError } from "../../ports/StorageError.js"
import { checkAppend } from "../fs/appendCheck.js"

const outOfRange = (operation: string, detail: string) => new StorageError({ operation, detail })

const isRange = (from: number, to: number, limit: number) =>
  Number.isSafeInteger(from) && Number.isSafeInteger(to) && from >= 0 && from <= to && to <= limit

export const MemoryLogStoreLive: Layer.Layer<LogStore, never, Crypto> = Layer.effect(
  LogStore,
  Effect.gen(function*() {
    const hasher = makeTreeHasher((yield* Crypto).sha256)
    const entries: Array<Uint8Array> = []
    const hashes: Array<Hash> = []
    const firstIndex = new Map<string, number>()

    const append = (start: number, leaves: ReadonlyArray<AppendedLeaf>) =>
      Effect.suspend(() => {
        const refused = checkAppend(hasher, entries.length, start, leaves)
        if (refused !== undefined) return Effect.fail(refused)
        for (const leaf of leaves) {
          const key = toHex(leaf.hashes[0]!)
          if (!firstIndex.has(key)) firstIndex.set(key, entries.length)
          entries.push(leaf.bytes.slice())
          for (const hash of leaf.hashes) hashes.push(hash.slice())
        }
        return Effect.void
      })

    const reads = {
      readEntries: (from: number, to: number) =>
        Effect.suspend(() =>
          isRange(from, to, entries.length)
            ? Effect.succeed(entries.slice(from, to).map((entry) => entry.slice()))
            : Effect.fail(outOfRange("readEntries", `entries [${from}, ${to}) of a log of ${entries.length}`))
        ),
      readHashes: (indexes: ReadonlyArray<number>) =>
        Effect.suspend(() => {
          const total = storedHashCount(entries.length)
          const bad = indexes.find((index) => !(Number.isSafeInteger(index) && index >= 0 && index < total))
          return bad === undefined
            ? Effect.succeed(indexes.map((index) => hashes[index]!.slice()))
            : Effect.fail(outOfRange("readHashes", `hash ${bad} of ${total}`))
        })
    }

    return LogStore.of({
      size: Effect.sync(() => entries.length),
      append,
      ...reads,
      readEntryAndHashes: readEntryAndHashesInTurn(reads),
      readHashRange: (from, to) =>
        Effect.suspend(() => {
          const total = storedHashCount(entries.length)
          return isRange(from, to, total)
            ? Effect.succeed(hashes.slice(from, to).map((hash) => hash.slice()))
            : Effect.fail(outOfRange("readHashRange", `hashes [${from}, ${to}) of ${total}`))
        }),
      findLeaf: (leafHash) => Effect.sync(() => Option.fromNullable(firstIndex.get(toHex(leafHash))))
    })
  })
)
