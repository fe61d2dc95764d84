// The service imports @effect/platform and @effect/platform-node module by module
// ("@effect/platform/HttpApiBuilder"), never through their index. Node loads every module an
// index re-exports, and @effect/platform's carries the Scalar and Swagger documentation pages
// as JavaScript strings of 3-6 MiB each, which the service never serves: through the index
// they held 22 MiB of the event loop's heap for the life of the process (80 -> 58 MiB idle,
// RSS 284 -> 255 MiB) and cost 0.14 s of every start (bench/README.md "Session 20").

import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const INDEX_IMPORT = /from "@effect\/(platform|platform-node)"/

const sourceFiles = (folder: string): Array<string> =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith(".ts") ? [path] : []
  })

describe("imports of the platform packages", () => {
  it("name each module, not the package's index", () => {
    const files = [...sourceFiles("src"), ...sourceFiles("bench")]
    expect(files.length).toBeGreaterThan(100)
    const offending = files.filter((file) => INDEX_IMPORT.test(readFileSync(file, "utf8")))
    expect(offending).toEqual([])
  })
})
