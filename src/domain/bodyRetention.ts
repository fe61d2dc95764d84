// Which bodies retention may delete (docs/spec/service.md "What the service does" item 10 and the
// "Body status" table; docs/protocol.md section 9). Pure: the entries, which of them a
// tombstone hides, and the time come in.
//
// The body store keeps one copy of a body per digest, however many entries name it: a
// second write of the same bytes stores nothing new. So expiry and tombstones are of an
// entry, but deletion is of bytes, and the bytes of a digest may be deleted only once every
// entry that names that digest has stopped needing them. An entry whose body a tombstone
// hides needs it no more, from the tombstone on: nothing will serve those bytes for it
// again, and an owner who hid a body for a privacy or legal reason expects it gone, not
// kept out of sight (a tombstone is for good: nothing unhides a body). A DM or capsule
// ciphertext needs its body until it expires (bodyStatus.ts, expiresUnder); every other
// body (a post's or a task's text, a policy or the charter document, an audit report or a
// completion's result) never expires. So bytes that any such entry names are kept for good
// unless a tombstone hides that entry, whatever ciphertext names them too (a capsule's bytes
// are not checked and may equal a public post), and ciphertext written twice is kept until
// its last write expires.
//
// The summary: all the entries naming a digest decide this through one number, the time
// their bytes are needed until (the latest expiry among them, Infinity once one never
// expires, HIDDEN for an entry a tombstone hides). It is folded one entry at a time
// (neededUntilWith). An entry's expiry never changes once it is logged: expiresUnder
// depends only on the entry's type (its body rule, fixed in the registry), its `logged`
// time (in the leaf) and retention_days, which is leaf 0's term for the log's whole life
// (docs/spec/service.md "Policy": a policy change does not touch it); and a tombstone only
// ever lowers an entry's need, never raises it. So a summary that allows deleting at some
// time allows it at every later time, until a new entry names the bytes (which writes them
// again).
//
// Two walks decide (app/BodyLedger.ts), each reading a digest's entries newest first and
// stopping as soon as the verdict cannot change (NamingScan below): retention's, over the
// ciphertext as it comes due, and the tombstones', over each tombstone once it is logged.
// Between them every digest whose last need ends is decided when it ends: at the expiry of
// the newest ciphertext no tombstone hides, or at the tombstone that hid the last entry
// that needed it.

import { expiresUnder, type BodyEntry } from "./bodyStatus.js"

/** The summary of no entry: nothing names the digest, so nothing allows deleting it. */
export const NOT_NAMED = -Infinity

/**
 * What an entry whose body a tombstone hides contributes: needed until the epoch, so no
 * longer at any time, but unlike NOT_NAMED it counts as an entry naming the bytes.
 */
export const HIDDEN = 0

/** The summary `until` with one more entry naming the digest folded in; `hidden` when a tombstone hides its body. */
export const neededUntilWith = (until: number, entry: Pick<BodyEntry, "type" | "logged">, retentionDays: number, hidden = false): number =>
  Math.max(until, hidden ? HIDDEN : expiresUnder(entry, retentionDays) ?? Infinity)

/**
 * Whether the bytes of a digest whose entries' summary is `until` may be deleted at `now`.
 * A digest no entry names is kept: only the expiry of an entry that names it allows it.
 */
export const mayDelete = (until: number, now: number): boolean => until !== NOT_NAMED && now >= until

/**
 * Where a look at one digest stands as it reads the entries naming it, newest first
 * (app/BodyLedger.ts).
 *
 * Retention's look at one expired ciphertext: only the digest's newest entry that no
 * tombstone hides decides. When that is the ciphertext itself, it is the digest's latest
 * ciphertext still needing the bytes (so the latest expiry among them) and the bytes may go
 * iff no other entry needs them (the summary of all the entries is due); when a later entry
 * decides, it does so once it is due (a public entry never is) or once a tombstone hides it
 * (the tombstones' walk). So each digest is decided once per expiry of its latest
 * ciphertext, however often its bytes were written, and a ciphertext that does not decide
 * costs one entry read (and one for each newer hidden entry).
 *
 * The tombstones' look (TOMBSTONE_SCAN_START): a tombstone always decides the digest of the
 * body it hid, since the entry it hid may have been the last need of bytes whose other
 * entries were all decided earlier (a ciphertext that expired while the hidden post still
 * needed them).
 */
export interface NamingScan {
  /** Whether the ciphertext is the newest entry naming its digest; undefined before the first entry read. */
  readonly decides: boolean | undefined
  /** The summary of the entries read so far. */
  readonly until: number
}

/** Retention's look at an expired ciphertext, before the first entry read. */
export const SCAN_START: NamingScan = { decides: undefined, until: NOT_NAMED }

/** The tombstones' look at the digest of the body a tombstone hid: it decides whatever the entries are. */
export const TOMBSTONE_SCAN_START: NamingScan = { decides: true, until: NOT_NAMED }

/**
 * The scan for the ciphertext at leaf `index` (or a tombstone's, which decides already) with
 * the next entry (newest first) read; `hidden` when a tombstone hides that entry's body.
 */
export const scanWith = (scan: NamingScan, entry: BodyEntry, index: number, retentionDays: number, hidden = false): NamingScan => ({
  decides: hidden ? scan.decides : scan.decides ?? entry.index === index,
  until: neededUntilWith(scan.until, entry, retentionDays, hidden)
})

/** Whether reading more entries cannot change the verdict: the summary only grows. */
export const scanSettled = (scan: NamingScan, now: number): boolean =>
  scan.decides === false || (scan.decides === true && !mayDelete(scan.until, now))

/** The verdict once every entry was read or the scan settled: whether the bytes may be deleted at `now`. */
export const scanDeletes = (scan: NamingScan, now: number): boolean => scan.decides === true && mayDelete(scan.until, now)
