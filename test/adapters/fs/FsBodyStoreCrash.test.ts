// FsBodyStore under SIGKILL (and simulated power loss): a child process, running the
// compiled dist/, puts batches of deterministic bodies (now and then one larger than a
// write group, with a body already stored mixed in) and removes some of them, printing a
// line before each operation and one after it returns. The test kills it at random
// moments, sometimes tears the unsynced tail of both files as a power loss may, reopens
// the store and checks that
//   - every body whose put was acknowledged is there, byte for byte, unless its removal
//     was acknowledged; every body whose removal was acknowledged is gone;
//   - a body of the operation in flight is either whole or absent;
//   - no other body appears;
// then starts the child again on the same folder.

import { afterAll, beforeAll, describe, expect } from "vitest"
import { it } from "@effect/vitest"
import { mkdtemp, rm, stat } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { Effect, Layer, Option } from "effect"
import { nodeCrypto, NodeCryptoLive } from "../../../src/adapters/crypto/nodeCrypto.js"
import { INDEX_ENTRY_SIZE, MAX_UNSYNCED_RECORDS } from "../../../src/adapters/fs/bodyLayout.js"
import { FsBodyStoreLive } from "../../../src/adapters/fs/FsBodyStore.js"
import { toHex } from "../../../src/domain/bytes.js"
import { BodyStore } from "../../../src/ports/BodyStore.js"
import { killRunningChild, runUntilKilled, tearUnsyncedTails } from "../../support/crashHarness.js"

const ROOT = resolve(import.meta.dirname, "../../..")
const KILLS = 16
/** Each run of the child numbers its bodies from round * RANGE, so runs never collide. */
const RANGE = 10_000_000

/** Body i of the test: its number, then 0 to 2999 filler bytes. Only globals: the child gets its source. */
const crashBody = (i: number): Uint8Array =>
  new TextEncoder().encode(`body ${i} ` + String.fromCharCode(97 + (i % 26)).repeat((i * 7919) % 3000))

const CHILD = `
import { Effect, Layer } from "effect"
import { statSync } from "node:fs"
const dist = ${JSON.stringify(pathToFileURL(join(ROOT, "dist")).href)}
const { nodeCrypto, NodeCryptoLive } = await import(dist + "/src/adapters/crypto/nodeCrypto.js")
const { FsBodyStoreLive } = await import(dist + "/src/adapters/fs/FsBodyStore.js")
const { BodyStore } = await import(dist + "/src/ports/BodyStore.js")
const [directory, startText] = process.argv.slice(1)
const crashBody = ${crashBody.toString()}
const stored = (i) => { const bytes = crashBody(i); return { digest: nodeCrypto.sha256(bytes), bytes } }
const sizes = () => statSync(directory + "/bodies").size + " " + statSync(directory + "/index").size
const rand = (n) => Math.floor(Math.random() * n)
const say = (line) => process.stdout.write(line + "\\n")
const program = Effect.gen(function*() {
  const store = yield* BodyStore
  let next = Number(startText)
  const live = []
  const removed = []
  for (;;) {
    const count = Math.random() < 0.05 ? ${MAX_UNSYNCED_RECORDS} + 1 + rand(300) : 1 + rand(40)
    // Now and then a body already stored, or one removed earlier, goes in again.
    const again = Math.random() < 0.3 && live.length > 0 ? live[rand(live.length)]
      : Math.random() < 0.3 && removed.length > 0 ? removed.splice(rand(removed.length), 1)[0] : -1
    say("put " + next + " " + count + " " + again)
    const batch = Array.from({ length: count }, (_, k) => stored(next + k))
    if (again >= 0) batch.splice(rand(count), 0, stored(again))
    yield* store.put(batch)
    for (let k = 0; k < count; k++) live.push(next + k)
    if (again >= 0 && !live.includes(again)) live.push(again)
    next += count
    say("ack " + sizes())
    if (Math.random() < 0.3) {
      const gone = live.splice(rand(live.length), 1)[0]
      say("remove " + gone)
      // Any fence: the store of one process takes it unchecked (src/ports/BodyStore.ts).
      yield* store.remove([stored(gone).digest], { epoch: 1 })
      removed.push(gone)
      say("ack " + sizes())
    }
  }
})
Effect.runPromise(program.pipe(Effect.provide(FsBodyStoreLive(directory).pipe(Layer.provide(NodeCryptoLive))))).catch((error) => {
  process.stderr.write("crash child failed: " + (error?.stack ?? error) + "\\n")
  process.exit(1)
})
`

/**
 * What the test knows of the store: bodies acknowledged stored, acknowledged removed, and
 * those of the operation in flight (in neither set until the operation is acknowledged).
 */
class Model {
  readonly stored = new Set<number>()
  readonly removed = new Set<number>()
  /** Bodies of the operation in flight when the child was killed: either state is right. */
  uncertain: Array<number> = []
  /** Durable lengths of bodies and index after the last acknowledgement. */
  durable: [number, number] = [0, 0]
}

/** Runs the child (on the dist/ that globalSetup built) from `start`, kills it a while after its first acknowledgement; returns the acknowledgements seen. */
const runAndKill = async (dir: string, start: number, delayMs: number, model: Model): Promise<number> => {
  let acks = 0
  let pending: { readonly kind: "put"; readonly bodies: Array<number>; readonly again: number } | { readonly kind: "remove"; readonly body: number } | undefined
  await runUntilKilled(["--input-type=module", "-e", CHILD, dir, String(start)], delayMs, (line) => {
    const [kind, a, b, c] = line.split(" ")
    if (kind === "put") {
      const first = Number(a)
      pending = { kind, bodies: Array.from({ length: Number(b) }, (_, k) => first + k), again: Number(c) }
      // A body put again while stored stays stored whatever happens.
      model.uncertain = [...pending.bodies, ...(pending.again >= 0 && !model.stored.has(pending.again) ? [pending.again] : [])]
      model.removed.delete(pending.again)
    } else if (kind === "remove") {
      pending = { kind, body: Number(a) }
      model.uncertain = [pending.body]
      model.stored.delete(pending.body)
    } else if (kind === "ack" && pending !== undefined) {
      if (pending.kind === "put") {
        for (const i of model.uncertain) {
          model.stored.add(i)
          model.removed.delete(i)
        }
      } else {
        model.stored.delete(pending.body)
        model.removed.add(pending.body)
      }
      model.uncertain = []
      model.durable = [Number(a), Number(b)]
      pending = undefined
      acks++
      return true
    }
    return false
  })
  return acks
}

/**
 * Tears what was written after the last acknowledgement as a power loss may (see
 * tearUnsyncedTails), only when at most one write group was in flight, as on a real disk;
 * returns whether it tore anything.
 */
const simulatePowerLoss = (dir: string, model: Model) =>
  Effect.promise(async () => {
    const index = (await stat(join(dir, "index"))).size
    if (index - model.durable[1] > INDEX_ENTRY_SIZE * MAX_UNSYNCED_RECORDS) return false
    return tearUnsyncedTails(dir, [{ name: "bodies", durable: model.durable[0] }, { name: "index", durable: model.durable[1] }])
  })

/** Reopens the store in this process and checks it against the model, which it then settles. */
const checkStore = (dir: string, model: Model, round: number) =>
  Effect.gen(function*() {
    const store = yield* BodyStore
    const state = (i: number) =>
      Effect.map(store.get(nodeCrypto.sha256(crashBody(i))), (found) => {
        if (Option.isSome(found) && toHex(found.value) !== toHex(crashBody(i))) expect.fail(`body ${i} is not the one put`)
        return Option.isSome(found)
      })
    for (const i of model.stored) if (!(yield* state(i))) expect.fail(`body ${i} was acknowledged stored and is missing`)
    for (const i of model.removed) if (yield* state(i)) expect.fail(`body ${i} was acknowledged removed and is there`)
    let keptInFlight = 0
    for (const i of model.uncertain) {
      const present = yield* state(i)
      ;(present ? model.stored : model.removed).add(i)
      ;(present ? model.removed : model.stored).delete(i)
      if (present) keptInFlight++
    }
    model.uncertain = []
    // Bodies never put are not there (the next numbers of this run, and of the next one).
    const highest = Math.max(round * RANGE, ...[...model.stored, ...model.removed].filter((i) => i >= round * RANGE))
    for (const i of [highest + 1, highest + 2, (round + 1) * RANGE]) expect(yield* state(i)).toBe(false)
    return keptInFlight
  }).pipe(
    Effect.provide(FsBodyStoreLive(dir).pipe(Layer.provide(NodeCryptoLive))),
    // After recovery the index holds whole entries only; its length is the new durable point.
    Effect.tap(() =>
      Effect.promise(async () => {
        const lengths = [(await stat(join(dir, "bodies"))).size, (await stat(join(dir, "index"))).size] as const
        expect(lengths[1] % INDEX_ENTRY_SIZE).toBe(0)
        model.durable = [...lengths]
      }))
  )

describe("FsBodyStore under SIGKILL", () => {
  let dir = ""
  beforeAll(async () => {
    dir = join(await mkdtemp(join(tmpdir(), "aics-body-crash-")), "bodies")
  })
  afterAll(async () => {
    await killRunningChild()
    if (dir !== "") await rm(resolve(dir, ".."), { recursive: true, force: true })
  })

  it.live("keeps every acknowledged put and removal across random kills", () =>
    Effect.gen(function*() {
      const model = new Model()
      let powerLosses = 0
      let keptInFlight = 0
      for (let round = 0; round < KILLS; round++) {
        const acks = yield* Effect.promise(() => runAndKill(dir, round * RANGE, Math.floor(Math.random() * 150), model))
        expect(acks).toBeGreaterThan(0)
        if (round % 2 === 1 && (yield* simulatePowerLoss(dir, model))) powerLosses++
        keptInFlight += yield* checkStore(dir, model, round)
      }
      console.log(`body crash test: ${KILLS} kills, ${powerLosses} torn as by a power loss, ${model.stored.size} bodies ` +
        `stored and ${model.removed.size} removed, ${keptInFlight} bodies of interrupted operations kept`)
    }), 120_000)
})
