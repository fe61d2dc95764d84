// The store `aics audit` replays the log into (src/client/replayStore.ts): replayed in runs of
// any length, the leaves the sequencer wrote are each accepted, the store then holds what
// the whole state folded from them splits into (row by row, the lists, the names, the
// resident parts, the activity), and the views read from it are the domain's on the whole
// state. The store lives in a folder of its own, deleted on close.

import { mkdtemp, readdir, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { directoryFrom, nameViewFrom } from "../../src/app/identityViews.js"
import { openReplayStore } from "../../src/client/replayStore.js"
import { directoryView } from "../../src/domain/views/directory.js"
import { nameView } from "../../src/domain/views/nameView.js"
import { postsView } from "../../src/domain/views/agoraPosts.js"
import { postPayload } from "../support/agents.js"
import { GovLog, makeAgent, pollPayload } from "../support/governanceAgents.js"
import { ciphertext, claimPayload, dmPayload, ORIGIN, rotatePayload, x25519Key } from "../support/identityAgents.js"
import { storeMatches } from "../support/slicedDecisions.js"

const context = { origin: ORIGIN, sha256: nodeCrypto.sha256, ed25519: nodeCrypto.ed25519 }
const noBody = () => Promise.resolve(null)
const json = (value: unknown) => JSON.stringify(value)

/** A log of names (one with a recovery key), posts in three channels, a poll, X25519 keys, a grant and DMs, a rotation. */
const sceneLog = (): GovLog => {
  const log = new GovLog({ label: "replay store" })
  const [alice, bob, carol, rescue] = ["alice", "bob", "carol", "rescue"].map((label) => makeAgent(`replay store ${label}`))
  log.accept(alice!, "claim", claimPayload("alice", alice!))
  log.accept(bob!, "claim", claimPayload("bob", bob!))
  log.accept(carol!, "claim", claimPayload("carol", carol!, rescue))
  const x25519Index = log.accept(bob!, "key.x25519", { name: "bob", x25519: x25519Key("replay store bob") })
  const grant = log.accept(bob!, "grant", { sender: alice!.kid, use: "dm" })
  for (let i = 0; i < 30; i++) {
    const { payload, body } = postPayload(`post ${i}`, ["general", "dev", "help"][i % 3])
    log.accept([alice, bob, carol][i % 3]!, "post", payload, body)
    log.now += 1000
    if (i % 10 === 0) {
      const { payload, body } = dmPayload(bob!.kid, grant, x25519Index, ciphertext(`dm ${i}`))
      log.accept(alice!, "dm", payload, body)
    }
  }
  const { payload, body } = pollPayload("which?", ["a", "b"], Math.floor(log.now / 1000) + 3600)
  log.accept(alice!, "poll", payload, body)
  const next = makeAgent("replay store carol 2")
  log.accept(carol!, "key.rotate", rotatePayload("carol", next, carol!.kid))
  return log
}

describe("the audit's replay store", () => {
  const log = sceneLog()

  it("holds what the whole state splits into, and answers the domain's views, whatever runs the leaves come in", async () => {
    const runs = fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 20 })
    await fc.assert(fc.asyncProperty(runs, async (lengths) => {
      const store = await openReplayStore()
      try {
        for (let i = 0, from = 0; from < log.leaves.length; i++) {
          const run = log.leaves.slice(from, from + lengths[i % lengths.length]!)
          const outcomes = await store.replay(run, context, noBody)
          expect(outcomes.map((o) => o.kind)).toEqual(run.map(() => "accepted"))
          from += run.length
          expect(store.size()).toBe(from)
        }
        expect(storeMatches(store.views.store, log.state)).toEqual([])
        for (const name of ["alice", "bob", "carol", "nobody"]) {
          expect(json(await store.run(nameViewFrom(store.views.reader.sliceFor, name))), name).toBe(json(nameView(log.state, name)))
        }
        for (const q of [undefined, "a", "ca"]) {
          expect(json(await store.run(directoryFrom(store.views.store, store.views.reader.sliceFor, { q, limit: 2 })))).toBe(json(directoryView(log.state, { q, limit: 2 })))
        }
        for (const channel of [undefined, "dev"]) {
          const query = { channel, limit: 7, before: log.state.size - 3 }
          expect(json(await store.run(store.views.forum.posts(query, log.now)))).toBe(json(postsView(log.state, query, log.now)))
        }
      } finally {
        await store.close()
      }
    }), { numRuns: 8 })
  }, 120_000)

  it("stops at a leaf that does not decode, with the leaves before it committed", async () => {
    const store = await openReplayStore()
    try {
      const damaged = Uint8Array.from(log.leaves[3]!)
      damaged[0] = 0x7b ^ damaged[0]!
      const outcomes = await store.replay([...log.leaves.slice(0, 3), damaged, log.leaves[4]!], context, noBody)
      expect(outcomes.map((o) => o.kind)).toEqual(["accepted", "accepted", "accepted", "unfoldable"])
      expect(store.size()).toBe(3)
      expect(Either.isRight(await store.run(nameViewFrom(store.views.reader.sliceFor, "bob")))).toBe(true)
      expect(Either.isRight(await store.run(nameViewFrom(store.views.reader.sliceFor, "carol")))).toBe(false)
    } finally {
      await store.close()
    }
  })

  it("lives in a folder of its own under the one given, deleted on close", async () => {
    const parent = await mkdtemp(join(tmpdir(), "replay-store-test-"))
    try {
      const store = await openReplayStore(parent)
      const [folder] = await readdir(parent)
      expect(folder).toMatch(/^aics-audit-/)
      await store.replay(log.leaves.slice(0, 2), context, noBody)
      expect(await readdir(join(parent, folder!))).toContain("state.db")
      await store.close()
      expect(await readdir(parent)).toEqual([])
    } finally {
      await rm(parent, { recursive: true, force: true })
    }
  })
})
