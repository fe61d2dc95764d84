import { describe, expect, it } from "vitest"
import { withoutServerPaths } from "../../../src/domain/http/serverPaths.js"

describe("withoutServerPaths", () => {
  it("cuts absolute paths to their last two segments and leaves URLs and relative names alone", () => {
    expect(withoutServerPaths("open /srv/aics/data/log/entries/000: ENOSPC")).toBe("open …/entries/000: ENOSPC")
    expect(withoutServerPaths("ENOENT: no such file or directory, open '/tmp/aics-test-x/notices/register.json'"))
      .toBe("ENOENT: no such file or directory, open '…/notices/register.json'")
    expect(withoutServerPaths("see https://example.org/a/b/c and log/entries")).toBe("see https://example.org/a/b/c and log/entries")
    expect(withoutServerPaths("a/b and 3/4 and 1 / 2")).toBe("a/b and 3/4 and 1 / 2")
    expect(withoutServerPaths("/data")).toBe("…/data")
    expect(withoutServerPaths("(/var/lib/aics/bodies/ab.bin)")).toBe("(…/bodies/ab.bin)")
  })
})
