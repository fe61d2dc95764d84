// The last leaves this process appended, kept in memory so the readers that follow the log
// right behind the writer (the body ledger after every batch, the publisher's entry
// bundles, fetches of new entries) get them without a file read. Each such read was two
// trips through libuv and a busy event loop per batch. Only leaves appended by this store
// are kept, in one contiguous run ending at the committed size; anything older is read from
// the files as before. The arrays are shared with readers, who treat entries as immutable.

/** Leaves kept: a few seconds of writes at full speed, about 2 MB of posts. */
export const RECENT_ENTRIES = 4096

export interface RecentEntries {
  /** Records leaves just made durable at [start, start + entries.length). */
  readonly add: (start: number, entries: ReadonlyArray<Uint8Array>) => void
  /** The leaves [from, to) when all of them are kept, else undefined. */
  readonly get: (from: number, to: number) => ReadonlyArray<Uint8Array> | undefined
}

export const makeRecentEntries = (capacity: number = RECENT_ENTRIES): RecentEntries => {
  let first = 0
  let kept: Array<Uint8Array> = []
  return {
    add: (start, entries) => {
      // A gap (the first append of a reopened store) starts the run anew.
      if (start !== first + kept.length) {
        first = start
        kept = []
      }
      kept.push(...entries)
      // Trim in steps of a quarter, not per append, so the copy is rare.
      if (kept.length > capacity + (capacity >> 2)) {
        const drop = kept.length - capacity
        kept = kept.slice(drop)
        first += drop
      }
    },
    get: (from, to) => (from >= first && to <= first + kept.length && from <= to ? kept.slice(from - first, to - first) : undefined)
  }
}
