import { defineConfig } from "vitest/config"

// Tests run on the TypeScript sources; child-process tests (crash and durability) run the
// compiled `dist/` that `npm test` builds first, so they exercise what `npm start` runs.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["./test/support/globalSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    reporters: ["default", "./test/support/summaryReporter.ts"]
  }
})
