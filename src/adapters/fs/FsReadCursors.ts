// Read cursors on the filesystem: one append-only file of lines "<kid> <index>\n", the last
// line of a kid winning. An advance appends its line and fdatasyncs before it returns, so a
// cursor never moves back after a restart. Opening replays the file. A crash mid-append can
// leave a last line cut short: cutting the end of "<kid> <index>" leaves either no index
// (ignored) or a prefix of the index, a smaller number that the maximum rule makes harmless
// (that advance was never acknowledged). When the file holds four
// times more lines than there are keys it is rewritten with one line per key (temp file,
// fsync, rename, fsync the folder), so it stays proportional to the number of readers.

import { constants } from "node:fs"
import { mkdir, open, readFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { utf8 } from "../../domain/bytes.js"
import { ReadCursors } from "../../ports/ReadCursors.js"
import { replaceFile } from "./atomicFile.js"
import { attempt, writeFully } from "./fileIo.js"

const FILE = "read-cursors"
const LINE = /^(\S+) (0|[1-9][0-9]*)$/

export const FsReadCursorsLive = (directory: string) =>
  Layer.scoped(ReadCursors, Effect.gen(function*() {
    const path = join(directory, FILE)
    const cursors = new Map<string, number>()
    let lines = 0
    const text = yield* attempt("open read cursors", path, async () => {
      await mkdir(directory, { recursive: true })
      return readFile(path, "utf8").catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? "" : Promise.reject(e)))
    })
    for (const line of text.split("\n")) {
      const match = LINE.exec(line)
      if (match === null) continue
      cursors.set(match[1]!, Math.max(cursors.get(match[1]!) ?? -1, Number(match[2])))
      lines++
    }

    let handle = yield* attempt("open read cursors", path, () => open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND, 0o644))
    yield* Effect.addFinalizer(() => Effect.promise(() => handle.close()))
    // A torn last line (no newline) would glue onto the next append: end it first.
    let size = (yield* attempt("stat read cursors", path, () => handle.stat())).size
    if (text.length > 0 && !text.endsWith("\n")) {
      yield* attempt("write read cursors", path, () => writeFully(handle, utf8("\n"), size))
      size += 1
    }
    const lock = yield* Effect.makeSemaphore(1)

    const compact = attempt("compact read cursors", path, async () => {
      const body = [...cursors].map(([kid, index]) => `${kid} ${index}\n`).join("")
      await replaceFile(path, utf8(body), 0o644)
      await handle.close()
      handle = await open(path, constants.O_WRONLY | constants.O_APPEND)
      size = Buffer.byteLength(body)
      lines = cursors.size
    })

    return {
      get: (kid) => Effect.sync(() => cursors.get(kid) ?? -1),
      advance: (kid, index) =>
        lock.withPermits(1)(Effect.gen(function*() {
          if (index <= (cursors.get(kid) ?? -1)) return
          const line = utf8(`${kid} ${index}\n`)
          yield* attempt("write read cursors", path, async () => {
            await writeFully(handle, line, size)
            await handle.datasync()
          })
          size += line.length
          lines++
          cursors.set(kid, index)
          if (lines > 4 * cursors.size + 64) yield* compact
        }))
    }
  }))
