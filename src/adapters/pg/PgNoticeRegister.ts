// The notice register on PostgreSQL (docs/protocol.md 14.1): one row per notice in
// aics_notices, shared by every node, so a notice taken by one node is listed and closed by
// any other. The rules are the domain's (closeNotice, purgeNotice's deletionDueAt); the
// table stores.
//
// Personal data lives in two columns of its own, text and contact; the rest of the record
// (report id, kind, received, status, closing) is `record`, the report id also in the
// report_id column that get and close look up. A purge is one transaction: it locks the
// closed rows whose purge_due (deletionDueAt of their closing, set by close) has come and
// that still hold a report id, text or contact, and the rows whose text cites one of
// those report ids; applies the domain's purgeRegister to them; and writes back the rows
// it changed, report_id, text and contact NULL and the record without its report id.
// PostgreSQL keeps the old row versions until VACUUM reclaims them: after a purge that
// emptied rows, the register runs VACUUM on the table (a small table, purged at most
// hourly), which removes them unless an older transaction can still see them (then
// autovacuum does later). WAL and backups keep what they kept: see docs/operations.md.
//
// close reads the row FOR UPDATE in a transaction and applies closeNotice: two nodes
// closing one notice at once are serialized, and the second finds it closed (None).

import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Either, Layer, Option } from "effect"
import { closeNotice, deletionDueAt, purgeRegister, type NoticeRecord } from "../../domain/governance/notice.js"
import { NoticeRegister } from "../../ports/NoticeRegister.js"
import { storage, toNumber, transact } from "./pgValues.js"

interface NoticeRow {
  readonly record: Omit<NoticeRecord, "text" | "contact">
  readonly text: NoticeRecord["text"]
  readonly contact: NoticeRecord["contact"]
}

const fromRow = (row: NoticeRow): NoticeRecord => ({ ...row.record, text: row.text, contact: row.contact })

/** The record without its personal data, as the `record` column keeps it. */
const rest = ({ text: _text, contact: _contact, ...others }: NoticeRecord) => JSON.stringify(others)
const jsonOrNull = (value: unknown) => (value === null ? null : JSON.stringify(value))

export const PgNoticeRegisterLive: Layer.Layer<NoticeRegister, never, SqlClient.SqlClient> = Layer.effect(
  NoticeRegister,
  Effect.map(SqlClient.SqlClient, (sql) => {
    const vacuum = sql.unsafe("VACUUM aics_notices").pipe(
      Effect.catchAll((error) => Effect.logWarning("VACUUM of the notice register failed; autovacuum will reclaim the purged rows", error))
    )
    return NoticeRegister.of({
      add: (record) =>
        sql`INSERT INTO aics_notices (report_id, status, purge_due, record, text, contact) VALUES (
          ${record.reportId}, ${record.status}, ${record.closed === null ? null : deletionDueAt(record.closed)},
          ${rest(record)}::jsonb, ${jsonOrNull(record.text)}::jsonb, ${jsonOrNull(record.contact)}::jsonb)`.pipe(
          Effect.asVoid,
          storage("add notice")
        ),
      get: (reportId) =>
        sql<NoticeRow>`SELECT record, text, contact FROM aics_notices WHERE report_id = ${reportId}`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), fromRow)),
          storage("get notice")
        ),
      list: (status, limit) =>
        (status === undefined
          ? sql<NoticeRow>`SELECT record, text, contact FROM aics_notices ORDER BY seq LIMIT ${limit}`
          : sql<NoticeRow>`SELECT record, text, contact FROM aics_notices WHERE status = ${status} ORDER BY seq LIMIT ${limit}`).pipe(
          Effect.map((rows) => rows.map(fromRow)),
          storage("list notices")
        ),
      count: (status) =>
        sql<{ n: string }>`SELECT count(*) AS n FROM aics_notices WHERE status = ${status}`.pipe(
          Effect.map((rows) => toNumber(rows[0]!.n)),
          storage("count notices")
        ),
      close: (reportId, closed) =>
        transact(sql, "close notice", Effect.gen(function*() {
          const rows = yield* sql<NoticeRow>`SELECT record, text, contact FROM aics_notices WHERE report_id = ${reportId} FOR UPDATE`
          if (rows.length === 0) return Option.none<NoticeRecord>()
          const next = closeNotice(fromRow(rows[0]!), closed.outcome, closed.at, closed.reportIndex, closed.noticeHash)
          if (Either.isLeft(next)) return Option.none<NoticeRecord>()
          yield* sql`UPDATE aics_notices SET status = ${next.right.status}, purge_due = ${deletionDueAt(closed.at)},
            record = ${rest(next.right)}::jsonb WHERE report_id = ${reportId}`
          return Option.some(next.right)
        })),
      purge: (now) =>
        transact(sql, "purge notices", Effect.gen(function*() {
          const due = yield* sql<NoticeRow & { seq: string }>`SELECT seq, record, text, contact FROM aics_notices
            WHERE status = 'closed' AND purge_due <= ${now} AND (report_id IS NOT NULL OR text IS NOT NULL OR contact IS NOT NULL)
            ORDER BY seq FOR UPDATE`
          if (due.length === 0) return 0
          const ids = due.flatMap((row) => (row.record.reportId === null ? [] : [row.record.reportId]))
          const citing = ids.length === 0 ? [] : yield* sql<NoticeRow & { seq: string }>`SELECT seq, record, text, contact FROM aics_notices
            WHERE text->>'citedReportId' IN ${sql.in(ids)} ORDER BY seq FOR UPDATE`
          const rows = [...due, ...citing.filter((row) => !due.some((d) => d.seq === row.seq))]
          const before = rows.map(fromRow)
          const after = purgeRegister(before, now)
          // Only the rows the rule changed are written.
          const changed = rows.flatMap((row, i) => (after.records[i] === before[i] ? [] : [[row.seq, after.records[i]!] as const]))
          yield* Effect.forEach(changed, ([seq, next]) =>
            sql`UPDATE aics_notices SET report_id = ${next.reportId}, record = ${rest(next)}::jsonb,
              text = ${jsonOrNull(next.text)}::jsonb, contact = ${jsonOrNull(next.contact)}::jsonb WHERE seq = ${seq}`, { discard: true })
          return after.purged
        })).pipe(Effect.tap((purged) => (purged > 0 ? vacuum : Effect.void)))
    })
  })
)
