// The `_aics.<domain>` TXT record that publishes the log key out of band
// (src/domain/note/dnsRecord.ts): how the operator writes it and how a client reads it.

import { describe, expect, it } from "vitest"
import { dnsRecordName, dnsRecordText, logVkeyOfTxtRecords } from "../../../src/domain/note/dnsRecord.js"

const VKEY = "example.test/aics+bdff72f3+AepKbGPinFIKvvVQexMuxfmVR3auvr57kkIe6mkURtIs"
const OTHER = "example.test/aics+01020304+AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA="

describe("the _aics TXT record", () => {
  it("is named for the instance domain and written as v=aics1 log=<vkey>", () => {
    expect(dnsRecordName("example.test")).toBe("_aics.example.test")
    expect(dnsRecordName("example.test.")).toBe("_aics.example.test")
    expect(dnsRecordText(VKEY)).toBe(`v=aics1 log=${VKEY}`)
    expect(logVkeyOfTxtRecords([[dnsRecordText(VKEY)]])).toEqual({ _tag: "Found", logVkey: VKEY })
  })

  it("joins a record's strings, ignores other records and unknown members", () => {
    expect(logVkeyOfTxtRecords([["v=spf1 -all"], ["v=aics1 lo", `g=${VKEY} witness=x`]])).toEqual({ _tag: "Found", logVkey: VKEY })
    // The same key in two records is one key.
    expect(logVkeyOfTxtRecords([[dnsRecordText(VKEY)], [`v=aics1  log=${VKEY} `]])).toEqual({ _tag: "Found", logVkey: VKEY })
  })

  it("says why it names no key: no record, no log member, two keys", () => {
    expect(logVkeyOfTxtRecords([])).toEqual({ _tag: "Missing", reason: 'no TXT record starting "v=aics1"' })
    expect(logVkeyOfTxtRecords([["v=aics2 log=x"], ["aics1 log=x"]])).toMatchObject({ _tag: "Missing", reason: 'no TXT record starting "v=aics1"' })
    expect(logVkeyOfTxtRecords([["v=aics1 witness=x"]])).toEqual({ _tag: "Missing", reason: 'a "v=aics1" record has no log=<verifier key>' })
    expect(logVkeyOfTxtRecords([["v=aics1 log="]])).toMatchObject({ _tag: "Missing" })
    expect(logVkeyOfTxtRecords([[dnsRecordText(VKEY)], [dnsRecordText(OTHER)]])).toEqual({ _tag: "Missing", reason: 'the "v=aics1" records name 2 different log keys' })
  })
})
