// Prints one plain closing line, "tests: N passed, N failed, N skipped", after vitest's own
// summary, so that CI tools that read only a generic closing line count the tests too.

import type { Reporter, TestModule } from "vitest/node"

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    let passed = 0
    let failed = 0
    let skipped = 0
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === "passed") passed++
        else if (state === "failed") failed++
        else skipped++
      }
      // A module that failed to load has no tests to count but is still a failure.
      if (module.state() === "failed" && [...module.children.allTests()].length === 0) failed++
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`)
  }
}
