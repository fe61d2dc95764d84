// `--vkey-dns <domain>`: the log key read from the `_aics.<domain>` TXT record, through
// node:dns's resolver asking a real DNS server (test/support/dnsServer.ts) over UDP.

import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { loadVkey } from "../../src/client/vkey.js"
import { ClientError } from "../../src/client/errors.js"
import { type DnsServer, startDnsServer } from "../support/dnsServer.js"

const VKEY = "localhost/aics+bdff72f3+AepKbGPinFIKvvVQexMuxfmVR3auvr57kkIe6mkURtIs"
let dns: DnsServer

beforeAll(async () => {
  dns = await startDnsServer(new Map([
    ["_aics.example.test", [["v=spf1 -all"], ["v=aics1 log=", VKEY]]],
    ["_aics.nokey.test", [["v=aics1 witness=x"]]],
    ["_aics.garbled.test", [["v=aics1 log=not-a-key"]]]
  ]))
})

afterAll(async () => {
  await dns?.close()
})

const failure = async (domain: string): Promise<ClientError> => {
  try {
    await loadVkey({ vkeyDns: domain, dnsServer: dns.address })
  } catch (error) {
    if (error instanceof ClientError) return error
    throw error
  }
  throw new Error(`${domain}: a key was read`)
}

describe("the log key from DNS", () => {
  it("is read from the v=aics1 record, its strings joined", async () => {
    const key = await loadVkey({ vkeyDns: "example.test", dnsServer: dns.address })
    expect(key.name).toBe("localhost/aics")
    // The flag and the file come first; DNS before the environment.
    expect((await loadVkey({ vkeyDns: "example.test", dnsServer: dns.address, env: "other/aics+00000000+AAAA" })).name).toBe("localhost/aics")
  })

  it("says what is missing: the record, its log member, a key that parses", async () => {
    expect(await failure("absent.test")).toMatchObject({ kind: "usage", message: "no TXT record at _aics.absent.test: is absent.test the service's instance domain? (or pass --vkey)" })
    expect(await failure("nokey.test")).toMatchObject({ kind: "usage", message: 'DNS TXT _aics.nokey.test: a "v=aics1" record has no log=<verifier key>' })
    expect(await failure("garbled.test")).toMatchObject({ kind: "usage", message: 'not an Ed25519 signed-note verifier key: "not-a-key"' })
    await expect(loadVkey({ vkeyDns: "example.test", dnsServer: "dns.example:53" })).rejects.toMatchObject({
      kind: "usage", message: 'AICS_DNS_SERVER must be an IP address, optionally with a port (127.0.0.1:5353, [::1]:53), got "dns.example:53"'
    })
  })
})
