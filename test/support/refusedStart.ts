// What a test of a refused start checks (README: a start that cannot work prints one line
// naming the cause and creates nothing): the one refusal line, and the data folder's files
// before and after.

import { readdir, readFile } from "node:fs/promises"
import { join } from "node:path"
import { expect } from "vitest"

/** The data folder's files and their bytes (but for those `skip` names): what a refused start must leave as they were. */
export const folderState = async (dataDir: string, skip: (name: string) => boolean = () => false) => {
  const files: Record<string, string> = {}
  for (const entry of await readdir(dataDir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && !skip(entry.name)) files[join(entry.parentPath, entry.name)] = await readFile(join(entry.parentPath, entry.name), "base64")
  }
  return files
}

/** The one `aics: cannot start:` line of a refused start. */
export const refusalLine = (result: { code: number | null; output: string }) => {
  expect(result.code, result.output).toBe(1)
  const lines = result.output.trim().split("\n").filter((line) => line.startsWith("aics: cannot start:"))
  expect(lines, result.output).toHaveLength(1)
  return lines[0]!
}
