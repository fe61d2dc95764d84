// The SUP views (docs/spec/service.md "SUP"), read from the projection store (issue 12): the
// totals are resident counters; an account is its row and its list of changes, shown whole.

import { Effect, HashMap } from "effect"
import type { SupChange } from "../domain/sup/ledger.js"
import { nameOfHandle } from "../domain/views/handles.js"
import { supAccountOfSlice, supAccountReads, supOverview } from "../domain/views/supOverview.js"
import { wholeList } from "./listReads.js"
import type { StateReader } from "./StateReader.js"

type Reader = typeof StateReader.Service

/** GET /v2/sup and /v2/support: what SUP is, with the log's totals. */
export const supOverviewFrom = (reader: Reader, asset: { readonly hash: string; readonly url: string }) =>
  Effect.map(reader.slice([]), (slice) => supOverview(slice, asset))

/** GET /v2/sup/accounts/{name}: the account of the name a handle designates. */
export const supAccountFrom = (reader: Reader, handle: string) =>
  Effect.gen(function*() {
    const slice = yield* reader.sliceFor(supAccountReads(handle))
    const name = nameOfHandle(slice, handle)
    const changes = name !== undefined && HashMap.has(slice.sup.accounts, name)
      ? yield* wholeList<SupChange>(reader, "supChanges", name)
      : []
    return supAccountOfSlice(slice, handle, changes)
  })
