import { describe, expect, it } from "vitest"
import { addressGroup, clientAddressOf, LOOPBACK_PROXIES, parseCidrList, parseIp } from "../../../src/domain/admission/clientAddress.js"

const trusted = (text: string) => {
  const parsed = parseCidrList(text)
  if ("invalid" in parsed) throw new Error(parsed.invalid)
  return parsed.cidrs
}

describe("who the client is", () => {
  it("parses IPv4 and IPv6, and refuses what is not an address", () => {
    expect(parseIp("1.2.3.4")).toEqual(new Uint8Array([1, 2, 3, 4]))
    expect(parseIp("::ffff:1.2.3.4")).toEqual(new Uint8Array([1, 2, 3, 4]))
    expect(parseIp("2001:db8::1")?.length).toBe(16)
    for (const bad of ["1.2.3", "01.2.3.4", "256.1.1.1", "::::", "cafe", "fe80::1%eth0", "1:2:3:4:5:6:7:8:9", ""]) expect(parseIp(bad), bad).toBeUndefined()
    expect(parseCidrList("10.0.0.0/8, 2001:db8::/32,192.0.2.1")).not.toHaveProperty("invalid")
    expect(parseCidrList("10.0.0.0/33")).toEqual({ invalid: "10.0.0.0/33" })
  })

  it("groups IPv6 by /64 and keeps IPv4 whole", () => {
    expect(addressGroup("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64")
    expect(addressGroup("2001:DB8:1:2:bbbb:1:2:3")).toBe("2001:db8:1:2::/64")
    expect(addressGroup("::ffff:198.51.100.4")).toBe("198.51.100.4")
    expect(addressGroup("198.51.100.4")).toBe("198.51.100.4")
  })

  it("believes forwarding headers only from trusted proxies, read from the right", () => {
    const proxies = trusted("10.0.0.0/8")
    expect(clientAddressOf("203.0.113.9", { forwardedFor: "198.51.100.1" }, proxies)).toBe("203.0.113.9")
    expect(clientAddressOf("10.0.0.2", { forwardedFor: "198.51.100.1" }, proxies)).toBe("198.51.100.1")
    // A client's own prefix is skipped: only what the trusted hops appended counts.
    expect(clientAddressOf("10.0.0.2", { forwardedFor: "1.1.1.1, 198.51.100.1, 10.0.0.3" }, proxies)).toBe("198.51.100.1")
    expect(clientAddressOf("10.0.0.2", { forwarded: "for=192.0.2.60;proto=http, for=\"[2001:db8::1]:4711\"" }, proxies)).toBe("2001:db8::1")
    // A value that is no address stops at the last trusted hop.
    expect(clientAddressOf("10.0.0.2", { forwardedFor: "not-an-ip" }, proxies)).toBe("10.0.0.2")
    expect(clientAddressOf("::ffff:127.0.0.1", { forwardedFor: "198.51.100.7" }, LOOPBACK_PROXIES)).toBe("198.51.100.7")
    expect(clientAddressOf("127.0.0.2", { forwardedFor: "198.51.100.7" }, trusted("127.0.0.1"))).toBe("127.0.0.2")
  })
})
