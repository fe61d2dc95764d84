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
// expires). It is folded one entry at a time (neededUntilWith). It stays right
// for good because an entry's expiry never changes once it is logged: expiresUnder depends
// only on the entry's type (its body rule, fixed in the registry), its `logged` time (in the
// leaf) and retention_days, which is leaf 0's term for the log's whole life (docs/spec/service.md
// "Policy": a policy change does not touch it). Leaves are never removed, so the fold only
// ever takes entries in, and max never has to be undone. Retention reads a digest's entries
// newest first and stops as soon as the verdict cannot change (NamingScan below).

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
 * Where retention's look at one expired ciphertext stands as it reads the entries naming
 * the ciphertext's digest, newest first (app/BodyLedger.ts). Only the digest's newest entry
 * decides: when that is the ciphertext itself, it is the digest's latest ciphertext (so the
 * latest expiry among them) and the digest's bytes may go iff no entry names them for good
 * (the summary of all the entries is due); when a later entry names the digest, that one
 * decides, once it is due (a public entry never is). So each digest is decided once per
 * expiry of its latest ciphertext, however often its bytes were written, and an entry that
 * does not decide costs one entry read.
 */
export interface NamingScan {
  /** Whether the ciphertext is the newest entry naming its digest; undefined before the first entry read. */
  readonly decides: boolean | undefined
  /** The summary of the entries read so far. */
  readonly until: number
}

export const SCAN_START: NamingScan = { decides: undefined, until: NOT_NAMED }

/** The scan for the ciphertext at leaf `index` with the next entry (newest first) read. */
export const scanWith = (scan: NamingScan, entry: BodyEntry, index: number, retentionDays: number): NamingScan => ({
  decides: scan.decides ?? entry.index === index,
  until: neededUntilWith(scan.until, entry, retentionDays)
})

/** Whether reading more entries cannot change the verdict: the summary only grows. */
export const scanSettled = (scan: NamingScan, now: number): boolean =>
  scan.decides === false || (scan.decides === true && !mayDelete(scan.until, now))

/** The verdict once every entry was read or the scan settled: whether the bytes may be deleted at `now`. */
export const scanDeletes = (scan: NamingScan, now: number): boolean => scan.decides === true && mayDelete(scan.until, now)
