// A request on a kept-alive connection the service had closed (src/client/http.ts send): a
// process whose event loop was held past the service's keep-alive (`aics audit log` replaying
// a minute of leaves did) takes it from the pool before it has seen the close, and undici
// fails the request with "other side closed". An unsigned GET is sent once more; a write or a
// signed read is not (its nonce may have arrived), and a second failure is the network error.
// A read answered 429 is sent again after its Retry-After when the caller asked for patient
// reads (an audit's thousands of requests go at the pace of the service's budget).

import { describe, expect, it, vi } from "vitest"
import { NoAnswer, send, type Service, serviceAt, withPatientReads } from "../../src/client/http.js"

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

/** A fetch that answers 429 with each of `waits` as Retry-After in turn, then 200; it counts its calls. */
const limitedFetch = (...waits: Array<string | null>) => {
  const calls: Array<RequestInit | undefined> = []
  const fetch = (async (_input: unknown, init?: RequestInit) => {
    calls.push(init)
    const wait = waits[calls.length - 1]
    if (wait === undefined) return new Response("answered", { status: 200 })
    const headers: Record<string, string> = wait === null ? {} : { "retry-after": wait }
    return new Response(JSON.stringify({ code: "rate_limited", detail: "the requests budget is spent" }), { status: 429, headers })
  }) as typeof globalThis.fetch
  return { fetch, calls }
}

describe("a read the service answers 429 (its requests budget spent)", () => {
  it("is sent again after its Retry-After when the service's reads are patient, as often as it comes", async () => {
    const { fetch, calls } = limitedFetch("0", "1")
    const started = Date.now()
    const response = await send(withPatientReads(serviceAt("http://service.test/", fetch)), "/v2/agora/polls/7")
    expect(await response.text()).toBe("answered")
    expect(calls).toHaveLength(3)
    // A second at least each time, "Retry-After: 0" too.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1950)
  })

  it("gives up once its waits would pass ten minutes, also when each asks none", async () => {
    vi.useFakeTimers()
    try {
      const { fetch, calls } = limitedFetch(...Array.from({ length: 1000 }, () => "0"))
      const answer = send(withPatientReads(serviceAt("http://service.test/", fetch)), "/v2/agora/polls/7")
      await vi.advanceTimersByTimeAsync(601_000)
      expect((await answer).status).toBe(429)
      expect(calls).toHaveLength(601)
    } finally {
      vi.useRealTimers()
    }
  })

  it("is the answer otherwise: reads not patient, a signed read, no Retry-After, or one past a minute", async () => {
    const cases: Array<[Service, RequestInit, string | null]> = [
      [serviceAt("http://service.test/", limitedFetch("0").fetch), {}, "0"],
      [withPatientReads(serviceAt("http://service.test/", limitedFetch("0").fetch)), { headers: { Signature: "sig1=:AAAA:" } }, "0"],
      [withPatientReads(serviceAt("http://service.test/", limitedFetch(null).fetch)), {}, null],
      [withPatientReads(serviceAt("http://service.test/", limitedFetch("61").fetch)), {}, "61"]
    ]
    for (const [service, init, wait] of cases) {
      const response = await send(service, "/v2/inbox/x", init)
      expect(response.status).toBe(429)
      expect(response.headers.get("retry-after")).toBe(wait)
    }
  })
})
