// The gate's command language (src/domain/gate/command.ts; docs/protocol.md 17.2).

import { describe, expect, it } from "vitest"
import { parseCommand } from "../../../src/domain/gate/command.js"

const KID = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"

describe("parseCommand", () => {
  it("reads every verb with its arguments", () => {
    expect(parseCommand("help")).toEqual({ verb: "help" })
    expect(parseCommand("  HELP \r")).toEqual({ verb: "help" })
    expect(parseCommand("checkpoint")).toEqual({ verb: "checkpoint" })
    expect(parseCommand("entry 12")).toEqual({ verb: "entry", index: 12 })
    expect(parseCommand("name alice")).toEqual({ verb: "name", name: "alice" })
    expect(parseCommand(`key ${KID}`)).toEqual({ verb: "key", kid: KID })
    expect(parseCommand("posts")).toEqual({ verb: "posts", channel: undefined })
    expect(parseCommand("posts general")).toEqual({ verb: "posts", channel: "general" })
    expect(parseCommand("directory")).toEqual({ verb: "directory", q: undefined })
    expect(parseCommand("directory al ice")).toEqual({ verb: "directory", q: "al ice" })
    expect(parseCommand(`identify ${KID}`)).toEqual({ verb: "identify", kid: KID })
    expect(parseCommand("prove c2ln")).toEqual({ verb: "prove", sig: "c2ln" })
    expect(parseCommand("claim alice AAAA")).toEqual({ verb: "claim", name: "alice", x25519: "AAAA" })
    expect(parseCommand("sig c2ln")).toEqual({ verb: "sig", sig: "c2ln" })
    expect(parseCommand("claim alice secret correct-horse-battery")).toEqual({ verb: "claim-secret", name: "alice", secret: "correct-horse-battery" })
    expect(parseCommand("claim alice secret correct-horse-battery work=1800000000.AAAA"))
      .toEqual({ verb: "claim-secret", name: "alice", secret: "correct-horse-battery", work: "work=1800000000.AAAA" })
    expect(parseCommand("login alice correct-horse-battery")).toEqual({ verb: "login", name: "alice", secret: "correct-horse-battery" })
    expect(parseCommand("whoami")).toEqual({ verb: "whoami" })
    expect(parseCommand("quit")).toEqual({ verb: "quit" })
  })

  it("keeps a post's text as typed after the channel, inner spaces included", () => {
    expect(parseCommand("post general hello,  agents: {json} too")).toEqual({ verb: "post", channel: "general", text: "hello,  agents: {json} too" })
  })

  it("takes a line starting with { as a signed request, verbatim", () => {
    const line = '{"envelope":{"v":"AICS-1"},"body":null}'
    expect(parseCommand(line)).toEqual({ verb: "submit", json: line })
  })

  it("answers a usage error naming the expected form", () => {
    expect(parseCommand("entry")).toMatchObject({ code: "usage", detail: "usage: entry <index>", secret: false })
    expect(parseCommand("entry -1")).toMatchObject({ code: "usage" })
    expect(parseCommand("entry 01")).toMatchObject({ code: "usage" })
    expect(parseCommand("claim alice")).toMatchObject({ code: "usage", secret: true })
    expect(parseCommand("name")).toMatchObject({ code: "usage", secret: false })
    expect(parseCommand("post general")).toMatchObject({ code: "usage" })
    expect(parseCommand("help me")).toMatchObject({ code: "usage" })
    expect(parseCommand("frobnicate")).toMatchObject({ code: "unknown_command", detail: '"frobnicate" is no command; send help' })
  })

  it("marks every malformed line that carries a secret, and checks the secret's form", () => {
    expect(parseCommand("claim alice secret short")).toEqual({ code: "secret_invalid", detail: "a secret is 16 to 256 characters", secret: true })
    expect(parseCommand("claim alice secret a b")).toMatchObject({ code: "usage", secret: true })
    expect(parseCommand(`claim alice secret ${"x".repeat(257)}`)).toMatchObject({ code: "secret_invalid", secret: true })
    expect(parseCommand("login alice")).toMatchObject({ code: "usage", secret: true })
    expect(parseCommand(`upgrade ${KID} correct-horse-battery`)).toEqual({ verb: "upgrade", kid: KID, secret: "correct-horse-battery" })
    expect(parseCommand(`upgrade ${KID}`)).toMatchObject({ code: "usage", secret: true })
    expect(parseCommand(`upgrade ${KID} short`)).toMatchObject({ code: "secret_invalid", secret: true })
  })

  it("separates arguments by tabs and Unicode spaces too, so no separator hides a secret", () => {
    expect(parseCommand("login\talice\tcorrect-horse-battery")).toEqual({ verb: "login", name: "alice", secret: "correct-horse-battery" })
    expect(parseCommand("claim\u00a0alice\u2003secret\u3000correct-horse-battery"))
      .toEqual({ verb: "claim-secret", name: "alice", secret: "correct-horse-battery" })
    expect(parseCommand("post\u00a0general\u00a0hi")).toEqual({ verb: "post", channel: "general", text: "hi" })
  })

  it("flags any line whose first word starts with login, claim or upgrade, and echoes only plain verbs", () => {
    const glued = parseCommand("loginalice\u2028correct-horse-battery")
    expect(glued).toMatchObject({ code: "unknown_command", secret: true, detail: "that is no command; send help" })
    expect(JSON.stringify(glued)).not.toContain("correct-horse-battery")
    expect(parseCommand("claimalice:correct-horse-battery")).toMatchObject({ code: "unknown_command", secret: true, detail: "that is no command; send help" })
    expect(parseCommand("Ünicode")).toMatchObject({ code: "unknown_command", detail: "that is no command; send help" })
    expect(parseCommand(`${"a".repeat(21)}`)).toMatchObject({ code: "unknown_command", detail: "that is no command; send help" })
  })
})

describe("parseCommand on one line", () => {
  it("refuses control characters, and keeps a hidden secret out of GET and plaintext", () => {
    expect(parseCommand("help\nname alice")).toMatchObject({ code: "usage", secret: false })
    expect(parseCommand("help\nlogin carol correct-horse-battery")).toMatchObject({ code: "usage", secret: true })
    expect(parseCommand("post general a\tb")).toEqual({ verb: "post", channel: "general", text: "a\tb" })
  })
})
