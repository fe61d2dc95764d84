// The service imports @effect/platform and @effect/platform-node module by module
// ("@effect/platform/HttpApiBuilder"), never through their index. Node loads every module an
// index re-exports, and @effect/platform's carries the Scalar and Swagger documentation pages
// as JavaScript strings of 3-6 MiB each, which the service never serves: through the index
// they held 22 MiB of the event loop's heap for the life of the process (80 -> 58 MiB idle,
// RSS 284 -> 255 MiB) and cost 0.14 s of every start (bench/README.md "Session 20").
//
// Likewise the libraries only some deployments use are imported where they are used, when
// they are used (a dynamic import): viem for a network checked on chain, the MCP SDK at the
// first POST /mcp, the OTLP exporter with AICS_OTLP_URL. Statically imported by the start,
// they held 13.6 MiB of the idle heap (57.4 -> 43.8 MiB; bench/README.md "Session 22").
// PostgreSQL's driver and adapters likewise load only with AICS_DATABASE_URL
// (src/adapters/pg/PgServiceStores.ts; bench/README.md "Session 27").

import { readdirSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
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

/** The modules a file imports for their values when it is loaded (not `import type`, not `import()`). */
const staticImports = (text: string): Array<string> =>
  [...text.matchAll(/^(?:import|export)\s+(?!type\b)(?:[^;"']*?\sfrom\s+)?"([^"]+)"/gm)].map((match) => match[1]!)

/** The packages' modules loaded with `entry` ("effect/Either", "node:fs"), following its static imports through the source tree. */
const modulesLoadedWith = (entry: string): Set<string> => {
  const seen = new Set<string>()
  const modules = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    for (const specifier of staticImports(readFileSync(file, "utf8"))) {
      if (specifier.startsWith(".")) visit(join(dirname(file), specifier).replace(/\.js$/, ".ts"))
      else modules.add(specifier)
    }
  }
  visit(entry)
  return modules
}

/** The packages loaded with `entry`. */
const packagesLoadedWith = (entry: string): Set<string> =>
  new Set([...modulesLoadedWith(entry)].map((specifier) =>
    specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!))

describe("what the service loads at its start", () => {
  it("leaves out the libraries of features a deployment may not use", () => {
    const loaded = packagesLoadedWith("src/main.ts")
    // The walk sees the packages every start needs...
    for (const needed of ["effect", "@effect/platform", "better-sqlite3", "@noble/curves"]) expect(loaded, needed).toContain(needed)
    // ...and not these.
    for (const optional of ["viem", "@modelcontextprotocol/sdk", "@effect/opentelemetry", "zod", "pg", "@effect/sql-pg"]) expect(loaded, optional).not.toContain(optional)
  })
})

describe("what the file-writer thread loads", () => {
  it("is node's own modules only: Effect held about 14 MiB of that thread's heap (src/adapters/fs/missingFile.ts)", () => {
    const loaded = [...packagesLoadedWith("src/adapters/fs/fileWriterThread.ts")]
    expect(loaded.length).toBeGreaterThan(0)
    expect(loaded.filter((name) => !name.startsWith("node:"))).toEqual([])
  })
})

describe("what a write-check worker loads", () => {
  // Effect's index loads every module of the package (the runtime, streams, STM...): the
  // worker's heap was 57 MiB with it, 35 MiB with the modules the checks use (the domain's
  // data types and Schema; bench/README.md "Session 26").
  it("is Effect's data modules by name, not its index nor its runtime", () => {
    const loaded = [...modulesLoadedWith("src/adapters/workers/checkWorker.ts")]
    expect(loaded).toContain("effect/Schema")
    expect(loaded.filter((name) => name === "effect" || ["effect/Effect", "effect/Layer", "effect/Stream", "effect/Context"].includes(name))).toEqual([])
  })

  it("so the domain, which the checks run, names each Effect module it imports", () => {
    const offending = sourceFiles("src/domain").filter((file) => /from "effect"/.test(readFileSync(file, "utf8")))
    expect(offending).toEqual([])
  })
})
