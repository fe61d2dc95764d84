// A request on a kept-alive connection the service had closed (src/client/http.ts send): a
// process whose event loop was held past the service's keep-alive (`aics audit log` replaying
// a minute of leaves did) takes it from the pool before it has seen the close, and undici
// fails the request with "other side closed". An unsigned GET is sent once more; a write or a
// signed read is not (its nonce may have arrived), and a second failure is the network error.

import { describe, expect, it } from "vitest"
import { NoAnswer, send, serviceAt } from "../../src/client/http.js"

/** fetch's failure as undici gives it for a connection the peer closed. */
const otherSideClosed = () => new TypeError("fetch failed", { cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }) })
const refused = () => new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" }) })

/** A fetch that fails with each of `failures` in turn, then answers 200; it counts its calls. */
const failingFetch = (...failures: Array<() => Error>) => {
  const calls: Array<RequestInit | undefined> = []
  const fetch = (async (_input: unknown, init?: RequestInit) => {
    calls.push(init)
    const failure = failures[calls.length - 1]
    if (failure !== undefined) throw failure()
    return new Response("answered", { status: 200 })
  }) as typeof globalThis.fetch
  return { fetch, calls }
}

describe("a request on a connection the service had closed", () => {
  it("is sent once more when it is an unsigned GET", async () => {
    const { fetch, calls } = failingFetch(otherSideClosed)
    const response = await send(serviceAt("http://service.test/", fetch), "/v2/governance/freeze")
    expect(await response.text()).toBe("answered")
    expect(calls).toHaveLength(2)
  })

  it("is not sent again when it is a write or a signed read, nor after a second failure", async () => {
    for (const init of [{ method: "POST", body: "{}" }, { headers: { Signature: "sig1=:AAAA:" } }]) {
      const { fetch, calls } = failingFetch(otherSideClosed)
      await expect(send(serviceAt("http://service.test/", fetch), "/v2/entries", init)).rejects.toBeInstanceOf(NoAnswer)
      expect(calls).toHaveLength(1)
    }
    const twice = failingFetch(otherSideClosed, otherSideClosed)
    await expect(send(serviceAt("http://service.test/", twice.fetch), "/checkpoint")).rejects.toThrow(/other side closed/)
    expect(twice.calls).toHaveLength(2)
  })

  it("is not the same as a connection never made, which is not sent again", async () => {
    const { fetch, calls } = failingFetch(refused)
    const failure = await send(serviceAt("http://service.test/", fetch), "/checkpoint").catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(NoAnswer)
    expect((failure as NoAnswer).mayHaveArrived).toBe(false)
    expect(calls).toHaveLength(1)
  })
})
