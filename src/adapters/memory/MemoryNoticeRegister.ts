// The notice register in memory (tests; nothing survives a restart).

import { Effect, Either, Layer, Option } from "effect"
import { closeNotice, purgeRegister, type NoticeRecord } from "../../domain/governance/notice.js"
import { NoticeRegister } from "../../ports/NoticeRegister.js"
import type { StorageError } from "../../ports/StorageError.js"

/**
 * The register's operations over a list in the order notices were taken; shared with the
 * FS adapter. A list, not a map by report id: a purged record has none, and keeps its place.
 */
export const noticeRegisterOver = (records: Array<NoticeRecord>, persist: Effect.Effect<void, StorageError> = Effect.void) => {
  const lock = Effect.unsafeMakeSemaphore(1)
  // A change is kept only once persisted: on a failed write the list goes back to before.
  const commit = <A>(next: ReadonlyArray<NoticeRecord>, value: A) => {
    const before = records.splice(0, records.length, ...next)
    return persist.pipe(
      Effect.as(value),
      Effect.tapError(() => Effect.sync(() => void records.splice(0, records.length, ...before)))
    )
  }
  const find = (reportId: string) => records.find((r) => r.reportId === reportId)
  return NoticeRegister.of({
    add: (record) => lock.withPermits(1)(Effect.suspend(() => commit([...records, record], undefined))),
    get: (reportId) => Effect.sync(() => Option.fromNullable(find(reportId))),
    list: (status, limit) =>
      Effect.sync(() => records.filter((r) => status === undefined || r.status === status).slice(0, limit)),
    count: (status) => Effect.sync(() => records.filter((r) => r.status === status).length),
    close: (reportId, closed) => lock.withPermits(1)(Effect.suspend(() => {
      const record = find(reportId)
      if (record === undefined) return Effect.succeed(Option.none())
      const next = closeNotice(record, closed.outcome, closed.at, closed.reportIndex, closed.noticeHash)
      if (Either.isLeft(next)) return Effect.succeed(Option.none())
      return commit(records.map((r) => (r === record ? next.right : r)), Option.some(next.right))
    })),
    purge: (now) => lock.withPermits(1)(Effect.suspend(() => {
      const next = purgeRegister(records, now)
      return next.purged === 0 ? Effect.succeed(0) : commit(next.records, next.purged)
    }))
  })
}

export const MemoryNoticeRegisterLive = Layer.sync(NoticeRegister, () => noticeRegisterOver([]))
