import { it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer, Option } from "effect"
import { expect } from "vitest"
import { PgNoticeRegisterLive } from "../../../src/adapters/pg/PgNoticeRegister.js"
import { deletionDueAt } from "../../../src/domain/governance/notice.js"
import { NoticeRegister } from "../../../src/ports/NoticeRegister.js"
import { notice, noticeRegisterContract, T0 } from "../../ports/NoticeRegister.contract.js"
import { testDatabase } from "../../support/pg.js"
import { openOn } from "./open.js"

const db = testDatabase()
const open = (url: string) => openOn(db, PgNoticeRegisterLive, url)

noticeRegisterContract("PgNoticeRegister", { fresh: Effect.map(db.freshSchema, open), durable: true })

it.scoped("PgNoticeRegister: a purge leaves no report id, text or contact in the table's current rows", () =>
  Effect.gen(function*() {
    const context = yield* Layer.build(open(yield* db.freshSchema))
    const register = Context.get(context, NoticeRegister)
    const sql = Context.get(context, SqlClient.SqlClient)
    yield* register.add(notice("secret"))
    yield* register.close("secret", { at: T0, outcome: "removed", reportIndex: 4, noticeHash: "hash" })
    expect(yield* register.purge(deletionDueAt(T0))).toBe(1)
    const rows = yield* sql<{ row: string }>`SELECT aics_notices::text AS row FROM aics_notices`
    expect(rows).toHaveLength(1)
    expect(rows[0]!.row).not.toContain("secret")
    expect(rows[0]!.row).not.toContain("explanation of notice")
  }))

it.scoped.runIf(db.multiSession)("PgNoticeRegister: two nodes (two pools) share the register, and one close wins", () =>
  Effect.gen(function*() {
    const url = yield* db.freshSchema
    const [a, b] = yield* Effect.forEach([0, 1], () => Effect.map(Layer.build(open(url)), Context.get(NoticeRegister)))
    yield* a!.add(notice("n1"))
    expect(Option.getOrThrow(yield* b!.get("n1")).contact?.email).toBe("n1@example.test")
    const closes = yield* Effect.all(
      [a!, b!].map((r, i) => r.close("n1", { at: T0 + i, outcome: "no_action", reportIndex: i, noticeHash: "hash" })),
      { concurrency: "unbounded" }
    )
    expect(closes.filter(Option.isSome)).toHaveLength(1)
    expect((yield* a!.list("closed", 10)).map((r) => r.reportId)).toEqual(["n1"])
  }))
