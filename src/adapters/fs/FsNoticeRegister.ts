// The notice register on the filesystem: one JSON file holding every record, replaced
// atomically (temp file, fsync, rename, fsync the folder: atomicFile.ts) on every change,
// so a notice is durable before POST /notice answers 201, and a purge really removes the
// report id, text and contact from the disk (an append-only file would keep them in older
// lines).
// Notices are rare, so rewriting the whole file is cheap. The rename is atomic, so a crash
// leaves the old register or the new one, never a torn file; a file damaged otherwise is
// set aside at start and reported by name (app/StartupDamage.ts, /healthz).

import { mkdir, readFile, rename } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { utf8 } from "../../domain/bytes.js"
import type { NoticeRecord } from "../../domain/governance/notice.js"
import { NoticeRegister } from "../../ports/NoticeRegister.js"
import { reportDamage } from "../../app/StartupDamage.js"
import { noticeRegisterOver } from "../memory/MemoryNoticeRegister.js"
import { writeFileAtomically } from "./atomicFile.js"
import { attempt } from "./fileIo.js"

const FILE = "notices.json"

/** The register's records, or undefined when the text is not a JSON array of objects. */
const readRegister = (text: string): Array<NoticeRecord> | undefined => {
  try {
    const value: unknown = JSON.parse(text)
    return Array.isArray(value) && value.every((r) => typeof r === "object" && r !== null && !Array.isArray(r))
      ? value as Array<NoticeRecord>
      : undefined
  } catch {
    return undefined
  }
}

export const FsNoticeRegisterLive = (directory: string) =>
  Layer.effect(NoticeRegister, Effect.gen(function*() {
    const path = join(directory, FILE)
    const text = yield* attempt("open notice register", path, async () => {
      await mkdir(directory, { recursive: true, mode: 0o700 })
      return readFile(path, "utf8").catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? "[]" : Promise.reject(e)))
    })
    const parsed = readRegister(text)
    if (parsed === undefined) {
      // Damaged (a disk error, a hand edit): set aside as evidence, reported by name, and
      // the register starts empty rather than the service not starting at all.
      const aside = `${FILE}.damaged-${Date.now()}`
      yield* attempt("set aside the notice register", path, () => rename(path, join(directory, aside)))
      yield* reportDamage(`the notice register notices/${FILE} is not a JSON array of notices; set aside as notices/${aside}, the register starts empty`)
    }
    const records = [...(parsed ?? [])]
    // Personal data: readable by the service's user only.
    const persist = Effect.suspend(() => writeFileAtomically(path, utf8(JSON.stringify(records)), 0o600))
    return noticeRegisterOver(records, persist)
  }))
