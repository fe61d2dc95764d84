// Contribution intents (docs/spec/service.md "Contribution intent": "never a leaf"), kept off the log
// so that a restart does not forget them. Records are the domain's ContributionIntent
// (src/domain/sup/contributions.ts); the app applies the rules, the store keeps them.
//
// Contract (test/ports/ContributionIntents.contract.ts): `reserve` adds an intent durably
// before it answers "reserved"; it answers "taken" (adding nothing) when the id is taken or
// another intent of the same network with the same units can still receive a transfer at
// `now` (domain/sup/contributions.ts receivesTransfers: so a transfer matches one intent),
// and "too_many" when MAX_OPEN_INTENTS intents of the same name and network can. Checks and
// adding are one atomic step. `get` finds an intent by id with the leaf that credited it
// (null until `credited`); `credited` records that leaf durably. A durable adapter keeps
// everything across reopens.

import type { Effect, Option } from "effect"
import { Context } from "effect"
import type { ContributionIntent } from "../domain/sup/contributions.js"
import type { StorageError } from "./StorageError.js"

export interface StoredIntent {
  readonly intent: ContributionIntent
  /** The sup.credit leaf that credited the intent, or null. */
  readonly creditIndex: number | null
}

export type Reservation = "reserved" | "taken" | "too_many"

export class ContributionIntents extends Context.Tag("aics/ContributionIntents")<ContributionIntents, {
  readonly reserve: (intent: ContributionIntent, now: number) => Effect.Effect<Reservation, StorageError>
  readonly get: (intentId: string) => Effect.Effect<Option.Option<StoredIntent>, StorageError>
  readonly credited: (intentId: string, index: number) => Effect.Effect<void, StorageError>
}>() {}
