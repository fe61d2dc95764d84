// Whether this start creates the log: settled once the log and the coordination are open,
// before any key is read or made (src/storageLayers.ts CharterStorage), so that only the
// process that will write leaf 0 makes keys, and a start that finds the log created (by an
// earlier start, or by another node while it waited) makes none.
//
// The first start of a log, step by step (docs/operations.md "What the first start fixes
// for good"), in the order that keeps every key leaf 0 names on disk before leaf 0 exists:
//   1. Read the log's size. Leaf 0 there: the log `Exists`; the keys must all be in keys/
//      (FileKeys.ts refuses a missing one), and leaf 0 is checked against them (Charter.ts).
//   2. The log empty: wait for the sequencing lease, or for leaf 0 to appear. Leaf 0 first:
//      another node `CreatedElsewhere` the log while this one waited; as 1, and this start
//      has written nothing, so its refusal can say which keys to copy and from where.
//   3. The lease held and the log still empty: this start `Creates` the log. FileKeys makes
//      each missing key (log, policy, witness; the owner's owner.key and owner.kid) durably,
//      each file fsynced and linked into place and its folder fsynced (keyFile.ts).
//   4. The charter's document goes to the body store, then leaf 0 is appended under the
//      lease's fence (Charter.ts): from this commit on, the log names those keys.
//   5. The lease is released (`release`); the sequencer takes it again (Sequencer.ts).
// A crash between 3 and 4 leaves keys that no log names yet: the next start finds the log
// empty, takes the lease and makes only what is missing, so it writes leaf 0 with the same
// keys. The other order, leaf 0 before its keys, could lose the only copy of keys a log
// already names, and no start could ever sign for that log again. A start on PostgreSQL that
// loses the lease between 3 and 4 (a session cut) fails its append with LeaseSuperseded; the
// node that took the lease writes leaf 0 with its own keys, and this node's next start is
// refused by the charter check, naming its keys/ as another log's. Those files are left:
// another node sharing this data folder may have read them as its own by then.

import { Context, Effect, ExecutionStrategy, Exit, Layer, Option, Scope, Stream } from "effect"
import { Coordination } from "../ports/Coordination.js"
import type { LeaseFence } from "../ports/LeaseFence.js"
import { LogStore } from "../ports/LogStore.js"

export type LogCreation =
  /** Leaf 0 was in the log at this start's first read. */
  | { readonly _tag: "Exists" }
  /** Another process wrote leaf 0 while this start waited for the lease: this start made nothing. */
  | { readonly _tag: "CreatedElsewhere" }
  /** This process holds the lease on the empty log: it makes the missing keys, then writes leaf 0 under `fence`. */
  | { readonly _tag: "Creates"; readonly fence: LeaseFence; readonly release: Effect.Effect<void> }

export class LogCreationStatus extends Context.Tag("aics/LogCreationStatus")<LogCreationStatus, LogCreation>() {
  static readonly layer = Layer.scoped(LogCreationStatus, Effect.gen(function*() {
    const store = yield* LogStore
    const coordination = yield* Coordination
    if ((yield* store.size) > 0) return { _tag: "Exists" } as const

    /** Completes once another process has written leaf 0. */
    const leafZeroWritten = coordination.appended.pipe(
      Stream.mapEffect(() => store.size),
      Stream.takeUntil((size) => size > 0),
      Stream.runDrain
    )
    // The lease lives in a scope of its own, closed once leaf 0 is written (`release`) or, at
    // the latest, when the service stops: the sequencer takes the lease after the charter.
    const leaseScope = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
    const release = Scope.close(leaseScope, Exit.void)
    // Several processes started at once on an empty database (docs/protocol.md section 14):
    // another one may write leaf 0 while this one waits for the lease.
    const lease = yield* Effect.race(
      Effect.asSome(Scope.extend(coordination.lease(), leaseScope)),
      Effect.as(leafZeroWritten, Option.none())
    )
    if (Option.isNone(lease) || (yield* store.size) > 0) {
      yield* release
      return { _tag: "CreatedElsewhere" } as const
    }
    return { _tag: "Creates", fence: lease.value.fence, release } as const
  }))
}
