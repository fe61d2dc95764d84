// Which bodies retention may delete (docs/spec/service.md "What the service does" item 10 and the
// "Body status" table; docs/protocol.md section 9). Pure: the entries and the time come in.
//
// The body store keeps one copy of a body per digest, however many entries name it: a
// second write of the same bytes stores nothing new. So expiry is of an entry, but deletion
// is of bytes, and the bytes of a digest may be deleted only once every entry that names
// that digest has stopped needing them. A DM or capsule ciphertext needs its body until it
// expires (bodyStatus.ts, expiresUnder); every other body (a post's or a task's text, a
// policy or the charter document, an audit report or a completion's result) never expires. So bytes that any such entry names are
// kept for good, whatever ciphertext names them too (a capsule's bytes are not checked and
// may equal a public post), and ciphertext written twice is kept until its last write
// expires. A tombstone hides one entry's body without deleting bytes: it plays no part.
//
// The summary: all the entries naming a digest decide this through one number, the time
// their bytes are needed until (the latest expiry among them, Infinity once one never
// expires). It is folded one entry at a time as the log is read (neededUntilWith), so
// retention decides a digest in O(1) however often its bytes were written. It stays right
// for good because an entry's expiry never changes once it is logged: expiresUnder depends
// only on the entry's type (its body rule, fixed in the registry), its `logged` time (in the
// leaf) and retention_days, which is leaf 0's term for the log's whole life (docs/spec/service.md
// "Policy": a policy change does not touch it). Leaves are never removed, so the fold only
// ever takes entries in, and max never has to be undone.

import { expiresUnder, type BodyEntry } from "./bodyStatus.js"

/** The summary of no entry: nothing names the digest, so nothing allows deleting it. */
export const NOT_NAMED = -Infinity

/** The summary `until` with one more entry naming the digest folded in. */
export const neededUntilWith = (until: number, entry: Pick<BodyEntry, "type" | "logged">, retentionDays: number): number =>
  Math.max(until, expiresUnder(entry, retentionDays) ?? Infinity)

/**
 * Whether the bytes of a digest whose entries' summary is `until` may be deleted at `now`.
 * A digest no entry names is kept: only the expiry of an entry that names it allows it.
 */
export const mayDelete = (until: number, now: number): boolean => until !== NOT_NAMED && now >= until

/**
 * Keeps retention's work list `pending` (digest to summary) in order of its summaries when
 * a digest's summary changes to `until`: the digest moves to the end, or leaves for good
 * once `until` is Infinity. In order because a finite summary is the expiry of the digest's
 * latest ciphertext and `logged` never goes backwards (write/decide.ts): the digest just
 * changed is the latest to come due. The one mutation here: the list lives for the
 * process's life and is updated per leaf read.
 */
export const notePending = <D>(pending: Map<D, number>, digest: D, until: number): void => {
  pending.delete(digest)
  if (until !== Infinity) pending.set(digest, until)
}

/**
 * The first (at most `max`) digests of `pending` whose bytes may be deleted at `now`.
 * `pending` is in order of its summaries (the ledger keeps it so: see BodyLedger), so the
 * first digest not yet due ends the answer and the rest is never looked at.
 */
export const dueDigests = <D>(pending: Iterable<readonly [D, number]>, now: number, max: number): Array<D> => {
  const due: Array<D> = []
  for (const [digest, until] of pending) {
    if (due.length >= max || !mayDelete(until, now)) break
    due.push(digest)
  }
  return due
}
