// Contribution intents in memory (tests; nothing survives a restart), and the operations
// over maps that the filesystem adapter shares.

import { Effect, Layer, Option } from "effect"
import { MAX_OPEN_INTENTS, receivesTransfers, type ContributionIntent } from "../../domain/sup/contributions.js"
import { ContributionIntents, type StoredIntent } from "../../ports/ContributionIntents.js"
import type { StorageError } from "../../ports/StorageError.js"

/** One change, as the durable adapter appends it. */
export type IntentChange =
  | { readonly intent: ContributionIntent }
  | { readonly credit: { readonly intent_id: string; readonly index: number } }

/** The in-memory picture, rebuilt by replaying changes. */
export interface IntentMaps {
  readonly byId: Map<string, StoredIntent>
  /** `<network> <units>` -> the latest intent with those units (the one that expires last). */
  readonly byUnits: Map<string, string>
  /** `<network> <name>` -> its intents, those that expired pruned as `reserve` meets them. */
  readonly byOwner: Map<string, ReadonlyArray<string>>
}

export const emptyIntentMaps = (): IntentMaps => ({ byId: new Map(), byUnits: new Map(), byOwner: new Map() })

const unitsKey = (intent: ContributionIntent) => `${intent.network} ${intent.units}`
/** Only a named intent counts towards MAX_OPEN_INTENTS (one with no name has no owner). */
const ownerKey = (intent: ContributionIntent) => (intent.name === null ? undefined : `${intent.network} ${intent.name}`)

export const applyIntentChange = (maps: IntentMaps, change: IntentChange): void => {
  if ("intent" in change) {
    maps.byId.set(change.intent.intentId, { intent: change.intent, creditIndex: null })
    maps.byUnits.set(unitsKey(change.intent), change.intent.intentId)
    const owner = ownerKey(change.intent)
    if (owner !== undefined) maps.byOwner.set(owner, [...maps.byOwner.get(owner) ?? [], change.intent.intentId])
    return
  }
  const stored = maps.byId.get(change.credit.intent_id)
  if (stored !== undefined) maps.byId.set(change.credit.intent_id, { ...stored, creditIndex: change.credit.index })
}

/** The port over the maps; `persist` makes a change durable before it is applied. */
export const contributionIntentsOver = (
  maps: IntentMaps,
  persist: (change: IntentChange) => Effect.Effect<void, StorageError> = () => Effect.void
) => {
  const lock = Effect.unsafeMakeSemaphore(1)
  const commit = (change: IntentChange) => Effect.zipRight(persist(change), Effect.sync(() => applyIntentChange(maps, change)))
  return ContributionIntents.of({
    reserve: (intent, now) =>
      lock.withPermits(1)(Effect.suspend(() => {
        if (maps.byId.has(intent.intentId)) return Effect.succeed("taken" as const)
        const owner = ownerKey(intent)
        if (owner !== undefined) {
          const open = (maps.byOwner.get(owner) ?? []).filter((id) => receivesTransfers(maps.byId.get(id)!.intent, now))
          maps.byOwner.set(owner, open)
          if (open.length >= MAX_OPEN_INTENTS) return Effect.succeed("too_many" as const)
        }
        const holderId = maps.byUnits.get(unitsKey(intent))
        const holder = holderId === undefined ? undefined : maps.byId.get(holderId)
        if (holder !== undefined && receivesTransfers(holder.intent, now)) return Effect.succeed("taken" as const)
        return Effect.as(commit({ intent }), "reserved" as const)
      })),
    get: (intentId) => Effect.sync(() => Option.fromNullable(maps.byId.get(intentId))),
    credited: (intentId, index) =>
      lock.withPermits(1)(Effect.suspend(() =>
        maps.byId.get(intentId)?.creditIndex === index ? Effect.void : commit({ credit: { intent_id: intentId, index } })))
  })
}

export const MemoryContributionIntentsLive = Layer.sync(ContributionIntents, () => contributionIntentsOver(emptyIntentMaps()))
