// The live stream's fan-out pieces, in process: the filter groups (streamGroups.ts) route
// each event to exactly the groups whose filter takes it, found through the recipient and
// channel indexes; and a shared batch (sseWire.ts) frames as one HTTP/1.1 chunk.

import { describe, expect, it } from "vitest"
import { utf8 } from "../../../src/domain/bytes.js"
import { matches, type LeafEvent, type StreamFilter } from "../../../src/domain/stream/logEvents.js"
import { SharedBytes } from "../../../src/adapters/http/sseWire.js"
import { StreamGroups } from "../../../src/adapters/http/streamGroups.js"

const event = (index: number, type: string, extra: { channel?: string; to?: string } = {}): LeafEvent => ({
  index, type, kid: "did:key:zAuthor", channel: extra.channel, to: extra.to, bytes: utf8(`event ${index}\n\n`)
})

const filter = (f: { types?: ReadonlyArray<string>; channel?: string; to?: string }): StreamFilter => ({
  types: f.types === undefined ? undefined : new Set(f.types), channel: f.channel, to: f.to
})

const page: ReadonlyArray<LeafEvent> = [
  event(10, "post", { channel: "general" }),
  event(11, "dm", { to: "did:key:zBob" }),
  event(12, "claim"),
  event(13, "poll", { channel: "general" }),
  event(14, "dm", { to: "did:key:zAlice" }),
  event(15, "post", { channel: "elsewhere" })
]

const filters: ReadonlyArray<StreamFilter> = [
  filter({}),
  filter({ types: ["post"] }),
  filter({ types: ["post", "claim"] }),
  filter({ channel: "general" }),
  filter({ channel: "general", types: ["poll"] }),
  filter({ channel: "nowhere" }),
  filter({ to: "did:key:zBob" }),
  filter({ to: "did:key:zBob", types: ["post"] }),
  filter({ to: "did:key:zCarol" })
]

describe("stream groups", () => {
  it("route each event to exactly the groups whose filter takes it, in log order", () => {
    const groups = new StreamGroups<string>()
    const joined = filters.map((f, i) => groups.join(f, `subscriber ${i}`))
    const touched = groups.route(page)
    for (const [i, f] of filters.entries()) {
      const expected = page.filter((e) => matches(f, e)).map((e) => e.index)
      const group = joined[i]!
      const got = touched.includes(group) ? group.events.map((e) => e.index) : []
      expect(got, JSON.stringify([...(f.types ?? []), f.channel, f.to])).toEqual(expected)
    }
    // A group the page has nothing for is not touched at all.
    expect(touched.includes(joined[5]!)).toBe(false)
    expect(touched.includes(joined[8]!)).toBe(false)
    // The next page starts each group's events afresh.
    const next = groups.route([event(16, "dm", { to: "did:key:zBob" })])
    expect(new Map(next.map((g) => [g.key, g.events.map((e) => e.index)]))).toEqual(new Map([
      [joined[0]!.key, [16]],
      [joined[6]!.key, [16]]
    ]))
  })

  it("share one group between the subscribers of one filter, and forget it when the last leaves", () => {
    const groups = new StreamGroups<string>()
    const a = groups.join(filter({ types: ["dm", "post"], to: "did:key:zBob" }), "a")
    const b = groups.join(filter({ types: ["post", "dm"], to: "did:key:zBob" }), "b")
    expect(b).toBe(a)
    expect([...a.members]).toEqual(["a", "b"])
    groups.leave(a, "a")
    expect(groups.route(page).map((g) => g.events.map((e) => e.index))).toEqual([[11]])
    groups.leave(a, "b")
    expect(groups.route(page)).toEqual([])
    // Joined again later: a fresh group that routes as before.
    const c = groups.join(filter({ to: "did:key:zBob" }), "c")
    expect(c).not.toBe(a)
    expect(groups.route(page).map((g) => g.events.map((e) => e.index))).toEqual([[11]])
  })
})

describe("shared bytes", () => {
  it("join the events once, and frame them as one HTTP/1.1 chunk", () => {
    const shared = new SharedBytes([utf8("event: leaf\nid: 1\n\n"), utf8("event: leaf\nid: 2\n\n")])
    expect(shared.plain().toString("latin1")).toBe("event: leaf\nid: 1\n\nevent: leaf\nid: 2\n\n")
    expect(shared.framed().toString("latin1")).toBe("26\r\nevent: leaf\nid: 1\n\nevent: leaf\nid: 2\n\n\r\n")
    // The same Buffer for every socket that takes it.
    expect(shared.framed()).toBe(shared.framed())
    expect(SharedBytes.of("é").framed().toString("utf8")).toBe("2\r\né\r\n")
    expect(new SharedBytes([]).empty).toBe(true)
  })
})
