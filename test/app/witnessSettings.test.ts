// AICS_WITNESS_LOGS, AICS_WITNESSES, AICS_WITNESS_QUORUM and AICS_WITNESS_NAME as the service reads them.

import { ConfigProvider, Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { witnessingConfig } from "../../src/app/witnessSettings.js"

const read = (env: Record<string, string>) =>
  Effect.runSync(Effect.either(witnessingConfig("aics.example").pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))))

const LOG = "a.example/log+12345678+AbCd"
const WITNESS = "w.example/w1+abcdef01+BAbC"

describe("witnessing settings", () => {
  it("defaults to no witnessing under <domain>/witness", () => {
    expect(Either.getOrThrow(read({}))).toEqual({ name: "aics.example/witness", logs: [], witnesses: [], quorum: 0 })
  })

  it("reads logs with or without an origin, witnesses with a URL, and a quorum", () => {
    const s = Either.getOrThrow(read({
      AICS_WITNESS_LOGS: `${LOG}, other.example/x ${LOG}`,
      AICS_WITNESSES: `https://w.example/ ${WITNESS},http://127.0.0.1:9 ${WITNESS}`,
      AICS_WITNESS_QUORUM: "1"
    }))
    expect(s.logs).toEqual([{ origin: "a.example/log", vkey: LOG }, { origin: "other.example/x", vkey: LOG }])
    expect(s.witnesses).toEqual([{ url: "https://w.example", vkey: WITNESS }, { url: "http://127.0.0.1:9", vkey: WITNESS }])
    expect(s.quorum).toBe(1)
    expect(Either.getOrThrow(read({ AICS_WITNESSES: `https://w.example ${WITNESS}` })).quorum).toBe(1)
  })

  it.each([
    [{ AICS_WITNESS_LOGS: "not a key" }, "AICS_WITNESS_LOGS"],
    [{ AICS_WITNESS_LOGS: `${LOG},${LOG}` }, "twice"],
    [{ AICS_WITNESSES: WITNESS }, "AICS_WITNESSES"],
    [{ AICS_WITNESSES: `ftp://x ${WITNESS}` }, "http"],
    [{ AICS_WITNESSES: `https://w.example ${WITNESS}`, AICS_WITNESS_QUORUM: "2" }, "AICS_WITNESS_QUORUM"],
    [{ AICS_WITNESS_NAME: "a+b" }, "AICS_WITNESS_NAME"]
  ])("refuses %j", (env, word) => {
    const result = read(env as Record<string, string>)
    expect(Either.isLeft(result) && String(result.left)).toContain(word)
  })
})
