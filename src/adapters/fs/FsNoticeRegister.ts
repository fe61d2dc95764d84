// The notice register on the filesystem: one JSON file holding every record, replaced
// atomically (temp file, fsync, rename, fsync the folder: atomicFile.ts) on every change,
// so a notice is durable before POST /notice answers 201, and a purge really removes the
// report id, text and contact from the disk (an append-only file would keep them in older
// lines).
// Notices are rare, so rewriting the whole file is cheap.

import { mkdir, readFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { utf8 } from "../../domain/bytes.js"
import type { NoticeRecord } from "../../domain/governance/notice.js"
import { NoticeRegister } from "../../ports/NoticeRegister.js"
import { StorageError } from "../../ports/StorageError.js"
import { noticeRegisterOver } from "../memory/MemoryNoticeRegister.js"
import { writeFileAtomically } from "./atomicFile.js"
import { attempt } from "./fileIo.js"

const FILE = "notices.json"

export const FsNoticeRegisterLive = (directory: string) =>
  Layer.effect(NoticeRegister, Effect.gen(function*() {
    const path = join(directory, FILE)
    const text = yield* attempt("open notice register", path, async () => {
      await mkdir(directory, { recursive: true, mode: 0o700 })
      return readFile(path, "utf8").catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? "[]" : Promise.reject(e)))
    })
    const parsed = yield* Effect.try({
      try: () => JSON.parse(text) as Array<NoticeRecord>,
      catch: (cause) => new StorageError({ operation: "open notice register", detail: `${path} is not JSON`, cause })
    })
    const records = [...parsed]
    // Personal data: readable by the service's user only.
    const persist = Effect.suspend(() => writeFileAtomically(path, utf8(JSON.stringify(records)), 0o600))
    return noticeRegisterOver(records, persist)
  }))
