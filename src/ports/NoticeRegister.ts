// The notice register (docs/spec/service.md item 9, "Notice"; docs/protocol.md section 11.3): legal
// notices taken by POST /notice, kept OFF the log. Records are the domain's NoticeRecord
// (src/domain/governance/notice.ts); the app applies the rules, the register stores.
//
// Contract (test/ports/NoticeRegister.contract.ts): `add` is durable before it returns and
// refuses nothing (report ids are the app's, unique); `get` finds a record by report id;
// `list` gives records of a status (or all) in the order they were taken, at most `limit`,
// purged ones included; `count` says how many records have the status (the statistics'
// notices_open); `close` records closed/outcome/reportIndex/noticeHash of an open record
// (None when missing or already closed); `purge` applies governance/notice.ts
// purgeRegister at `now`: the report id, text and contact of every closed record 12
// months after closing are deleted (the record stays, found by no report id, listed with
// reportId null), every record citing a deleted report id cites its report leaf instead,
// and it returns how many records it purged. A durable adapter keeps everything across
// reopens, and what a purge deleted is gone from its files and rows.

import type { Effect, Option } from "effect"
import { Context } from "effect"
import type { NoticeOutcome, NoticeRecord } from "../domain/governance/notice.js"
import type { StorageError } from "./StorageError.js"

export class NoticeRegister extends Context.Tag("aics/NoticeRegister")<NoticeRegister, {
  readonly add: (record: NoticeRecord) => Effect.Effect<void, StorageError>
  readonly get: (reportId: string) => Effect.Effect<Option.Option<NoticeRecord>, StorageError>
  readonly list: (status: "open" | "closed" | undefined, limit: number) => Effect.Effect<ReadonlyArray<NoticeRecord>, StorageError>
  readonly count: (status: "open" | "closed") => Effect.Effect<number, StorageError>
  readonly close: (
    reportId: string,
    closed: { readonly at: number; readonly outcome: NoticeOutcome; readonly reportIndex: number; readonly noticeHash: string }
  ) => Effect.Effect<Option.Option<NoticeRecord>, StorageError>
  readonly purge: (now: number) => Effect.Effect<number, StorageError>
}>() {}
