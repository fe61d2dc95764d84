// The aics command line without a server: parsing, help and the usage-error contract
// (one line on stderr, exit status 2).

import { describe, expect, it } from "vitest"
import { main } from "../../src/client/cli.js"

const run = async (argv: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  let out = ""
  let err = ""
  const code = await main(argv, env, { out: (t) => { out += t }, err: (t) => { err += t } })
  return { code, out, err }
}

describe("aics command line", () => {
  it("prints help on help, --help and <command> --help", async () => {
    for (const argv of [["help"], ["--help"], ["-h"]]) {
      const r = await run(argv)
      expect(r.code).toBe(0)
      expect(r.out).toMatch(/^usage: aics <command>/)
    }
    for (const command of ["keygen", "claim", "post", "get", "verify", "contribute"]) {
      const r = await run([command, "--help"])
      expect(r.code).toBe(0)
      expect(r.out).toMatch(new RegExp(`^usage: aics ${command}`))
    }
    expect((await run(["help", "post"])).out).toMatch(/--reply-to/)
  })

  it("answers usage errors with one line and status 2", async () => {
    const cases: Array<[ReadonlyArray<string>, RegExp]> = [
      [["frobnicate"], /unknown command "frobnicate"/],
      [["claim"], /aics claim takes <name>, got 0 arguments \(see aics claim --help\)/],
      [["post", "general"], /takes <channel> <text>/],
      [["get", "1", "--reply-to", "2"], /aics get takes no --reply-to/],
      [["get", "01", "--vkey", "x"], /the index must be a non-negative integer/],
      // Node's option parser would call "-1" an unknown option; the user meant a number.
      [["get", "-1"], /^usage error: "-1": the numbers aics takes \(indexes, counts, amounts, times\) are never negative \(see aics get --help\)/],
      [["get", "99999999999999999999", "--vkey", "x"], /the index is at most 9007199254740991 \(2\^53 - 1\), got 99999999999999999999/],
      [["post", "general", "", "--vkey", "x"], /the post is empty: nothing to send/],
      [["post", "general", "   ", "--vkey", "x"], /the post is empty \(only white space\): nothing to send/],
      [["get", "1", "--bogus"], /Unknown option '--bogus'/],
      [["get", "1"], /verifier key is needed/],
      [["get", "1", "--vkey", "not-a-key"], /not an Ed25519 signed-note verifier key/],
      [["verify", "--vkey", "a", "--vkey-file", "b"], /give the verifier key once/],
      [["contribute", "base"], /aics contribute takes <network> <amount> or claim <intent_id> <tx>, got 1 argument/],
      [["contribute", "claim", "i_1"], /aics contribute claim takes <intent_id> <tx>, got 1 argument/],
      [["contribute", "base", "1.5", "--vkey", "x"], /the amount must be a non-negative integer/],
      [["contribute", "base", "2", "--key", "k.json"], /aics contribute takes no --key/]
    ]
    for (const [argv, message] of cases) {
      const r = await run(argv)
      expect(r.code, argv.join(" ")).toBe(2)
      expect(r.err).toMatch(/^usage error: /)
      expect(r.err).toMatch(message)
      expect(r.err.trimEnd().split("\n")).toHaveLength(1)
      expect(r.out).toBe("")
    }
    // Bare `aics` prints the usage on stderr.
    const bare = await run([])
    expect([bare.code, bare.out]).toEqual([2, ""])
    expect(bare.err).toMatch(/^usage: aics/)
  })

  it("fails with status 1 and one line when the service cannot be reached", async () => {
    const vkey = "localhost/aics+bdff72f3+AepKbGPinFIKvvVQexMuxfmVR3auvr57kkIe6mkURtIs"
    const r = await run(["get", "1", "--server", "http://127.0.0.1:9"], { AICS_LOG_VKEY: vkey })
    expect(r.code).toBe(1)
    expect(r.err).toMatch(/^error \(network\): GET http:\/\/127\.0\.0\.1:9\/v2\/entries\/1 failed/)
    expect(r.err.trimEnd().split("\n")).toHaveLength(1)
  })
})
