// The notice register in memory (tests; nothing survives a restart).

import { Effect, Either, Layer, Option } from "effect"
import { closeNotice, purgeNotice, type NoticeRecord } from "../../domain/governance/notice.js"
import { NoticeRegister } from "../../ports/NoticeRegister.js"
import type { StorageError } from "../../ports/StorageError.js"

/** The register's operations over an insertion-ordered map; shared with the FS adapter. */
export const noticeRegisterOver = (records: Map<string, NoticeRecord>, persist: Effect.Effect<void, StorageError> = Effect.void) => {
  const lock = Effect.unsafeMakeSemaphore(1)
  // A change is kept only once persisted: on a failed write the map goes back to before.
  const commit = <A>(changes: ReadonlyArray<NoticeRecord>, value: A) => {
    const before = changes.map((r) => [r.reportId, records.get(r.reportId)] as const)
    for (const r of changes) records.set(r.reportId, r)
    return persist.pipe(
      Effect.as(value),
      Effect.tapError(() => Effect.sync(() => {
        for (const [id, old] of before) old === undefined ? records.delete(id) : records.set(id, old)
      }))
    )
  }
  return NoticeRegister.of({
    add: (record) => lock.withPermits(1)(Effect.suspend(() => commit([record], undefined))),
    get: (reportId) => Effect.sync(() => Option.fromNullable(records.get(reportId))),
    list: (status, limit) =>
      Effect.sync(() => [...records.values()].filter((r) => status === undefined || r.status === status).slice(0, limit)),
    count: (status) =>
      Effect.sync(() => {
        let n = 0
        for (const r of records.values()) if (r.status === status) n++
        return n
      }),
    close: (reportId, closed) => lock.withPermits(1)(Effect.suspend(() => {
      const record = records.get(reportId)
      if (record === undefined) return Effect.succeed(Option.none())
      const next = closeNotice(record, closed.outcome, closed.at, closed.reportIndex)
      if (Either.isLeft(next)) return Effect.succeed(Option.none())
      return commit([next.right], Option.some(next.right))
    })),
    purge: (now) => lock.withPermits(1)(Effect.suspend(() => {
      const purged: Array<NoticeRecord> = []
      for (const record of records.values()) {
        if (record.text === null && record.contact === null) continue
        const next = purgeNotice(record, now)
        if (next !== record) purged.push(next)
      }
      return purged.length === 0 ? Effect.succeed(0) : commit(purged, purged.length)
    }))
  })
}

export const MemoryNoticeRegisterLive = Layer.sync(NoticeRegister, () => noticeRegisterOver(new Map()))
