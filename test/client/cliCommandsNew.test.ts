// The aics commands added for agents that do everything from a shell (issue 14 item 3),
// without a server: their arguments (optional and variadic ones), help for each, sign
// (no service needed), the terminal-only progress line, and the JSON of errors.

import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { nodeCrypto } from "../../src/adapters/crypto/nodeCrypto.js"
import { main } from "../../src/client/cli.js"
import { parseCommandLine } from "../../src/client/cliArgs.js"
import { gateTextOf } from "../../src/client/cliGate.js"
import { COMMANDS, COMMAND_USAGE } from "../../src/client/cliUsage.js"
import { readAgentKeyFile } from "../../src/client/keyFile.js"
import { terminalProgress } from "../../src/client/progress.js"
import { utf8 } from "../../src/domain/bytes.js"
import { decodeU64 } from "../../src/domain/encoding.js"

const run = async (argv: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  let out = ""
  let err = ""
  const code = await main(argv, env, { out: (t) => { out += t }, err: (t) => { err += t } })
  return { code, out, err }
}

describe("the new aics commands", () => {
  it("take optional and variadic arguments", () => {
    expect(parseCommandLine(["posts"]).args).toEqual([])
    expect(parseCommandLine(["posts", "general"]).args).toEqual(["general"])
    expect(() => parseCommandLine(["posts", "a", "b"])).toThrow(/aics posts takes \[channel\], got 2 arguments/)
    expect(parseCommandLine(["directory"]).args).toEqual([])
    expect(parseCommandLine(["poll", "create", "general", "Q?", "a", "b", "c", "--closes", "+60"]).args).toEqual(["create", "general", "Q?", "a", "b", "c"])
    expect(() => parseCommandLine(["poll", "create", "general", "Q?", "a"])).toThrow(/aics poll create takes <channel> <question> <option> <option> \[option...\], got 3/)
    expect(() => parseCommandLine(["vote", "1"])).toThrow(/aics vote takes <poll_index> <option>/)
    expect(parseCommandLine(["rotate", "-y"]).options.yes).toBe(true)
    expect(parseCommandLine(["--version"]).command).toBe("version")
  })

  it("has help for every command", async () => {
    for (const command of COMMANDS.filter((c) => c !== "help")) {
      expect(COMMAND_USAGE[command], command).toMatch(/^usage: aics /)
    }
    const general = (await run(["help"])).out
    for (const line of ["posts [channel]", "name <name>", "directory [query]", "poll create", "vote <poll_index> <option>", "me ", "sign <text>", "gate-line", "regrant", "--version"]) {
      expect(general, line).toContain(line)
    }
  })

  it("signs a gate text with the key file's key, the gate's whole line pasted or not", async () => {
    const dir = await mkdtemp(join(tmpdir(), "aics-sign-"))
    try {
      const keyPath = join(dir, "k.json")
      expect((await run(["keygen", "--key", keyPath])).code).toBe(0)
      const key = await readAgentKeyFile(keyPath)
      const answer = await run(["sign", "challenge {\"a\":1}", "--key", keyPath])
      expect(answer.code).toBe(0)
      const sig = /^prove (\S+)\n$/.exec(answer.out)![1]!
      expect(nodeCrypto.ed25519.sign(key.seed, utf8('{"a":1}'))).toEqual(decodeU64(sig))
      expect((await run(["sign", "sign xyz", "--key", keyPath])).out).toMatch(/^sig \S+\n$/)
      expect(JSON.parse((await run(["sign", "xyz", "--key", keyPath, "--json"])).out)).toMatchObject({ kid: key.kid })
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
    expect(gateTextOf("sign abc def")).toBe("abc def")
    expect(gateTextOf("challenge x")).toBe("x")
    expect(gateTextOf("other")).toBe("other")
  })

  it("answers errors in JSON on stdout with --json, and usage on stderr either way", async () => {
    const usage = await run(["vote", "1", "--json"])
    expect(usage.code).toBe(2)
    expect(JSON.parse(usage.out)).toEqual({ error: { kind: "usage", message: "aics vote takes <poll_index> <option>, got 1 argument", exit: 2 } })
    expect(usage.err).toMatch(/^usage error: /)
    const keyFile = await run(["me", "--key", "/nonexistent/k.json", "--vkey", "x", "--json"])
    expect(keyFile.code).not.toBe(0)
    expect(JSON.parse(keyFile.out).error.exit).toBe(keyFile.code)
  })

  it("shows progress only on a terminal, and clears it", () => {
    let written = ""
    let t = 0
    const tty = terminalProgress({ isTTY: true, write: (s: string) => (written += s) }, () => (t += 50), 100)
    for (let i = 0; i <= 10; i++) tty.progress("folding entries", i, 10)
    tty.end()
    expect(written).toContain("folding entries: 10 of 10 (100%)")
    expect(written.split("\r").length).toBeLessThan(12)
    expect(written.endsWith("\r\u001b[K")).toBe(true)
    let piped = ""
    const pipe = terminalProgress({ isTTY: false, write: (s: string) => (piped += s) })
    pipe.progress("x", 1, 2)
    pipe.end()
    expect(piped).toBe("")
  })
})
