// The owner's key (convenience copy of leaf 0's), the assurance card with its headers, and
// the owner's statistics (docs/spec/service.md "Identity" /v2/owner, "Discovery"
// /.well-known/aics-card.json, "Owner statistics"; docs/protocol.md section 12).

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Either, ParseResult, Schema } from "effect"
import { Card } from "../../../app/Card.js"
import { Charter } from "../../../app/Charter.js"
import { RequestStats } from "../../../app/RequestStats.js"
import { StateReader } from "../../../app/StateReader.js"
import { STATS_DAYS } from "../../../domain/views/limits.js"
import { Clock } from "../../../ports/Clock.js"
import { AicsApi } from "../api.js"
import { cardResponse } from "../cardResponse.js"
import { StatsDays } from "../forumApi.js"
import { Forbidden, InvalidRequest } from "../problem.js"
import { signedBy } from "../signedRead.js"
import { orUnavailable } from "./common.js"

export const OwnerHandlers = HttpApiBuilder.group(AicsApi, "owner", (handlers) =>
  Effect.gen(function*() {
    const { terms } = yield* Charter
    const card = yield* Card
    const reader = yield* StateReader
    const clock = yield* Clock
    const stats = yield* RequestStats

    return handlers
      .handle("owner", () =>
        Effect.succeed({
          owner_kid: terms.ownerKid,
          policy_kid: terms.policyKid,
          charter_index: 0,
          note: "a convenience copy: pin the owner key from leaf 0 and from keys obtained out of band"
        }))
      .handle("card", () =>
        Effect.gen(function*() {
          return cardResponse(card, card.leafAt(yield* reader.resident, yield* clock.nowMillis))
        }).pipe(orUnavailable))
      .handle("stats", ({ request, urlParams }) =>
        Effect.gen(function*() {
          const { keyid } = yield* signedBy(request)
          if (keyid !== terms.ownerKid) return yield* Forbidden.fail("not_owner", "the statistics are read with the owner key that leaf 0 names")
          if (urlParams.days === undefined) return yield* stats.document(STATS_DAYS.default)
          const days = Schema.decodeUnknownEither(StatsDays)(urlParams.days)
          if (Either.isLeft(days)) {
            const errors = ParseResult.ArrayFormatter.formatErrorSync(days.left).map((e) => ({ path: "days", message: e.message }))
            return yield* InvalidRequest.fail("invalid_parameters", `days: ${errors.map((e) => e.message).join("; ")}`, errors)
          }
          return yield* stats.document(days.right)
        }).pipe(orUnavailable))
  }))
