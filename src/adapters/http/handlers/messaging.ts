// Inboxes, grants and capsules (docs/spec/service.md "Messaging and capsules"; docs/protocol.md
// sections 9 and 10). The public views give metadata only; the signed reads give the
// signing key its own ciphertext and the senders' envelopes. The service never decrypts.

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Either } from "effect"
import { capsuleListFrom, capsuleSlotFrom, grantsViewFrom, inboxStatusFrom, inboxViewFrom } from "../../../app/messagingViews.js"
import { StateReader } from "../../../app/StateReader.js"
import { fromUtf8 } from "../../../domain/bytes.js"
import { encodeU64 } from "../../../domain/encoding.js"
import { isDidKey } from "../../../domain/identity/didKey.js"
import { INBOX_LIMIT, INBOX_PAGE_CT_BYTES } from "../../../domain/views/limits.js"
import { Clock } from "../../../ports/Clock.js"
import { LogStore } from "../../../ports/LogStore.js"
import { ReadCursors } from "../../../ports/ReadCursors.js"
import { AicsApi } from "../api.js"
import { Forbidden, InvalidRequest, NotFound } from "../problem.js"
import { signedBy } from "../signedRead.js"
import { availableBodies, checkpointCovering, orUnavailable } from "./common.js"

export const MessagingHandlers = HttpApiBuilder.group(AicsApi, "messaging", (handlers) =>
  Effect.gen(function*() {
    const reader = yield* StateReader
    const cursors = yield* ReadCursors
    const store = yield* LogStore
    const clock = yield* Clock
    const covering = yield* checkpointCovering

    const bodiesOf = yield* availableBodies

    /** U64 of each stored ciphertext whose body status is available, else null. */
    const ciphertexts = (items: ReadonlyArray<{ readonly ctHash: string; readonly available: boolean }>) =>
      Effect.map(bodiesOf(items, (item) => item.ctHash, (item) => item.available), (found) =>
        found.map((bytes) => (bytes === null ? null : encodeU64(bytes))))

    const ciphertext = (ctHash: string, available: boolean) => Effect.map(ciphertexts([{ ctHash, available }]), ([ct]) => ct!)

    const envelopeAt = (index: number) =>
      Effect.map(store.readEntries(index, index + 1), ([bytes]) =>
        (JSON.parse(fromUtf8(bytes!)) as { envelope: Record<string, unknown> }).envelope)

    return handlers
      .handle("inboxStatus", ({ request }) =>
        Effect.gen(function*() {
          const { keyid } = yield* signedBy(request)
          const readThrough = yield* cursors.get(keyid)
          return yield* inboxStatusFrom(reader, keyid, readThrough < 0 ? null : readThrough)
        }).pipe(orUnavailable))
      .handle("ownInbox", ({ request, urlParams }) =>
        Effect.gen(function*() {
          const { keyid } = yield* signedBy(request)
          const readThrough = yield* cursors.get(keyid)
          const view = yield* inboxViewFrom(reader, keyid, {
            from: urlParams.from ?? 0,
            limit: urlParams.limit ?? INBOX_LIMIT.default,
            unreadOnly: urlParams.unread_only === "true",
            readThrough: readThrough < 0 ? null : readThrough,
            // Each message inlines its ciphertext: bound the answer by bytes, not only by count.
            ctBytes: INBOX_PAGE_CT_BYTES
          }, yield* clock.nowMillis)
          const cts = yield* ciphertexts(view.messages.map((message) => ({ ctHash: message.ct_hash, available: message.body.state === "available" })))
          const messages = yield* Effect.forEach(view.messages, (message, i) =>
            Effect.map(envelopeAt(message.index), (envelope) => ({ ...message, envelope, ct: cts[i]! })))
          // What was returned is read: the cursor moves to the newest message of the answer,
          // not past a page cut by bytes (never back: an older page read again leaves it where it is, ReadCursors).
          if (view.indices.length > 0) yield* cursors.advance(keyid, view.indices[view.indices.length - 1]!)
          return { kid: view.kid, indices: view.indices, size: view.size, messages, next_from: view.next_from }
        }).pipe(orUnavailable))
      .handle("inbox", ({ path, urlParams }) =>
        Effect.gen(function*() {
          if (!isDidKey(path.kid)) return yield* InvalidRequest.fail("kid_invalid", "kid must be the did:key of an Ed25519 key")
          const view = yield* inboxViewFrom(reader, path.kid, {
            from: urlParams.from ?? 0,
            limit: urlParams.limit ?? INBOX_LIMIT.default
          }, yield* clock.nowMillis)
          return { ...view, checkpoint_note: yield* covering(view.size) }
        }).pipe(orUnavailable))
      .handle("grants", ({ path, urlParams }) =>
        Effect.gen(function*() {
          if (!isDidKey(path.kid)) return yield* InvalidRequest.fail("kid_invalid", "kid must be the did:key of an Ed25519 key")
          if (urlParams.sender !== undefined && urlParams.sender !== "*" && !isDidKey(urlParams.sender)) {
            return yield* InvalidRequest.fail("sender_invalid", "sender must be a did:key or *", [{ path: "sender", message: "expected a did:key or *" }])
          }
          return yield* grantsViewFrom(reader, path.kid, urlParams.sender, yield* clock.nowMillis)
        }).pipe(orUnavailable))
      .handle("capsules", ({ request }) =>
        Effect.gen(function*() {
          const { keyid } = yield* signedBy(request)
          return yield* capsuleListFrom(reader, keyid, yield* clock.nowMillis)
        }).pipe(orUnavailable))
      .handle("capsule", ({ request, path }) =>
        Effect.gen(function*() {
          const { keyid } = yield* signedBy(request)
          const view = yield* capsuleSlotFrom(reader, path.key_hash, yield* clock.nowMillis)
          if (Either.isLeft(view)) return yield* NotFound.fail("capsule_not_found", "no capsule has this slot")
          if (view.right.owner !== keyid) return yield* Forbidden.fail("not_authorized", "only the slot's owner may read it")
          return { ...view.right, ct: yield* ciphertext(view.right.ct_hash, view.right.body.state === "available") }
        }).pipe(orUnavailable))
  }))
