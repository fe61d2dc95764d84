// Every off-leaf body the log names, by digest: which entry names it (its index, type and
// time), so a body fetched by digest gets the status of that entry (service.md "Body
// status"). Among them the DM and capsule ciphertext, in log order (which is `logged`
// order), with its size: what retention deletes and what the ciphertext budget counts. It
// follows the log: as the committed size grows it reads the new leaves.
//
// Retention (service.md item 10, "Body status"; docs/protocol.md section 9): a ciphertext
// logged at t expires at t + retention_days; a background task deletes its bytes from the
// body store once that moment has passed (the body status says `expired` from that moment
// on whether or not the bytes are gone yet). The leaf stays.
//
// Budget: the bytes of ciphertext not yet expired. When adding a new ciphertext would pass
// AICS_CIPHERTEXT_BUDGET_BYTES, writes of new ciphertext are refused and /healthz says
// DEGRADED, until retention frees room or the operator raises the budget.

import { Context, Duration, Effect, Layer, Stream, SubscriptionRef } from "effect"
import { bodyReference } from "../domain/bodyReference.js"
import type { BodyEntry } from "../domain/bodyStatus.js"
import { fromUtf8, toHex } from "../domain/bytes.js"
import { BodyStore } from "../ports/BodyStore.js"
import { Clock } from "../ports/Clock.js"
import { LogStore } from "../ports/LogStore.js"
import { Charter } from "./Charter.js"
import { LogWriter } from "./LogWriter.js"
import { ServiceConfig } from "./ServiceConfig.js"

const CIPHERTEXT_TYPES: ReadonlySet<string> = new Set(["dm", "capsule"])
const DAY_MS = 86_400_000
/** Leaves read per step while following the log. */
const READ_CHUNK = 1024

interface Ciphertext {
  readonly index: number
  readonly logged: number
  readonly digest: Uint8Array
  readonly size: number
}

const keyOf = (digest: Uint8Array): string => toHex(digest)

export class BodyLedger extends Context.Tag("aics/BodyLedger")<BodyLedger, {
  /** The first entry that names this body, if any does. */
  readonly entryNaming: (digest: Uint8Array) => Effect.Effect<BodyEntry | undefined>
  /** Bytes of ciphertext not yet expired. */
  readonly liveBytes: Effect.Effect<number>
  /** Whether `size` more bytes fit in the budget now. */
  readonly fits: (size: number) => Effect.Effect<boolean>
  /** Whether the budget is exhausted (nothing more of a useful size fits). */
  readonly exhausted: Effect.Effect<boolean>
  /** Deletes the bytes of every ciphertext expired by now; returns how many. */
  readonly expireNow: Effect.Effect<number>
}>() {
  static readonly layer = Layer.scoped(BodyLedger, Effect.gen(function*() {
    const config = yield* ServiceConfig
    const store = yield* LogStore
    const bodies = yield* BodyStore
    const writer = yield* LogWriter
    const clock = yield* Clock
    const charter = yield* Charter
    const retentionMs = charter.terms.retentionDays * DAY_MS

    const naming = new Map<string, BodyEntry>()
    // Live ciphertext, oldest first; `head` skips the expired prefix without copying.
    const entries: Array<Ciphertext> = []
    let head = 0
    let live = 0
    let followed = 0
    const lock = yield* Effect.makeSemaphore(1)

    const follow = (size: number) =>
      lock.withPermits(1)(Effect.gen(function*() {
        while (followed < size) {
          const to = Math.min(size, followed + READ_CHUNK)
          const leaves = yield* store.readEntries(followed, to)
          for (const bytes of leaves) {
            const leaf = JSON.parse(fromUtf8(bytes)) as { envelope: { type: string; payload: Record<string, unknown> }; index: number; logged: number }
            const reference = bodyReference(leaf.envelope.payload)
            if (reference === undefined) continue
            const key = keyOf(reference.digest)
            if (!naming.has(key)) naming.set(key, { index: leaf.index, type: leaf.envelope.type, logged: leaf.logged })
            if (!CIPHERTEXT_TYPES.has(leaf.envelope.type)) continue
            const size = reference.size ?? 0
            entries.push({ index: leaf.index, logged: leaf.logged, digest: reference.digest, size })
            live += size
          }
          followed = to
        }
      }))

    const expireNow = lock.withPermits(1)(Effect.gen(function*() {
      const now = yield* clock.nowMillis
      let removed = 0
      while (head < entries.length && entries[head]!.logged + retentionMs <= now) {
        const expired = entries[head]!
        yield* bodies.remove(expired.digest)
        live -= expired.size
        head++
        removed++
      }
      // Drop the expired prefix once it is most of the array.
      if (head > 1024 && head * 2 > entries.length) {
        entries.splice(0, head)
        head = 0
      }
      return removed
    }).pipe(Effect.orElseSucceed(() => 0)))

    yield* follow(yield* SubscriptionRef.get(writer.size))
    yield* Effect.forkScoped(writer.size.changes.pipe(Stream.runForEach((size) => follow(size).pipe(Effect.orElse(() => Effect.void)))))
    // Retention runs every minute; expiry itself is exact to the millisecond in body status.
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(expireNow, Effect.sleep(Duration.minutes(1)))))

    const liveBytes = Effect.sync(() => live)
    return {
      entryNaming: (digest) => Effect.sync(() => naming.get(keyOf(digest))),
      liveBytes,
      fits: (size) => Effect.sync(() => live + size <= config.ciphertextBudgetBytes),
      exhausted: Effect.sync(() => live + 1024 > config.ciphertextBudgetBytes),
      expireNow
    }
  }))
}


