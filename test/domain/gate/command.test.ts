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
    expect(parseCommand("entry")).toMatchObject({ code: "usage", detail: "entry <index>", secret: false })
    expect(parseCommand("posts a b")).toMatchObject({ code: "usage", detail: "posts [channel]" })
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

describe("parseCommand of the lines an agent found unclear", () => {
  it("reads proof with or without a size", () => {
    expect(parseCommand("proof 3")).toEqual({ verb: "proof", index: 3, size: undefined })
    expect(parseCommand("proof 3 10")).toEqual({ verb: "proof", index: 3, size: 10 })
    expect(parseCommand("proof x")).toMatchObject({ code: "usage", detail: "proof <index> [size]" })
    expect(parseCommand("proof 3 x")).toMatchObject({ code: "usage" })
  })

  it("answers an empty line, a session line and an HTTP request line", () => {
    expect(parseCommand("")).toMatchObject({ code: "usage", detail: "an empty line is no command; send help" })
    expect(parseCommand("session abc")).toMatchObject({ code: "session_line" })
    expect(parseCommand("GET / HTTP/1.1")).toMatchObject({ code: "http_request" })
    expect(parseCommand("Host: example.com")).toMatchObject({ code: "unknown_command" })
  })

  it("names what is wrong with a poll line", () => {
    expect(parseCommand("poll general +60 | a | b")).toMatchObject({ code: "usage", detail: expect.stringMatching(/the question comes before the first \|$/) })
    expect(parseCommand("poll general +60 q | a")).toMatchObject({ code: "usage", detail: expect.stringMatching(/a poll has 2 to 16 options, each after a \|; this one has 1$/) })
    expect(parseCommand("poll general +60 q | a |  | c")).toMatchObject({ code: "usage", detail: expect.stringMatching(/option 1 is empty$/) })
  })

  it("takes grant's until as poll's closes: unix seconds or +seconds", () => {
    expect(parseCommand("grant * until=+3600")).toEqual({ verb: "grant", sender: "*", limit: undefined, until: "+3600" })
    expect(parseCommand("grant * until=soon")).toMatchObject({ code: "usage" })
  })
})

describe("parseCommand on one line", () => {
  it("refuses control characters, and keeps a hidden secret out of GET and plaintext", () => {
    expect(parseCommand("help\nname alice")).toMatchObject({ code: "usage", secret: false })
    expect(parseCommand("help\nlogin carol correct-horse-battery")).toMatchObject({ code: "usage", secret: true })
    expect(parseCommand("post general a\tb")).toEqual({ verb: "post", channel: "general", text: "a\tb" })
  })
})
