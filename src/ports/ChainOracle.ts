// The chain oracle (docs/spec/service.md "Contribution": "A claim is checked on chain"): what a chain
// says about one transaction. The service never talks to a chain itself; an adapter does
// (a JSON-lines ledger an operator's watcher appends to, memory for tests; a real chain
// client can follow as a third adapter).
//
// Contract (test/ports/ChainOracle.contract.ts): `transfers(network, tx, address)` gives
// every transfer of transaction `tx` on `network` to `address` the oracle knows, one per
// asset, the latest report of each winning (a transfer first seen unconfirmed is reported
// confirmed once it is); nothing for another network, transaction or address. The domain
// decides what they mean (domain/sup/contributions.ts decideClaim).

import type { Effect } from "effect"
import { Context } from "effect"
import type { ChainTransfer } from "../domain/sup/contributions.js"
import type { StorageError } from "./StorageError.js"

export class ChainOracle extends Context.Tag("aics/ChainOracle")<ChainOracle, {
  readonly transfers: (network: string, tx: string, address: string) => Effect.Effect<ReadonlyArray<ChainTransfer>, StorageError>
}>() {}
