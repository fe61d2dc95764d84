// The governance views (docs/spec/service.md "States and transitions": freeze, policy,
// suspension; docs/protocol.md 11.4 and 12.6), read from the projection store (issue 12):
// what the owner's leaves establish is a resident part of the state (domain/write/
// stateAreas.ts), held whole beside the store's copy, so each view is a slice with no rows
// and a pure view of it: no list is walked and nothing grows with the log but what the
// owner wrote.

import { Effect, Either } from "effect"
import { freezeView } from "../domain/governance/freeze.js"
import { policyView } from "../domain/governance/policyTiming.js"
import { suspensionView } from "../domain/governance/suspension.js"
import { subjectOfHandle } from "../domain/views/handles.js"
import type { StateReader } from "./StateReader.js"

type Reader = typeof StateReader.Service

/** GET /v2/governance/freeze: whether agent writes are held, and by which freeze leaf. */
export const freezeFrom = (reader: Reader) => Effect.map(reader.slice([]), freezeView)

/** GET /v2/governance/policy: the policies in force at `now` (Unix ms) and those announced for later. */
export const policyFrom = (reader: Reader, now: number) => Effect.map(reader.slice([]), (slice) => policyView(slice, now))

/** What a subject that is neither a key nor a name of this instance is told (the route's 422, the gate's err line). */
export const subjectInvalidDetail = (subject: string): string =>
  `${JSON.stringify(subject)} is neither the did:key of an Ed25519 key nor a name or handle of this instance`

/**
 * GET /v2/governance/suspensions/{subject}: the latest suspension of a key (did:key) or a
 * name (a name, `@name` or `@name.<instance_domain>`), in force at `now` or not;
 * `subject_invalid` when the segment is neither.
 */
export const suspensionFrom = (reader: Reader, handle: string, now: number) =>
  Effect.map(reader.slice([]), (slice) => {
    const subject = subjectOfHandle(slice, handle)
    return subject === undefined
      ? Either.left("subject_invalid" as const)
      : Either.right(suspensionView(slice, subject, now))
  })
