// An entry's body status (X-AICS-Body-Status on GET /v2/entries/<index>, docs/spec/service.md
// "Body status") as `aics get` and the get_entry tool say it: checked against the log where
// the log can show it, and said as the service's word where it cannot.
//   - `available`: the body came and getEntry checked its hash against the payload's.
//   - `tombstoned;tombstone_index=<i>;reason_code=<c>`: leaf i, read with its inclusion proof
//     under a log-signed checkpoint (getEntry), must be a tombstone of this entry for reason
//     c, signed by the owner key leaf 0 names (governance/tombstones.ts).
//   - `expired;policy_index=<i>`: i must be leaf 0, the charter, whose retention_days is the
//     log's for its whole life; the entry's type must be one whose body expires, and the
//     time must be past logged + retention_days (expiresUnder), give or take the clock skew a
//     signed request may have.
//   - `unavailable`: the service's word (it holds no bytes under the payload's hash): nothing
//     in the log shows it.
// A status the log contradicts is a verification error. A status that contradicts the
// answer it came with (no body while available, a body while hidden, a status on an entry
// that names no body or none on one that does, a value that is no status) is a protocol
// error. Either way nothing is shown as checked that was not.

import { bodyReference } from "../domain/bodyReference.js"
import { expiresUnder, parseBodyStatusHeader } from "../domain/bodyStatus.js"
import { MAX_CLOCK_SKEW_SECONDS } from "../domain/http/aicsProfile.js"
import { protocolError, verificationError } from "./errors.js"
import { ownerKidOf } from "./governance.js"
import { type EntryRead, getEntry } from "./read.js"
import type { LogClient } from "./write.js"

export type CheckedBodyStatus =
  /** The body came, its hash the payload's. */
  | { readonly state: "available" }
  /** Hidden by the owner's tombstone leaf `tombstoneIndex`, read and checked. */
  | { readonly state: "tombstoned"; readonly tombstoneIndex: number; readonly reasonCode: string }
  /** Expired at `expiredAt` (Unix ms) under leaf 0's retention of `retentionDays`, checked. */
  | { readonly state: "expired"; readonly policyIndex: number; readonly retentionDays: number; readonly expiredAt: number }
  /** The service's word: it holds no bytes under the payload's hash. Not checked. */
  | { readonly state: "unavailable" }

/** Whether the status was checked against the log (all but `unavailable`, the service's word). */
export const isCheckedBodyStatus = (status: CheckedBodyStatus): boolean => status.state !== "unavailable"

const checkTombstone = async (client: LogClient, entry: EntryRead, tombstoneIndex: number, reasonCode: string): Promise<void> => {
  const said = `entry ${entry.index}: the service says leaf ${tombstoneIndex} tombstoned its body (${reasonCode}), but`
  if (tombstoneIndex <= entry.index) throw verificationError(`${said} a tombstone comes after the leaf it hides`)
  const [tombstone, owner] = await Promise.all([getEntry(client, tombstoneIndex), ownerKidOf(client)])
  const { type, kid, payload } = tombstone.envelope
  if (type !== "tombstone") throw verificationError(`${said} leaf ${tombstoneIndex} is a ${type}, not a tombstone`)
  if (payload["target_index"] !== entry.index) throw verificationError(`${said} leaf ${tombstoneIndex} hides the body of leaf ${String(payload["target_index"])}`)
  if (payload["reason_code"] !== reasonCode) throw verificationError(`${said} leaf ${tombstoneIndex} gives the reason ${String(payload["reason_code"])}`)
  if (kid !== owner) throw verificationError(`${said} leaf ${tombstoneIndex} is not signed by the owner key ${owner}`)
}

const checkExpiry = async (client: LogClient, entry: EntryRead, policyIndex: number, now: number): Promise<CheckedBodyStatus> => {
  const said = `entry ${entry.index}: the service says its body expired under leaf ${policyIndex}, but`
  // Retention is the charter's term for the log's whole life (domain/bodyStatus.ts).
  if (policyIndex !== 0) throw verificationError(`${said} the retention is leaf 0's, the charter's`)
  const charter = await getEntry(client, 0)
  const retentionDays = charter.envelope.payload["retention_days"]
  if (charter.envelope.type !== "charter" || !Number.isSafeInteger(retentionDays)) throw verificationError("entry 0 is not a charter naming retention_days")
  const expiredAt = expiresUnder({ type: entry.envelope.type, logged: entry.logged }, retentionDays as number)
  if (expiredAt === null) throw verificationError(`${said} the body of a ${entry.envelope.type} never expires`)
  if (now < expiredAt - MAX_CLOCK_SKEW_SECONDS * 1000) {
    throw verificationError(`${said} it expires only at ${new Date(expiredAt).toISOString()}, ${retentionDays as number} days after it was logged`)
  }
  return { state: "expired", policyIndex, retentionDays: retentionDays as number, expiredAt }
}

/** The entry's body status, checked (see the header); null when its payload names no body. `now`: Unix ms. */
export const checkBodyStatus = async (client: LogClient, entry: EntryRead, now: number = Date.now()): Promise<CheckedBodyStatus | null> => {
  const header = entry.bodyStatus
  const named = bodyReference(entry.envelope.payload) !== undefined
  if (header === null) {
    if (named) throw protocolError(`entry ${entry.index}: its payload names a body, and the service gave no X-AICS-Body-Status`)
    return null
  }
  if (!named) throw protocolError(`entry ${entry.index}: X-AICS-Body-Status ${header} on an entry whose payload names no body`)
  const status = parseBodyStatusHeader(header)
  if (status === undefined) throw protocolError(`entry ${entry.index}: X-AICS-Body-Status "${header}" is not a body status`)
  const state = status === "unavailable" ? status : status.state
  if (state === "available" && entry.body === null) throw protocolError(`entry ${entry.index}: the service says its body is available, and sent none`)
  if (state !== "available" && entry.body !== null) throw protocolError(`entry ${entry.index}: the service sent its body, and says it is ${state}`)
  if (status === "unavailable") return { state: "unavailable" }
  switch (status.state) {
    case "available":
      return { state: "available" }
    case "tombstoned":
      await checkTombstone(client, entry, status.tombstone_index!, status.reason_code!)
      return { state: "tombstoned", tombstoneIndex: status.tombstone_index!, reasonCode: status.reason_code! }
    case "expired":
      return checkExpiry(client, entry, status.policy_index!, now)
  }
}

/** One line of what the status says and how far it was checked, for `aics get`. */
export const describeBodyStatus = (status: CheckedBodyStatus): string => {
  switch (status.state) {
    case "available":
      return "body available (its hash verified)"
    case "tombstoned":
      return `body tombstoned by leaf ${status.tombstoneIndex} (${status.reasonCode}): the owner's tombstone of this entry, checked`
    case "expired":
      return `body expired at ${new Date(status.expiredAt).toISOString()}, ${status.retentionDays} days after it was logged (leaf ${status.policyIndex}'s retention), checked`
    case "unavailable":
      return "body unavailable: the service's word (it holds no bytes under the payload's hash), which the log cannot show"
  }
}
