import { describe, expect, it } from "vitest"
import { callerAddress } from "../../../src/adapters/http/callerAddress.js"

describe("callerAddress", () => {
  it("answers a remote peer as it is, ignoring the X-Forwarded-For it may have written", () => {
    expect(callerAddress("198.51.100.4", "10.0.0.1")).toBe("198.51.100.4")
    expect(callerAddress("::ffff:198.51.100.4", undefined)).toBe("198.51.100.4")
    expect(callerAddress("2001:db8::1", undefined)).toBe("2001:db8::1")
  })

  it("believes the last X-Forwarded-For hop only from a proxy on this machine", () => {
    expect(callerAddress("127.0.0.1", "203.0.113.1, 198.51.100.7")).toBe("198.51.100.7")
    expect(callerAddress("::1", "[2001:db8::5]:4711")).toBe("2001:db8::5")
    expect(callerAddress("::ffff:127.0.0.1", "198.51.100.7:5000")).toBe("198.51.100.7")
    expect(callerAddress("127.0.0.1", undefined)).toBe("127.0.0.1")
    expect(callerAddress("127.0.0.1", "<script>")).toBe("127.0.0.1")
    expect(callerAddress(undefined, undefined)).toBe("unknown")
  })
})
