// The verifiers of secret-bound names (docs/spec/profile.md section 5, "Two tiers of names";
// docs/protocol.md 17.5): what the text gate checks a `login` against. Off the log, and
// never the secret itself: a verifier is a slow salted hash (SecretHasher).
//
// A verifier is stored under the name and the index of the claim leaf that bound the name,
// after that leaf is durable: a claim the sequencer refused stores nothing, and two gates
// racing for one name cannot overwrite each other (the leaf index is unique).
//
// Contract (test/ports/GateSecrets.contract.ts): get answers undefined for a pair never put;
// put answers true and stores the verifier the first time, and false without changing
// anything when the pair already holds one; remove deletes the pair's verifier (none is
// fine), so that pair answers undefined again; a durable adapter answers the same after a
// reopen. The gate removes a name's verifier once the name moved to a key (an upgrade).

import { Context, type Effect } from "effect"
import type { StorageError } from "./StorageError.js"

export class GateSecrets extends Context.Tag("aics/GateSecrets")<GateSecrets, {
  readonly put: (name: string, claimIndex: number, verifier: string) => Effect.Effect<boolean, StorageError>
  readonly get: (name: string, claimIndex: number) => Effect.Effect<string | undefined, StorageError>
  readonly remove: (name: string, claimIndex: number) => Effect.Effect<void, StorageError>
}>() {}
