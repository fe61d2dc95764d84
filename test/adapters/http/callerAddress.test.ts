import { describe, expect, it } from "vitest"
import { callerAddress } from "../../../src/adapters/http/callerAddress.js"

describe("callerAddress", () => {
  it("answers a remote peer as it is, ignoring the X-Forwarded-For it may have written", () => {
    expect(callerAddress("198.51.100.4", "10.0.0.1")).toBe("198.51.100.4")
    expect(callerAddress("::ffff:198.51.100.4", undefined)).toBe("198.51.100.4")
    expect(callerAddress("2001:db8::1", undefined)).toBe("2001:db8::1")
    expect(callerAddress("2001:db8::1", "198.51.100.7")).toBe("2001:db8::1")
  })

  it("believes the last X-Forwarded-For hop only from a proxy on this machine", () => {
    expect(callerAddress("127.0.0.1", "203.0.113.1, 198.51.100.7")).toBe("198.51.100.7")
    expect(callerAddress("127.8.9.10", "198.51.100.7")).toBe("198.51.100.7")
    expect(callerAddress("::1", "[2001:db8::5]:4711")).toBe("2001:db8::5")
    expect(callerAddress("::ffff:127.0.0.1", "198.51.100.7:5000")).toBe("198.51.100.7")
    expect(callerAddress("127.0.0.1", undefined)).toBe("127.0.0.1")
    expect(callerAddress("127.0.0.1", "")).toBe("127.0.0.1")
    expect(callerAddress("127.0.0.1", "198.51.100.7, ")).toBe("127.0.0.1")
    expect(callerAddress(undefined, undefined)).toBe("unknown")
  })

  it("believes a forwarded IPv6 address, bare, bracketed, or IPv4-mapped", () => {
    expect(callerAddress("127.0.0.1", "2001:db8::5")).toBe("2001:db8::5")
    expect(callerAddress("127.0.0.1", "2001:0db8:0000:0000:0000:0000:0000:0005")).toBe("2001:db8::5")
    expect(callerAddress("::1", "[2001:db8::5]")).toBe("2001:db8::5")
    expect(callerAddress("::1", "::ffff:198.51.100.7")).toBe("198.51.100.7")
  })

  it("answers the socket when the forwarded element is not an IP address", () => {
    for (const bogus of ["cafe", "1.2.3", "::::", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "<script>", "unknown", "example.com", "[cafe]:80", "2001:db8::g"]) {
      expect(callerAddress("127.0.0.1", bogus), bogus).toBe("127.0.0.1")
      expect(callerAddress("::1", `198.51.100.7, ${bogus}`), bogus).toBe("::1")
    }
  })

  it("refuses a forwarded IPv6 address with a zone id (an interface of the proxy's machine)", () => {
    expect(callerAddress("127.0.0.1", "fe80::1%eth0")).toBe("127.0.0.1")
    expect(callerAddress("127.0.0.1", "[fe80::1%25eth0]:443")).toBe("127.0.0.1")
    expect(callerAddress("127.0.0.1", "fe80::1")).toBe("fe80::1")
  })
})
