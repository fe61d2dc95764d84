// Builds dist/ once before the tests: child-process tests (servers, crash and durability
// tests) run the compiled JavaScript that `npm start` runs, never a stale copy.

import { execFileSync } from "node:child_process"

export default function setup() {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" })
}
