// The key view and the signed agent view (docs/spec/service.md "Identity", "Projections"),
// read from the projection store (issue 12): the rows they show through StateReader, the
// key's envelopes and the inbox paged by leaf index (listReads.ts). Shared by the HTTP
// handlers and the text gate, so both doors answer alike.

import { Effect, type Either, HashMap, Option } from "effect"
import { balanceOf } from "../domain/sup/ledger.js"
import { agentReads, type AgentView, agentViewOf } from "../domain/views/agentView.js"
import { directoryPart, directoryReads, directoryViewOfPage, type DirectoryQuery, type DirectoryView } from "../domain/views/directory.js"
import { nameReads, nameView, type NameView, type NameViewProblem } from "../domain/views/nameView.js"
import { type KeyPageQuery, keyReads, type KeyView, keyViewOf } from "../domain/views/keyView.js"
import { KEY_RECOVERY_NAMES_LISTED } from "../domain/views/limits.js"
import type { ProjectionStore } from "../ports/ProjectionStore.js"
import type { StorageError } from "../ports/StorageError.js"
import { elementsFromIndex } from "./listReads.js"
import { inboxStatusFrom } from "./messagingViews.js"
import type { StateReader } from "./StateReader.js"

type Reader = typeof StateReader.Service

/** How a view reads a slice of the store: Projection's, the auditor's (client/replayStore.ts). */
type SliceFor = Reader["sliceFor"]

/** GET /v2/names/{name}: the name a handle designates, its keys and key events. */
export const nameViewFrom = (sliceFor: SliceFor, handle: string): Effect.Effect<Either.Either<NameView, NameViewProblem>, StorageError> =>
  Effect.map(sliceFor(nameReads(handle)), (slice) => nameView(slice, handle))

/** GET /v2/directory: a page of names in claim order, `q` answered from the store's index, with whether each recovery key still stands. */
export const directoryFrom = (store: typeof ProjectionStore.Service, sliceFor: SliceFor, query: DirectoryQuery): Effect.Effect<DirectoryView, StorageError> =>
  Effect.gen(function*() {
    const page = yield* store.directory({ part: directoryPart(query.q), limit: query.limit })
    // Whether each name's recovery key still stands: their records, read after the page.
    const slice = yield* sliceFor(() => directoryReads(page))
    return directoryViewOfPage(query, page, slice)
  })

/** GET /v2/keys/{kid}: the key's binding, one page of its envelopes and one of the names it is the recovery key of. */
export const keyViewFrom = (reader: Reader, kid: string, page: KeyPageQuery): Effect.Effect<Either.Either<KeyView, "key_not_found">, StorageError> =>
  Effect.gen(function*() {
    // The names first, then the key's record: a claim never names a key that holds or held
    // a name, so whatever bound the key since, every name listed was named before it, and
    // the record read after says its standing now.
    const recoveryOf = yield* reader.recoveryNames(kid, { from: page.recoveryFrom ?? 0, limit: KEY_RECOVERY_NAMES_LISTED + 1 })
    const slice = yield* reader.sliceFor(keyReads(kid))
    const head = Option.getOrUndefined(HashMap.get(slice.chains, kid))
    const following = head === undefined
      ? []
      : yield* elementsFromIndex<number>(reader, "envelopes", kid, (index) => index, page.from, page.limit + 1)
    // Envelopes folded after the chain head was read are left for the next read: the page
    // and the head then describe the same moment.
    return keyViewOf(slice, kid, following.filter((index) => index <= head!.index), page.limit, recoveryOf)
  })

/** GET /v2/agents/me: the name the key acts for, its inbox's state after `readThrough`, and the name's SUP balance. */
export const ownAgentViewFrom = (reader: Reader, kid: string, readThrough: number | null): Effect.Effect<AgentView & { readonly balance: number }, StorageError> =>
  Effect.gen(function*() {
    const slice = yield* reader.sliceFor(agentReads(kid))
    const view = agentViewOf(slice, kid, yield* inboxStatusFrom(reader, kid, readThrough))
    // The SUP balance of the name the key acts for (sup/ledger.ts); a bare key has none.
    return { ...view, balance: view.name === null ? 0 : balanceOf(slice.sup, view.name) }
  })
