// Contribution intents on the filesystem: one append-only file of JSON lines, each an
// intent or the credit of one, appended and fdatasynced before the call returns (so an
// intent answered 201 survives a crash). Opening replays the file. A crash mid-append can
// leave a last line cut short; that change was never acknowledged, so the line is
// ignored and ended with a newline before the next append. Intents hold no personal data
// (a public name, an amount), and are few, so the file is never compacted.

import { constants } from "node:fs"
import { mkdir, open, readFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { utf8 } from "../../domain/bytes.js"
import { ContributionIntents } from "../../ports/ContributionIntents.js"
import { applyIntentChange, contributionIntentsOver, emptyIntentMaps, type IntentChange } from "../memory/MemoryContributionIntents.js"
import { attempt, writeFully } from "./fileIo.js"

const FILE = "intents.jsonl"

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
    const path = join(directory, FILE)
    const text = yield* attempt("open contribution intents", path, async () => {
      await mkdir(directory, { recursive: true, mode: 0o700 })
      return readFile(path, "utf8").catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? "" : Promise.reject(e)))
    })
    const maps = emptyIntentMaps()
    const lines = text.split("\n")
    // The last element is "" after a final newline, or a torn line: either way not a change.
    for (const line of lines.slice(0, -1)) {
      const change = parseLine(line)
      if (change !== undefined) applyIntentChange(maps, change)
    }
    const handle = yield* attempt("open contribution intents", path, () => open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND, 0o600))
    yield* Effect.addFinalizer(() => Effect.promise(() => handle.close()))
    let size = (yield* attempt("stat contribution intents", path, () => handle.stat())).size
    if (text.length > 0 && !text.endsWith("\n")) {
      yield* attempt("write contribution intents", path, () => writeFully(handle, utf8("\n"), size))
      size += 1
    }
    const persist = (change: IntentChange) => {
      const line = utf8(JSON.stringify(change) + "\n")
      return Effect.tap(attempt("write contribution intents", path, async () => {
        await writeFully(handle, line, size)
        await handle.datasync()
      }), () => { size += line.length })
    }
    return contributionIntentsOver(maps, persist)
  }))
