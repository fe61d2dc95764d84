// The filesystem adapters of contributions: the intents file and the chain ledger file,
// each through its port's contract, plus what only files can do (torn lines, a watcher
// appending while the service reads).

import { appendFile, readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { expect } from "vitest"
import { FsChainOracleLive } from "../../../src/adapters/fs/FsChainOracle.js"
import { FsContributionIntentsLive } from "../../../src/adapters/fs/FsContributionIntents.js"
import { ChainOracle } from "../../../src/ports/ChainOracle.js"
import { ContributionIntents } from "../../../src/ports/ContributionIntents.js"
import { chainOracleContract, transfer, watcherDriver } from "../../ports/ChainOracle.contract.js"
import { contributionIntentsContract, intent } from "../../ports/ContributionIntents.contract.js"
import { tempDir } from "./tempDir.js"

contributionIntentsContract("FsContributionIntents", { fresh: Effect.map(tempDir("intents"), FsContributionIntentsLive), durable: true })

chainOracleContract("FsChainOracle", {
  fresh: Effect.map(tempDir("chain"), (dir) => {
    const path = join(dir, "transfers.jsonl")
    return watcherDriver(FsChainOracleLive(path), (t) => Effect.promise(() => appendFile(path, JSON.stringify(t) + "\n")))
  })
})

it.scoped("FsContributionIntents: a torn last line is dropped at open, and the next line is written in its place", () =>
  Effect.gen(function*() {
    const dir = yield* tempDir("intents-torn")
    const layer = FsContributionIntentsLive(dir)
    yield* Effect.scoped(Effect.flatMap(ContributionIntents, (s) => s.reserve(intent("kept", { units: "1" }), 0)).pipe(Effect.provide(layer)))
    const path = join(dir, "intents.jsonl")
    const whole = yield* Effect.promise(() => readFile(path, "utf8"))
    yield* Effect.promise(() => appendFile(path, "{\"intent\":{\"intentId\":\"torn\""))
    yield* Effect.scoped(Effect.gen(function*() {
      const store = yield* ContributionIntents
      expect(Option.isSome(yield* store.get("kept"))).toBe(true)
      expect(Option.isNone(yield* store.get("torn"))).toBe(true)
      // Cut off at open: the file is its whole lines again.
      expect(yield* Effect.promise(() => readFile(path, "utf8"))).toBe(whole)
      expect(yield* store.reserve(intent("after", { units: "2" }), 0)).toBe("reserved")
    }).pipe(Effect.provide(layer)))
    yield* Effect.scoped(Effect.gen(function*() {
      const store = yield* ContributionIntents
      expect(Option.isSome(yield* store.get("after"))).toBe(true)
    }).pipe(Effect.provide(layer)))
    const lines = (yield* Effect.promise(() => readFile(path, "utf8"))).split("\n")
    expect(lines).toHaveLength(3)
    expect(lines.filter((l) => l.includes("\"after\"")).length).toBe(1)
  }))

it.scoped("FsContributionIntents: bytes a failed write left after the end never merge with the next line", () =>
  Effect.gen(function*() {
    const dir = yield* tempDir("intents-failed")
    const layer = FsContributionIntentsLive(dir)
    const path = join(dir, "intents.jsonl")
    yield* Effect.scoped(Effect.gen(function*() {
      const store = yield* ContributionIntents
      expect(yield* store.reserve(intent("first", { units: "1" }), 0)).toBe("reserved")
      // What a write cut short leaves behind while the store is open: part of a line, longer
      // than the next one. The next line is written at the committed end, over it.
      yield* Effect.promise(() => appendFile(path, `{"intent":{"intentId":"lost","name":"${"x".repeat(400)}`))
      expect(yield* store.reserve(intent("second", { units: "2" }), 0)).toBe("reserved")
      yield* store.credited("second", 9)
    }).pipe(Effect.provide(layer)))
    yield* Effect.scoped(Effect.gen(function*() {
      const store = yield* ContributionIntents
      expect(Option.map(yield* store.get("first"), (s) => s.creditIndex)).toEqual(Option.some(null))
      expect(Option.map(yield* store.get("second"), (s) => s.creditIndex)).toEqual(Option.some(9))
      expect(Option.isNone(yield* store.get("lost"))).toBe(true)
      // Reopened: the leftover bytes after the last whole line were cut off.
      expect((yield* Effect.promise(() => readFile(path, "utf8"))).endsWith("\n")).toBe(true)
    }).pipe(Effect.provide(layer)))
  }))

it.scoped("FsChainOracle: reads lines as the watcher finishes them, skips junk, rereads a replaced file", () =>
  Effect.gen(function*() {
    const dir = yield* tempDir("chain-lines")
    const path = join(dir, "transfers.jsonl")
    const oracle = yield* Effect.provide(ChainOracle, FsChainOracleLive(path))
    const line = JSON.stringify(transfer())
    yield* Effect.promise(() => writeFile(path, `not json\n{"network":"testnet"}\n${line.slice(0, 20)}`))
    expect(yield* oracle.report("testnet", "0xaaa", "addr-1")).toEqual({ _tag: "Absent" })
    yield* Effect.promise(() => appendFile(path, `${line.slice(20)}\n`))
    expect(yield* oracle.report("testnet", "0xaaa", "addr-1")).toEqual({ _tag: "Final", transfers: [transfer()] })
    // An operator replaces the file with a shorter one: it is read again from the start.
    yield* Effect.promise(() => writeFile(path, JSON.stringify(transfer({ tx: "0xc" })) + "\n"))
    expect(yield* oracle.report("testnet", "0xaaa", "addr-1")).toEqual({ _tag: "Absent" })
    expect(yield* oracle.report("testnet", "0xc", "addr-1")).toEqual({ _tag: "Final", transfers: [transfer({ tx: "0xc" })] })
  }))
