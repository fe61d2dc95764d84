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
      ["grant", /^usage: aics grant <name\|did:key\|\*> \[--limit N\] \[--until WHEN\][^]*--until WHEN +the grant ends at WHEN: Unix seconds \(not milliseconds\), or \+SECONDS/],
      ["revoke", /^usage: aics revoke <grant_index>/],
      ["dm", /^usage: aics dm <name> <text>/],
      ["inbox", /^usage: aics inbox \[--unread\]/],
      ["capsule", /^usage: aics capsule put <slot> <text>[^]*aics capsule get <slot>/],
      ["rotate", /^usage: aics rotate/],
      ["recover", /^usage: aics recover --recovery-key FILE/],
      ["audit", /^usage: aics audit log \[options\]\n       aics audit name <name>/],
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
      [["grant", "bob", "--until=-1", "--vkey", VKEY], /--until is Unix seconds \(an integer\) or "\+SECONDS" from now, got "-1"/],
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
      [["audit", "alice"], /aics audit takes "name" or "log" first, not "alice"/],
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

  it("parse --until as --closes and the MCP tools' times are (unixTime.ts): seconds or +SECONDS, milliseconds refused naming the unit", async () => {
    const nowMs = Date.now()
    const cases: Array<[ReadonlyArray<string>, RegExp]> = [
      // Milliseconds (what every `logged` time is): refused, saying what it is in seconds.
      [["grant", "bob", "--until", String(nowMs + 3_600_000)], /--until is in Unix SECONDS: \d+ would be after the year 9999 \(it looks like milliseconds: in seconds that is \d+\); now is \d+ in seconds, or give "\+SECONDS" from now/],
      [["grant", "bob", "--until", "+300000000000"], /--until is in Unix SECONDS: \d+ would be after the year 9999/],
      // Not a time at all, and a time gone by (a grant that would have ended already).
      [["grant", "bob", "--until", "tomorrow"], /--until is Unix seconds \(an integer\) or "\+SECONDS" from now, got "tomorrow"/],
      [["grant", "bob", "--until", "1.5e9"], /--until is Unix seconds \(an integer\) or "\+SECONDS" from now, got "1\.5e9"/],
      [["grant", "bob", "--until", "99999999999999999999"], /--until is Unix seconds \(an integer\)/],
      [["grant", "bob", "--until", "1"], /--until 1 \(1970-01-01T00:00:01\.000Z\) is not in the future: now is \d+ in Unix seconds/],
      [["grant", "bob", "--until", "+0"], /--until \d+ \(.*\) is not in the future/],
      // The owner's suspend --until alike, checked before the order file is read.
      [["admin", "suspend", "carol", "--order", "/nonexistent/order.txt", "--until", String(nowMs)], /--until is in Unix SECONDS: .*it looks like milliseconds/],
      [["admin", "suspend", "carol", "--order", "/nonexistent/order.txt", "--until", "soon"], /--until is Unix seconds \(an integer\) or "\+SECONDS" from now, got "soon"/]
    ]
    for (const [argv, message] of cases) {
      // A verifier key and an unreachable server: the time is refused before either is used.
      const r = await run([...argv, "--vkey", VKEY, "--server", "http://127.0.0.1:9"], { AICS_KEY: "/nonexistent/k.json" })
      expect(r.code, argv.join(" ")).toBe(2)
      expect(r.err, argv.join(" ")).toMatch(/^usage error: /)
      expect(r.err, argv.join(" ")).toMatch(message)
      expect(r.err.trimEnd().split("\n")).toHaveLength(1)
      expect(r.out).toBe("")
    }
    // Accepted forms get past the parse: the next thing to fail is the missing key file (status 1), not the time.
    for (const until of ["+3600", String(Math.floor(nowMs / 1000) + 3600)]) {
      const r = await run(["grant", "bob", "--until", until, "--key", "/nonexistent/k.json", "--vkey", VKEY, "--server", "http://127.0.0.1:9"])
      expect(r.err, until).not.toMatch(/usage error/)
      expect(r.code, until).toBe(1)
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
