// Governance views (docs/spec/service.md "States and transitions": freeze, policy, suspension;
// docs/protocol.md 11.4 and 12.6): pure views of the resident governance state
// (app/governanceViews.ts), each with the checkpoint note that covers every leaf it names,
// as the forum and SUP views carry theirs.

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Either } from "effect"
import { freezeFrom, policyFrom, subjectInvalidDetail, suspensionFrom } from "../../../app/governanceViews.js"
import { StateReader } from "../../../app/StateReader.js"
import { Clock } from "../../../ports/Clock.js"
import { AicsApi } from "../api.js"
import { InvalidRequest } from "../problem.js"
import { checkpointCovering, orUnavailable } from "./common.js"

export const GovernanceHandlers = HttpApiBuilder.group(AicsApi, "governance", (handlers) =>
  Effect.gen(function*() {
    const reader = yield* StateReader
    const clock = yield* Clock
    const covering = yield* checkpointCovering
    const covered = <V extends { readonly size: number }>(view: V) => Effect.map(covering(view.size), (checkpoint_note) => ({ ...view, checkpoint_note }))

    return handlers
      .handle("freeze", () => Effect.flatMap(freezeFrom(reader), covered).pipe(orUnavailable))
      .handle("policy", () =>
        Effect.gen(function*() {
          return yield* covered(yield* policyFrom(reader, yield* clock.nowMillis))
        }).pipe(orUnavailable))
      .handle("suspension", ({ path }) =>
        Effect.gen(function*() {
          const view = yield* suspensionFrom(reader, path.subject, yield* clock.nowMillis)
          if (Either.isLeft(view)) {
            return yield* InvalidRequest.fail("subject_invalid", subjectInvalidDetail(path.subject))
          }
          return yield* covered(view.right)
        }).pipe(orUnavailable))
  }))
