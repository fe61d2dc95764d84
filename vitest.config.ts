import { defineConfig } from "vitest/config"

// Tests run on the TypeScript sources; child-process tests (crash and durability) run the
// compiled `dist/` that `npm test` builds first, so they exercise what `npm start` runs.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } }
  }
})
