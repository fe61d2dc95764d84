// bench/scale: the names projection at scale (issue 12). For each size it fills a fresh
// projection store with that many claimed names (realistic: word-word-number, so parts are
// shared by many names) through the store's own fold commits, then measures, A/B against
// the in-memory fold the service used before (a LogState's names and claim order, read by
// the pure directoryView):
//   - fold commits: names written per second, and disk bytes per name (state.db);
//   - reopening the store and reading its folded index (what a restart costs it);
//   - heap per name of the in-memory state (names HashMap + claim order), for comparison;
//   - p50/p99 of the directory: no q, q of 1-2 characters, q a part of 3-6 characters of a
//     random name (matches many), q a whole name (matches one), q matching nothing.
//
//   node dist/bench/scale.js [sizes, default 100000] [--pg postgres://...] [--pg-schema <name>] [--no-sqlite] [--no-memory]
//
// With --pg the same on PostgreSQL (a schema of its own, dropped at the end; with
// --pg-schema, that schema, kept, and filled only if it holds no names yet, so a change to
// the queries is measured on the same tables again without filling them again);
// --no-sqlite and --no-memory leave those out. Keep runs short: the machine is shared.

import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Chunk, Context, Effect, HashMap, Layer, Redacted, type Scope } from "effect"
import { PgProjectionStoreLive } from "../src/adapters/pg/PgProjectionStore.js"
import { PgDatabaseLive } from "../src/adapters/pg/PgStorage.js"
import { SqliteProjectionStoreLive } from "../src/adapters/sqlite/SqliteProjectionStore.js"
import { directoryPart, directoryReads, directoryView, directoryViewOfPage } from "../src/domain/views/directory.js"
import { emptyLogState, type LogState, type NameRecord } from "../src/domain/write/logState.js"
import { namesOnlyChanges, withRows } from "../src/domain/write/stateSlice.js"
import { ProjectionStore } from "../src/ports/ProjectionStore.js"

const WORDS = [
  "amber", "arctic", "bold", "brisk", "calm", "cedar", "clever", "coral", "crimson", "dawn", "deep", "dusty", "eager", "ember",
  "fancy", "fern", "gentle", "golden", "grey", "happy", "hazel", "icy", "ivory", "jade", "keen", "lively", "lunar", "maple",
  "misty", "noble", "ocean", "olive", "pale", "quick", "quiet", "rapid", "rusty", "sable", "silent", "silver", "solar", "stone",
  "swift", "tidal", "vivid", "warm", "wild", "windy", "young", "zesty"
]
const ANIMALS = [
  "ant", "bear", "bee", "bison", "cat", "crane", "crow", "deer", "dog", "dove", "eagle", "eel", "elk", "falcon", "fox", "frog",
  "gecko", "goat", "hare", "hawk", "heron", "ibis", "jay", "koala", "lark", "lion", "lynx", "mole", "moose", "mouse", "newt",
  "otter", "owl", "panda", "pike", "puma", "quail", "raven", "robin", "seal", "shrew", "sloth", "swan", "tiger", "toad", "trout",
  "viper", "wasp", "whale", "wolf", "wren", "yak", "zebra"
]

/** A deterministic pseudo-random generator (mulberry32): the same names every run. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const nameAt = (i: number): string => `${WORDS[i % WORDS.length]}-${ANIMALS[Math.floor(i / WORDS.length) % ANIMALS.length]}${Math.floor(i / (WORDS.length * ANIMALS.length))}`

/** Leaf index of the i-th claim: claims among other leaves, as in a real log. */
const claimIndex = (i: number) => 1 + 3 * i

const recordAt = (i: number): NameRecord => {
  const name = nameAt(i)
  const kid = `did:key:z6Mk${(i * 2654435761 >>> 0).toString(36).padStart(8, "0")}${name.length}${"x".repeat(32)}`
  const x25519 = `${(i * 40503 >>> 0).toString(36)}${"A".repeat(36)}`
  return {
    name, tier: "key", kid, kidIndex: claimIndex(i), x25519, x25519Index: claimIndex(i), recovery: null, claimIndex: claimIndex(i),
    events: Chunk.of({ type: "claim", index: claimIndex(i), logged: 1_795_000_000_000 + i, signer: kid, kid, x25519, recovery: null })
  }
}

const STEP = 1024
const QUERIES = 400

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!
const ms = (x: number) => x.toFixed(x < 1 ? 3 : 1)

const querySets = (size: number) => {
  const next = random(size)
  const pick = () => nameAt(Math.floor(next() * size))
  const part = (min: number, max: number) => {
    const name = pick()
    const length = min + Math.floor(next() * (max - min + 1))
    const start = Math.floor(next() * Math.max(1, name.length - length))
    return name.slice(start, start + length)
  }
  return {
    "no q": Array.from({ length: QUERIES }, () => undefined),
    "q of 1-2 chars": Array.from({ length: QUERIES }, () => part(1, 2)),
    "q part of 3-6": Array.from({ length: QUERIES }, () => part(3, 6)),
    "q whole name": Array.from({ length: QUERIES }, pick),
    "q matching none": Array.from({ length: QUERIES }, (_, i) => `qq${i}zz`)
  } as Record<string, ReadonlyArray<string | undefined>>
}

const timeQueries = <E>(run: (q: string | undefined) => Effect.Effect<unknown, E>, queries: ReadonlyArray<string | undefined>) =>
  Effect.gen(function*() {
    const times: Array<number> = []
    let slowest = { q: undefined as string | undefined, ms: 0 }
    for (const q of queries) {
      const t0 = performance.now()
      yield* run(q)
      const took = performance.now() - t0
      times.push(took)
      if (took > slowest.ms) slowest = { q, ms: took }
    }
    times.sort((a, b) => a - b)
    return `p50 ${ms(percentile(times, 0.5))} ms, p99 ${ms(percentile(times, 0.99))} ms (slowest ${ms(slowest.ms)} ms, q=${JSON.stringify(slowest.q)})`
  })

const fill = (store: typeof ProjectionStore.Service, size: number) =>
  Effect.gen(function*() {
    const t0 = performance.now()
    let folded = 0
    for (let from = 0; from < size; from += STEP) {
      const to = Math.min(size, from + STEP)
      const names = Array.from({ length: to - from }, (_, k) => recordAt(from + k))
      const upTo = claimIndex(to - 1) + 1
      yield* store.commit({ from: folded, upTo, lastLeaf: new Uint8Array(32), changes: namesOnlyChanges(names, upTo) })
      folded = upTo
    }
    return performance.now() - t0
  })

const benchStore = (label: string, size: number, layer: Layer.Layer<ProjectionStore, unknown>, bytes: () => number | undefined) =>
  Effect.gen(function*() {
    // A kept schema (--pg-schema) that already holds the names is measured as it is.
    const filled = yield* Effect.scoped(Effect.flatMap(ProjectionStore, (store) =>
      Effect.flatMap(store.folded, (folded) => folded === 0 ? fill(store, size) : Effect.succeed(undefined))).pipe(Effect.provide(layer)))
    const disk = bytes()
    if (filled === undefined) console.log(`${label} ${size} names: already filled`)
    else {
      console.log(`${label} ${size} names: fold commits ${Math.round(size / (filled / 1000))} names/s` +
        (disk === undefined ? "" : `, ${disk} bytes on disk (${(disk / size).toFixed(0)} B/name)`))
    }
    yield* Effect.scoped(Effect.gen(function*() {
      const t0 = performance.now()
      const store = Context.get(yield* Layer.build(layer), ProjectionStore)
      const folded = yield* store.folded
      console.log(`${label} ${size} names: reopen and read folded (${folded}) in ${ms(performance.now() - t0)} ms`)
      for (const [kind, queries] of Object.entries(querySets(size))) {
        // As the service's Projection.directory: the page, then its recovery keys' records.
        const figures = yield* timeQueries((q) =>
          Effect.gen(function*() {
            const page = yield* store.directory({ part: directoryPart(q), limit: 100 })
            return directoryViewOfPage({ q, limit: 100 }, page, withRows(emptyLogState, yield* store.rows(directoryReads(page))))
          }), queries)
        console.log(`${label} ${size} names: directory ${kind}: ${figures}`)
      }
    }))
  })

const benchMemory = (size: number) =>
  Effect.gen(function*() {
    globalThis.gc?.()
    const before = process.memoryUsage().heapUsed
    let names = HashMap.empty<string, NameRecord>()
    let order = Chunk.empty<string>()
    for (let i = 0; i < size; i++) {
      const record = recordAt(i)
      names = HashMap.set(names, record.name, record)
      order = Chunk.append(order, record.name)
    }
    const state: LogState = { ...emptyLogState, names, nameOrder: order }
    globalThis.gc?.()
    const heap = process.memoryUsage().heapUsed - before
    console.log(`memory ${size} names: heap ${(heap / 2 ** 20).toFixed(0)} MiB (${(heap / size).toFixed(0)} B/name)${globalThis.gc === undefined ? " (run with --expose-gc for exact figures)" : ""}`)
    for (const [kind, queries] of Object.entries(querySets(size))) {
      if (kind === "no q") continue
      const figures = yield* timeQueries((q) => Effect.sync(() => directoryView(state, { q, limit: 100 })), queries.slice(0, 100))
      console.log(`memory ${size} names: directory ${kind}: ${figures} (100 queries)`)
    }
  })

const pgSchema = (url: string, size: number, kept: string | undefined): Effect.Effect<string, unknown, Scope.Scope> => {
  const schema = kept ?? `aics_bench_scale_${size}_${process.pid}`
  const admin = (statement: string) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))
  const made = kept === undefined
    ? Effect.acquireRelease(admin(`CREATE SCHEMA ${schema}`), () => Effect.orDie(admin(`DROP SCHEMA ${schema} CASCADE`)))
    : admin(`CREATE SCHEMA IF NOT EXISTS ${schema}`)
  return Effect.as(made, (() => {
    const parsed = new URL(url)
    parsed.searchParams.set("options", `-c search_path=${schema}`)
    return parsed.toString()
  })())
}

const main = Effect.gen(function*() {
  const args = process.argv.slice(2)
  const pgAt = args.indexOf("--pg")
  const pgUrl = pgAt === -1 ? undefined : args[pgAt + 1]
  const keptAt = args.indexOf("--pg-schema")
  const keptSchema = keptAt === -1 ? undefined : args[keptAt + 1]
  if (keptSchema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(keptSchema)) throw new Error(`--pg-schema takes a plain lower-case name, not ${keptSchema}`)
  const sizes = args.filter((a, i) => /^\d+$/.test(a) && (pgAt === -1 || i !== pgAt + 1)).map(Number)
  for (const size of sizes.length === 0 ? [100_000] : sizes) {
    if (!args.includes("--no-sqlite")) {
      const dir = mkdtempSync(join(tmpdir(), "aics-bench-scale-"))
      const file = join(dir, "state.db")
      yield* benchStore("sqlite", size, SqliteProjectionStoreLive(file), () =>
        ["", "-wal"].reduce((sum, suffix) => sum + (statSync(`${file}${suffix}`, { throwIfNoEntry: false })?.size ?? 0), 0))
      rmSync(dir, { recursive: true, force: true })
    }
    if (pgUrl !== undefined) {
      yield* Effect.scoped(Effect.gen(function*() {
        const url = yield* pgSchema(pgUrl, size, keptSchema)
        const layer = PgProjectionStoreLive.pipe(Layer.provide(PgDatabaseLive(url, { maxConnections: 2 })))
        yield* benchStore("postgres", size, layer, () => undefined)
      }))
    }
    if (!args.includes("--no-memory")) yield* benchMemory(size)
  }
})

Effect.runPromise(main).catch((error) => {
  console.error(error)
  process.exit(1)
})
