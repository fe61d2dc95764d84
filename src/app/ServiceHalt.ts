// Stopping the whole service from within, when it cannot go on serving and a restart heals
// it: state.db found damaged while serving (SqliteProjectionStore.ts moves it aside, and the
// next start rebuilds the projection from the log, which holds every acknowledged write).
// main.ts waits on `halted` while it serves: the service's scope then closes as on SIGTERM
// (the server stops taking requests, every layer releases what it holds), the reason is
// printed as one line (startupLine.ts, "stopped on an error") and the process exits 1, so a
// supervisor starts it again. Without this layer (tests that build a store alone) nothing
// waits, and the failure stays the failing operation's.

import { Context, Deferred, Effect, Layer } from "effect"
import type { StorageError } from "../ports/StorageError.js"

export class ServiceHalt extends Context.Tag("aics/ServiceHalt")<ServiceHalt, {
  /** Stops the service for `reason`; the first reason is kept. */
  readonly halt: (reason: StorageError) => Effect.Effect<void>
  /** Fails with the reason once halt is called. */
  readonly halted: Effect.Effect<never, StorageError>
}>() {
  static readonly layer = Layer.effect(ServiceHalt, Effect.map(Deferred.make<never, StorageError>(), (stop) => ({
    halt: (reason) => Effect.asVoid(Deferred.fail(stop, reason)),
    halted: Deferred.await(stop)
  })))
}
