// A recovery key's standing in the views, read from each projection store (docs/protocol.md
// 10.1 and 10.3): alice and bob name key R as their recovery key, carol names key M (which
// never signs a leaf); then R claims a name of its own. From that leaf on R rotates no name
// (not_authorized), and the views say so: alice's name view, ANS lookup and directory entry
// keep `recovery` as logged and turn `recovery_stands` false, with the leaf that bound R;
// R's key view lists alice and bob in `recovery_of`, each no longer standing, a page at a
// time; M's key view (a key that signed nothing) lists carol, standing. One process of the
// app (its sequencer, projection and state reader) over memory log, body and coordination
// stores and the projection store under test: SQLite (state.db) and PostgreSQL.

import { join } from "node:path"
import { Context, Effect, Either, Layer, Schema, type Scope } from "effect"
import { describe, expect, it } from "vitest"
import { makeTestClock } from "../../src/adapters/clock/TestClock.js"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { MemoryBodyStoreLive } from "../../src/adapters/memory/MemoryBodyStore.js"
import { MemoryCoordinationLive } from "../../src/adapters/memory/MemoryCoordination.js"
import { MemoryLogStoreLive } from "../../src/adapters/memory/MemoryLogStore.js"
import { openApiDocument } from "../../src/adapters/http/siteFacts.js"
import { AnsViewSchema, DirectorySchema, KeyViewSchema, NameViewSchema } from "../../src/adapters/http/viewSchemas.js"
import { PgProjectionStoreLive } from "../../src/adapters/pg/PgProjectionStore.js"
import { SqliteProjectionStoreLive } from "../../src/adapters/sqlite/SqliteProjectionStore.js"
import { keyViewFrom } from "../../src/app/identityViews.js"
import { Projection } from "../../src/app/Projection.js"
import { Sequencer } from "../../src/app/Sequencer.js"
import { StateReader } from "../../src/app/StateReader.js"
import type { KeyPageQuery } from "../../src/domain/views/keyView.js"
import { checkSubmission } from "../../src/domain/write/submission.js"
import type { ProjectionStore } from "../../src/ports/ProjectionStore.js"
import { openOn } from "../adapters/pg/open.js"
import { tempDir } from "../adapters/fs/tempDir.js"
import { accepted, envelopeFor, writeRequestBody, type TestAgent } from "../support/agents.js"
import { bodyServices, processBasics, seedStores, sequencing } from "../support/bodyServices.js"
import { claimPayload, makeAgent, ORIGIN, PureLog, rotatePayload } from "../support/identityAgents.js"
import { testDatabase } from "../support/pg.js"

type StoreLayer = Layer.Layer<ProjectionStore, unknown>

/** Signs a claim and submits it to the process's sequencer, as POST /v2/entries does after its checks; answers its outcome. */
const submitThrough = (process: Context.Context<Sequencer>, agent: TestAgent, type: string, payload: Record<string, unknown>) =>
  Effect.gen(function*() {
    const envelope = envelopeFor(agent, ORIGIN, type, payload)
    const submission = Either.getOrThrow(checkSubmission(writeRequestBody(envelope, null), { ...envelope, keyid: envelope.kid }, {
      origin: ORIGIN,
      sha256: nodeCrypto.sha256,
      ed25519: nodeCrypto.ed25519
    }))
    const outcome = yield* Context.get(process, Sequencer).submit(submission)
    if (outcome._tag === "Accepted") accepted(agent, envelope)
    return outcome
  })

const standingAcrossAClaim = (projectionStore: Effect.Effect<StoreLayer, unknown, Scope.Scope>) => async () => {
  const log = new PureLog({ label: "recovery standing" })
  const [alice, bob, carol, r, m, next] = ["alice", "bob", "carol", "r", "m", "next"].map((who) => makeAgent(`recovery standing ${who} ${Date.now()}`)) as [
    TestAgent, TestAgent, TestAgent, TestAgent, TestAgent, TestAgent
  ]
  const aliceClaim = log.accept(alice, "claim", claimPayload("alice", alice, r))
  const bobClaim = log.accept(bob, "claim", claimPayload("bob", bob, r))
  const carolClaim = log.accept(carol, "claim", claimPayload("carol", carol, m))
  const clock = makeTestClock(log.now)

  await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const stores = yield* Layer.build(
      Layer.mergeAll(MemoryLogStoreLive, MemoryBodyStoreLive, MemoryCoordinationLive(), yield* projectionStore).pipe(Layer.provideMerge(processBasics(clock)))
    )
    yield* Effect.provide(seedStores(log, []), stores)
    const process = yield* Layer.build(bodyServices(log).pipe(Layer.provide(Layer.succeedContext(stores))))
    yield* Effect.provide(sequencing, process)
    const projection = Context.get(process, Projection)
    const reader = Context.get(process, StateReader)
    const name = (handle: string) => Effect.map(projection.name(handle), Either.getOrThrow)
    const keyView = (kid: string, page: Partial<KeyPageQuery> = {}) =>
      Effect.map(keyViewFrom(reader, kid, { from: 0, limit: 100, ...page }), Either.getOrThrow)
    const directory = Effect.map(projection.directory({ limit: 10 }), (view) => new Map(view.names.map((entry) => [entry.name, entry])))

    // R is kept apart: it stands for alice and bob.
    expect(yield* name("alice")).toMatchObject({ recovery: r.kid, recovery_index: aliceClaim, recovery_stands: true, recovery_bound_index: null, size: aliceClaim + 1 })
    expect((yield* directory).get("alice")).toMatchObject({ recovery: r.kid, recovery_stands: true })
    // A key the log names only as a recovery key has a view: no name, no envelope, the names it may recover.
    expect(yield* keyView(r.kid)).toMatchObject({
      kid: r.kid, name: null, current: false, bound_index: null, seq: null, indices: [],
      recovery_of: [{ name: "alice", claim_index: aliceClaim, stands: true }, { name: "bob", claim_index: bobClaim, stands: true }],
      recovery_next_from: null, size: bobClaim + 1
    })

    // R claims a name of its own: from that leaf on it rotates none.
    const own = yield* submitThrough(process, r, "claim", claimPayload("rhea", r))
    if (own._tag !== "Accepted") throw new Error(`R's claim: ${own._tag}`)
    const bound = own.index
    const rotation = yield* submitThrough(process, r, "key.rotate", rotatePayload("alice", next, alice.kid))
    expect(rotation).toMatchObject({ _tag: "Refused", refusal: { code: "not_authorized" } })

    // The name views keep `recovery` as logged and say it stands no more, and since which leaf.
    for (const view of [yield* name("alice"), yield* name("@bob.identity.test")]) {
      expect(view).toMatchObject({ recovery: r.kid, recovery_stands: false, recovery_bound_index: bound, size: bound + 1 })
    }
    expect(Either.getOrThrow(yield* projection.ans("@alice"))).toMatchObject({
      handle: "@alice", recovery: r.kid, recovery_index: aliceClaim, recovery_stands: false, recovery_bound_index: bound, size: bound + 1
    })
    const entries = yield* directory
    expect([...entries.values()].map((entry) => [entry.name, entry.recovery_stands])).toEqual([["alice", false], ["bob", false], ["carol", true], ["rhea", null]])
    // carol's recovery key never acted for a name: it stands; rhea has none.
    expect(yield* name("carol")).toMatchObject({ recovery: m.kid, recovery_stands: true, recovery_bound_index: null, size: carolClaim + 1 })
    expect(yield* name("rhea")).toMatchObject({ recovery: null, recovery_index: null, recovery_stands: null, recovery_bound_index: null })

    // R's own view: bound to rhea, and the names it no longer recovers.
    expect(yield* keyView(r.kid)).toMatchObject({
      kid: r.kid, name: "rhea", current: true, bound_index: bound, seq: 0, indices: [bound],
      recovery_of: [{ name: "alice", claim_index: aliceClaim, stands: false }, { name: "bob", claim_index: bobClaim, stands: false }],
      recovery_next_from: null
    })
    // A page of recovery_of from a claim index on; past the last, empty.
    expect((yield* keyView(r.kid, { recoveryFrom: aliceClaim + 1 })).recovery_of).toEqual([{ name: "bob", claim_index: bobClaim, stands: false }])
    expect((yield* keyView(r.kid, { recoveryFrom: bound })).recovery_of).toEqual([])
    // M signed nothing: its view is the names it may recover, standing.
    expect(yield* keyView(m.kid)).toMatchObject({
      kid: m.kid, name: null, bound_index: null, head_index: null, indices: [],
      recovery_of: [{ name: "carol", claim_index: carolClaim, stands: true }], recovery_next_from: null, size: carolClaim + 1
    })
    // A key the log never saw is still unknown.
    expect(yield* keyViewFrom(reader, makeAgent("recovery standing stranger").kid, { from: 0, limit: 100 })).toEqual(Either.left("key_not_found"))

    // What the HTTP routes answer: the views encoded by their schemas (an encode drops members
    // a schema lacks), which /openapi.json describes.
    const wire = {
      name: Schema.encodeSync(NameViewSchema)({ ...(yield* name("alice")), checkpoint_note: "AA" }),
      ans: Schema.encodeSync(AnsViewSchema)(Either.getOrThrow(yield* projection.ans("alice"))),
      directory: Schema.encodeSync(DirectorySchema)(yield* projection.directory({ limit: 10 })),
      key: Schema.encodeSync(KeyViewSchema)(yield* keyView(r.kid))
    }
    expect(wire.name).toMatchObject({ recovery: r.kid, recovery_stands: false, recovery_bound_index: bound })
    expect(wire.ans).toMatchObject({ recovery: r.kid, recovery_stands: false, recovery_bound_index: bound })
    expect(wire.directory.names[0]).toMatchObject({ name: "alice", recovery: r.kid, recovery_stands: false })
    expect(wire.key).toMatchObject({ recovery_of: [{ name: "alice", stands: false }, { name: "bob", stands: false }], recovery_next_from: null })
  })))
}

describe("the HTTP description of the views", () => {
  it("/openapi.json names the new members and the key view's recovery_from", () => {
    const spec = openApiDocument() as unknown as { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } }
    const schemas = spec.components.schemas
    for (const view of ["NameView", "AnsLookup"]) {
      expect(Object.keys(schemas[view].properties), view).toEqual(expect.arrayContaining(["recovery", "recovery_index", "recovery_stands", "recovery_bound_index"]))
    }
    expect(Object.keys(schemas["Directory"].properties.names.items.properties)).toContain("recovery_stands")
    expect(Object.keys(schemas["KeyView"].properties)).toEqual(expect.arrayContaining(["recovery_of", "recovery_next_from"]))
    const parameters = spec.paths["/v2/keys/{kid}"]!["get"].parameters.map((p: { name: string }) => p.name)
    expect(parameters).toEqual(expect.arrayContaining(["from", "limit", "recovery_from"]))
  })
})

describe("a recovery key's standing in the views", () => {
  it("SQLite: the name views say it stands no more once it claimed a name, the key view lists the names", standingAcrossAClaim(
    Effect.map(tempDir("recovery-standing"), (dir): StoreLayer => SqliteProjectionStoreLive(join(dir, "state.db")))
  ))
  const db = testDatabase()
  it("PostgreSQL: the name views say it stands no more once it claimed a name, the key view lists the names", standingAcrossAClaim(
    Effect.map(db.freshSchema, (url): StoreLayer => openOn(db, PgProjectionStoreLive, url))
  ))
})
