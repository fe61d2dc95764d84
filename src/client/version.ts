// The client's version: package.json's, found from this module whether it runs from src/
// (tests) or from dist/src/ (the installed command).

import { readFile } from "node:fs/promises"

export const clientVersion = async (): Promise<string> => {
  for (const up of ["../../package.json", "../../../package.json"]) {
    try {
      const json = JSON.parse(await readFile(new URL(up, import.meta.url), "utf8")) as { name?: unknown; version?: unknown }
      if (json.name === "aics" || typeof json.version === "string") return String(json.version)
    } catch {
      // Not at this level: try the next.
    }
  }
  return "unknown"
}
