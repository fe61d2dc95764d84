// The aics commands of messaging, capsules, keys and audit without a server: help, and the
// usage-error contract (one line on stderr, exit status 2, nothing on stdout), checked
// before any key file, verifier key or network is touched.

import { describe, expect, it } from "vitest"
import { main } from "../../src/client/cli.js"

const run = async (argv: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  let out = ""
  let err = ""
  const code = await main(argv, env, { out: (t) => { out += t }, err: (t) => { err += t } })
  return { code, out, err }
}

const VKEY = "localhost/aics+bdff72f3+AepKbGPinFIKvvVQexMuxfmVR3auvr57kkIe6mkURtIs"

describe("aics messaging, capsule, key and audit commands", () => {
  it("print their help", async () => {
    const expectations: Array<[string, RegExp]> = [
      ["grant", /^usage: aics grant <name\|did:key\|\*> \[--limit N\] \[--until UNIX\]/],
      ["revoke", /^usage: aics revoke <grant_index>/],
      ["dm", /^usage: aics dm <name> <text>/],
      ["inbox", /^usage: aics inbox \[--unread\]/],
      ["capsule", /^usage: aics capsule put <slot> <text>[^]*aics capsule get <slot>/],
      ["rotate", /^usage: aics rotate/],
      ["recover", /^usage: aics recover --recovery-key FILE/],
      ["audit", /^usage: aics audit name <name>/],
      ["claim", /--recovery KID/]
    ]
    for (const [command, usage] of expectations) {
      const r = await run([command, "--help"])
      expect([r.code, r.err], command).toEqual([0, ""])
      expect(r.out).toMatch(usage)
      expect((await run(["help", command])).out).toBe(r.out)
    }
    const general = (await run(["help"])).out
    for (const command of ["grant", "revoke", "dm", "inbox", "capsule put", "rotate", "recover", "audit name"]) {
      expect(general).toContain(`  ${command}`)
    }
    // --help needs no arguments, not even the required option.
    expect((await run(["recover", "--help"])).code).toBe(0)
    expect((await run(["capsule", "--help"])).code).toBe(0)
  })

  it("answer usage errors with one line and status 2", async () => {
    const cases: Array<[ReadonlyArray<string>, RegExp]> = [
      [["grant"], /aics grant takes <sender>, got 0 arguments \(see aics grant --help\)/],
      [["grant", "bob", "--limit", "ten", "--vkey", VKEY], /--limit must be a non-negative integer, got "ten"/],
      [["grant", "bob", "--until", "-1", "--vkey", VKEY], /"-1": the numbers aics takes \(indexes, counts, amounts, times\) are never negative/],
      [["revoke", "-3"], /"-3": the numbers aics takes .* are never negative/],
      [["revoke", "18446744073709551616", "--vkey", VKEY], /the grant index is at most 9007199254740991 \(2\^53 - 1\), got 18446744073709551616/],
      [["dm", "bob", "", "--vkey", VKEY], /the message is empty: nothing to send/],
      [["dm", "bob", " \n ", "--vkey", VKEY], /the message is empty \(only white space\): nothing to send/],
      [["grant", "bob", "--until=-1", "--vkey", VKEY], /--until must be a non-negative integer, got "-1"/],
      [["grant", "bob", "--unread"], /aics grant takes no --unread/],
      [["revoke"], /aics revoke takes <grant_index>/],
      [["revoke", "x1", "--vkey", VKEY], /the grant index must be a non-negative integer, got "x1"/],
      [["dm", "bob"], /aics dm takes <name> <text>, got 1 argument/],
      [["dm", "bob", "hi", "--limit", "1"], /aics dm takes no --limit/],
      [["inbox", "extra"], /aics inbox takes no arguments, got 1 argument/],
      [["inbox", "--recovery", "x"], /aics inbox takes no --recovery/],
      [["capsule"], /aics capsule takes "put" or "get" first \(see aics capsule --help\)/],
      [["capsule", "open", "s"], /aics capsule takes "put" or "get" first, not "open"/],
      [["capsule", "put", "slot"], /aics capsule put takes <slot> <text>, got 1 argument/],
      [["capsule", "get"], /aics capsule get takes <slot>, got 0 arguments/],
      [["capsule", "get", "a", "b"], /aics capsule get takes <slot>, got 2 arguments/],
      [["rotate", "alice"], /aics rotate takes no arguments/],
      [["rotate", "--recovery-key", "r.json"], /aics rotate takes no --recovery-key/],
      [["recover"], /aics recover needs --recovery-key/],
      [["recover", "--recovery", "x"], /aics recover takes no --recovery/],
      [["audit", "alice"], /aics audit takes "name" first, not "alice"/],
      [["audit", "name"], /aics audit name takes <name>, got 0 arguments/],
      [["audit", "name", "alice", "--key", "k.json"], /aics audit takes no --key/],
      [["claim", "alice", "--recovery"], /argument missing/],
      [["dm", "bob", "hi"], /verifier key is needed/],
      [["grant", "not a name!", "--vkey", VKEY, "--server", "http://127.0.0.1:9"], /"not a name!" is not a valid name/]
    ]
    for (const [argv, message] of cases) {
      const r = await run(argv)
      expect(r.code, argv.join(" ")).toBe(2)
      expect(r.err, argv.join(" ")).toMatch(/^usage error: /)
      expect(r.err, argv.join(" ")).toMatch(message)
      expect(r.err.trimEnd().split("\n")).toHaveLength(1)
      expect(r.out).toBe("")
    }
  })

  it("read a missing key file as a key file error (status 1) before any write", async () => {
    const r = await run(["dm", "bob", "hi", "--key", "/nonexistent/aics-key.json", "--server", "http://127.0.0.1:9"], { AICS_LOG_VKEY: VKEY })
    expect(r.code).toBe(1)
    expect(r.err).toMatch(/^error \(key file\): no key file at \/nonexistent\/aics-key\.json/)
  })

  it("fail with status 1 and one line when the service cannot be reached", async () => {
    for (const argv of [["audit", "name", "alice"], ["grant", "*", "--key", "/nonexistent/k.json"]]) {
      const r = await run([...argv, "--server", "http://127.0.0.1:9"], { AICS_LOG_VKEY: VKEY })
      expect(r.code, argv.join(" ")).toBe(1)
      expect(r.err.trimEnd().split("\n")).toHaveLength(1)
    }
  })
})
