// The projection store as a fold of the log (issue 12), on each store: random logs of
// claims (key and secret tier, the shared recovery key claiming a name of its own among
// them), rotations and X25519 changes, valid and not, decided by the pure sequencer
// (GovLog); the store folds them in random runs, reopened between runs as after a crash at
// any point (and once rebuilt from reset). After every run the store holds exactly the fold
// of its first `folded` leaves: each name's record equals the one the in-memory fold of
// that prefix has, and the directory (every name, and each search), each name view (its
// recovery key's standing with it) and the recovery key's view equal the in-memory views
// of the prefix.

import { it } from "@effect/vitest"
import { join } from "node:path"
import { Effect, Either, Layer, type Scope } from "effect"
import fc from "fast-check"
import { describe, expect } from "vitest"
import { NodeCryptoLive, nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { PgProjectionStoreLive } from "../../src/adapters/pg/PgProjectionStore.js"
import { SqliteProjectionStoreLive } from "../../src/adapters/sqlite/SqliteProjectionStore.js"
import { foldProjectionTo } from "../../src/app/projectionFold.js"
import { keyViewFrom } from "../../src/app/identityViews.js"
import { directoryReads, directoryView, directoryViewOfPage } from "../../src/domain/views/directory.js"
import { keyView } from "../../src/domain/views/keyView.js"
import { nameReads, nameView } from "../../src/domain/views/nameView.js"
import type { RowKey } from "../../src/domain/write/stateReads.js"
import { sliceOfResident, withRows } from "../../src/domain/write/stateSlice.js"
import { foldEntry } from "../../src/domain/write/applyEntry.js"
import { emptyLogState, type LogState } from "../../src/domain/write/logState.js"
import type { Crypto } from "../../src/ports/Crypto.js"
import { LogStore } from "../../src/ports/LogStore.js"
import { ProjectionStore } from "../../src/ports/ProjectionStore.js"
import { openOn } from "../adapters/pg/open.js"
import { tempDir } from "../adapters/fs/tempDir.js"
import { makeAgent, type TestAgent } from "../support/agents.js"
import { GovLog } from "../support/governanceAgents.js"
import { claimPayload, rotatePayload, x25519Key } from "../support/identityAgents.js"
import { testDatabase } from "../support/pg.js"
import { storeReader } from "../support/storeReader.js"

const NAMES = ["fox", "fox-two", "owl", "lynx-fox", "ox"] as const

type Act =
  | { readonly k: "claim"; readonly name: number; readonly agent: number }
  | { readonly k: "secret"; readonly name: number }
  | { readonly k: "rotate"; readonly name: number; readonly byRecovery: boolean }
  | { readonly k: "x25519"; readonly name: number; readonly agent: number }
  | { readonly k: "recoveryClaims"; readonly name: number }

const act: fc.Arbitrary<Act> = fc.oneof(
  fc.record({ k: fc.constant("claim" as const), name: fc.nat({ max: NAMES.length - 1 }), agent: fc.nat({ max: 3 }) }),
  fc.record({ k: fc.constant("secret" as const), name: fc.nat({ max: NAMES.length - 1 }) }),
  fc.record({ k: fc.constant("rotate" as const), name: fc.nat({ max: NAMES.length - 1 }), byRecovery: fc.boolean() }),
  fc.record({ k: fc.constant("x25519" as const), name: fc.nat({ max: NAMES.length - 1 }), agent: fc.nat({ max: 3 }) }),
  fc.record({ k: fc.constant("recoveryClaims" as const), name: fc.nat({ max: NAMES.length - 1 }) })
)

/** A claim, a secret claim, a rotation by the holder and an x25519 key: each is accepted. */
const EVERY_KIND: ReadonlyArray<Act> = [
  { k: "claim", name: 0, agent: 0 },
  { k: "secret", name: 1 },
  { k: "rotate", name: 0, byRecovery: false },
  { k: "x25519", name: 0, agent: 0 }
]

/** Claims naming the recovery key, then the recovery key claiming a name of its own: it stands no more. */
const RECOVERY_LAPSES: ReadonlyArray<Act> = [
  { k: "claim", name: 0, agent: 0 },
  { k: "claim", name: 2, agent: 1 },
  { k: "recoveryClaims", name: 3 },
  { k: "claim", name: 4, agent: 2 }
]

let runs = 0
/** Accepted leaves of each act over all runs: the property must exercise every kind. */
const accepted = { claim: 0, secret: 0, rotate: 0, x25519: 0, recoveryClaims: 0 }

/** A log of the acts, as the sequencer decides them (refused acts leave no leaf), and the recovery key its claims name. */
const logOf = (acts: ReadonlyArray<Act>): { readonly log: GovLog; readonly recovery: TestAgent } => {
  const label = `projection fold ${++runs}`
  const log = new GovLog({ label })
  const agents = [0, 1, 2, 3].map((i) => makeAgent(`${label} agent ${i}`))
  const recovery = makeAgent(`${label} recovery`)
  const current = new Map<string, TestAgent>()
  let fresh = 0
  for (const a of acts) {
    const name = NAMES[a.name]!
    switch (a.k) {
      case "claim": {
        const agent = agents[a.agent]!
        if (log.submit(agent, "claim", claimPayload(name, agent, recovery)).refused === undefined) {
          current.set(name, agent)
          accepted.claim++
        }
        break
      }
      case "secret":
        // A secret-tier claim, signed by the policy key (docs/protocol.md 17.5).
        if (log.policyOp("claim", { name, as: name }).refused === undefined) accepted.secret++
        break
      case "rotate": {
        const holder = current.get(name)
        if (holder === undefined) break
        const next = makeAgent(`${label} rotated ${fresh++}`)
        if (log.submit(a.byRecovery ? recovery : holder, "key.rotate", rotatePayload(name, next, holder.kid)).refused === undefined) {
          current.set(name, next)
          accepted.rotate++
        }
        break
      }
      case "x25519": {
        const signer = current.get(name) ?? agents[a.agent]!
        if (log.submit(signer, "key.x25519", { name, x25519: x25519Key(`${label} ${fresh++}`) }).refused === undefined) accepted.x25519++
        break
      }
      case "recoveryClaims":
        // The recovery key takes a name of its own: from this leaf on it rotates none.
        if (log.submit(recovery, "claim", claimPayload(name, recovery)).refused === undefined) {
          current.set(name, recovery)
          accepted.recoveryClaims++
        }
    }
  }
  return { log, recovery }
}

const logStoreOf = (leaves: ReadonlyArray<Uint8Array>) =>
  Layer.succeed(LogStore, { readEntries: (from: number, to: number) => Effect.succeed(leaves.slice(from, to)) } as unknown as typeof LogStore.Service)

const prefixState = (leaves: ReadonlyArray<Uint8Array>, size: number): LogState => {
  let state = emptyLogState
  for (const bytes of leaves.slice(0, size)) state = Either.getOrThrow(foldEntry(nodeCrypto.sha256, state, bytes))
  return state
}

const agreesWithPrefix = (leaves: ReadonlyArray<Uint8Array>, recovery: string) => Effect.gen(function*() {
  const store = yield* ProjectionStore
  const folded = yield* store.folded
  const state = prefixState(leaves, folded)
  const slice = yield* store.names(NAMES)
  expect(new Map([...slice].sort())).toEqual(new Map([...state.names].sort()))
  const resident = yield* store.resident
  const sliceOf = (keys: ReadonlyArray<RowKey>) => Effect.map(store.rows(keys), (rows) => withRows(sliceOfResident(resident), rows))
  for (const q of [undefined, "fox", "ox", "o", "-t", "zzz"]) {
    const query = { q, limit: 3 }
    const page = yield* store.directory({ part: q, limit: 3 })
    expect(directoryViewOfPage(query, page, yield* sliceOf(directoryReads(page)))).toEqual(directoryView(state, query))
  }
  // Each name view from the name's record and its recovery key's, as Projection reads them.
  for (const name of NAMES) {
    const reads = nameReads(name)
    const named = yield* sliceOf(reads(sliceOfResident(resident)))
    const both = yield* sliceOf([...reads(sliceOfResident(resident)), ...reads(named)])
    expect(nameView(both, name)).toEqual(nameView(state, name))
  }
  // The recovery key's view: the names that named it, and whether it still stands for them.
  const reader = storeReader(store)
  for (const recoveryFrom of [0, 3]) {
    const page = { from: 0, limit: 100, recoveryFrom }
    expect(yield* keyViewFrom(reader, recovery, page)).toEqual(keyView(state, recovery, page))
  }
})

const foldsLikeTheLog = (name: string, freshStore: Effect.Effect<Layer.Layer<ProjectionStore, unknown>, unknown, Scope.Scope>, numRuns: number) =>
  it.scoped(`${name}: the store is the fold of a prefix of the log after every run and reopen`, () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(fc.array(act, { minLength: 1, maxLength: 40 }), fc.array(fc.nat({ max: 60 }), { minLength: 1, maxLength: 4 }), fc.boolean(), (acts, stops, rebuild) =>
          Effect.runPromise(Effect.scoped(Effect.gen(function*() {
            const { log, recovery } = logOf(acts)
            const layer = yield* freshStore
            const withStore = <A, E>(effect: Effect.Effect<A, E, ProjectionStore | LogStore | Crypto>) =>
              Effect.scoped(effect.pipe(Effect.provide(Layer.mergeAll(layer, logStoreOf(log.leaves), NodeCryptoLive))))
            // Runs to random sizes, each in a store opened anew: a restart after each.
            for (const stop of [...stops, log.leaves.length]) {
              yield* withStore(Effect.gen(function*() {
                yield* foldProjectionTo(Math.min(stop, log.leaves.length))
                yield* agreesWithPrefix(log.leaves, recovery.kid)
              }))
            }
            if (rebuild) {
              yield* withStore(Effect.gen(function*() {
                yield* (yield* ProjectionStore).reset
                yield* foldProjectionTo(log.leaves.length)
                yield* agreesWithPrefix(log.leaves, recovery.kid)
              }))
            }
            yield* withStore(Effect.map(ProjectionStore, (store) => store.folded).pipe(Effect.flatten, Effect.map((folded) => expect(folded).toBe(log.leaves.length))))
          }))).then(() => true)
        ),
        // One run of every kind, whatever the random runs draw (they may draw no rotation).
        { numRuns, examples: [[EVERY_KIND, [2], false], [RECOVERY_LAPSES, [3], false]] }
      ).then(() => {
        for (const count of Object.values(accepted)) expect(count).toBeGreaterThan(0)
      })))

describe("the projection as a fold of the log", () => {
  foldsLikeTheLog("SQLite", Effect.map(tempDir("projection-fold"), (dir) => SqliteProjectionStoreLive(join(dir, "state.db"))), 30)
  const db = testDatabase()
  foldsLikeTheLog("PostgreSQL", Effect.map(db.freshSchema, (url) => openOn(db, PgProjectionStoreLive, url)), 6)
})
