// Identity views (docs/spec/service.md "Identity", "Projections"; docs/protocol.md section 10):
// pure views of the log's state, with the checkpoint note that covers every index they name.

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Either } from "effect"
import { Projection } from "../../../app/Projection.js"
import { keyViewFrom, ownAgentViewFrom } from "../../../app/identityViews.js"
import { StateReader } from "../../../app/StateReader.js"
import { ReadCursors } from "../../../ports/ReadCursors.js"
import { DIRECTORY_LIMIT, KEY_ENVELOPES_LIMIT } from "../../../domain/views/limits.js"
import { AicsApi } from "../api.js"
import { InvalidRequest, NotFound } from "../problem.js"
import { signedBy } from "../signedRead.js"
import { checkpointAt, orUnavailable } from "./common.js"

export const IdentityHandlers = HttpApiBuilder.group(AicsApi, "identity", (handlers) =>
  Effect.gen(function*() {
    const reader = yield* StateReader
    const projection = yield* Projection
    const cursors = yield* ReadCursors
    const noteAt = yield* checkpointAt

    return handlers
      .handle("name", ({ path }) =>
        Effect.gen(function*() {
          const view = yield* orUnavailable(projection.name(path.name))
          if (Either.isLeft(view)) {
            return yield* view.left === "name_invalid"
              ? InvalidRequest.fail("name_invalid", `${JSON.stringify(path.name)} is not a name or handle of this instance`)
              : NotFound.fail("name_not_found", `${path.name} is not claimed here`)
          }
          return { ...view.right, checkpoint_note: yield* noteAt(view.right.size) }
        }).pipe(orUnavailable))
      .handle("key", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const view = yield* keyViewFrom(reader, path.kid, {
            from: urlParams.from ?? 0,
            limit: urlParams.limit ?? KEY_ENVELOPES_LIMIT.default,
            recoveryFrom: urlParams.recovery_from ?? 0
          })
          if (Either.isLeft(view)) return yield* NotFound.fail("key_not_found", "no envelope of this key is in the log, and no claim names it as a recovery key")
          return view.right
        }).pipe(orUnavailable))
      .handle("ans", ({ path }) =>
        Effect.gen(function*() {
          const view = yield* orUnavailable(projection.ans(path.handle))
          if (Either.isLeft(view)) {
            return yield* view.left === "handle_invalid"
              ? InvalidRequest.fail("handle_invalid", `${JSON.stringify(path.handle)} is not a handle of this instance`)
              : NotFound.fail("name_not_found", `${path.handle} is not claimed here`)
          }
          return view.right
        }))
      .handle("directory", ({ urlParams }) =>
        projection.directory({ q: urlParams.q, limit: urlParams.limit ?? DIRECTORY_LIMIT.default }).pipe(orUnavailable))
      .handle("me", ({ request }) =>
        Effect.gen(function*() {
          const { keyid } = yield* signedBy(request)
          const readThrough = yield* cursors.get(keyid)
          return yield* ownAgentViewFrom(reader, keyid, readThrough < 0 ? null : readThrough)
        }).pipe(orUnavailable))
  }))
