// Contribution intents on the filesystem: one file of JSON lines, each an intent or the
// credit of one, written at the file's committed end and fdatasynced before the call
// returns (so an intent answered 201 survives a crash). Opening replays the file.
//
// As FsLogStore's files (logFiles.ts), the file is opened without O_APPEND and every line
// is written by position at the committed end: bytes a failed or torn write left behind
// are cut off (truncated back at once, else before the next write) or overwritten, never
// merged with the next line. A crash mid-write can leave a last line cut short; that
// change was never acknowledged, so opening drops it. The folder and the file's name are
// fsynced before the first line is written. Intents hold no personal data (a public name,
// an amount), and are few, so the file is never compacted.

import { constants } from "node:fs"
import { mkdir, open, readFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { utf8 } from "../../domain/bytes.js"
import { ContributionIntents } from "../../ports/ContributionIntents.js"
import { applyIntentChange, contributionIntentsOver, emptyIntentMaps, type IntentChange } from "../memory/MemoryContributionIntents.js"
import { durableStoreRoot } from "./durableStoreRoot.js"
import { attempt, syncFolder, writeFully } from "./fileIo.js"

const FILE = "intents.jsonl"
const NEWLINE = 0x0a

const parseLine = (line: string): IntentChange | undefined => {
  try {
    const value = JSON.parse(line) as Record<string, unknown>
    return typeof value === "object" && value !== null && ("intent" in value || "credit" in value) ? value as IntentChange : undefined
  } catch {
    return undefined
  }
}

export const FsContributionIntentsLive = (directory: string) =>
  Layer.scoped(ContributionIntents, Effect.gen(function*() {
    yield* attempt("mkdir", directory, () => mkdir(directory, { recursive: true, mode: 0o700 }))
    const { root } = yield* durableStoreRoot(directory)
    const path = join(root, FILE)
    const handle = yield* Effect.acquireRelease(
      attempt("open contribution intents", path, () => open(path, constants.O_RDWR | constants.O_CREAT, 0o600)),
      (h) => attempt("close", path, () => h.close()).pipe(Effect.ignore)
    )
    // The file's name is durable before any line in it is.
    yield* attempt("fsync", root, () => syncFolder(root))
    const bytes = yield* attempt("read contribution intents", path, () => readFile(path))
    // Whole lines end at the last newline; anything after it is a torn, unacknowledged write.
    let size = bytes.lastIndexOf(NEWLINE) + 1
    const maps = emptyIntentMaps()
    for (const line of bytes.subarray(0, size).toString("utf8").split("\n").slice(0, -1)) {
      const change = parseLine(line)
      if (change !== undefined) applyIntentChange(maps, change)
    }
    // Set when the bytes after `size` may not be the file's end (a failed write, a torn tail).
    let ragged = bytes.length > size
    const cutBack = attempt("truncate contribution intents", path, async () => {
      await handle.truncate(size)
      await handle.datasync()
      ragged = false
    })
    if (ragged) yield* cutBack

    const persist = (change: IntentChange) =>
      Effect.gen(function*() {
        if (ragged) yield* cutBack
        const line = utf8(JSON.stringify(change) + "\n")
        yield* attempt("write contribution intents", path, async () => {
          await writeFully(handle, line, size)
          await handle.datasync()
        }).pipe(Effect.tapError(() => {
          ragged = true
          return Effect.ignore(cutBack)
        }))
        size += line.length
      })
    return contributionIntentsOver(maps, persist)
  }))
