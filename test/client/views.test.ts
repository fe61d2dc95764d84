// Reading the service's JSON views (name view, inbox, capsule slot) and comparing views:
// the shapes the client accepts, and what it refuses.

import { describe, expect, it } from "vitest"
import { capsuleOf } from "../../src/client/capsules.js"
import { diffJson } from "../../src/client/jsonDiff.js"
import { inboxMessagesOf } from "../../src/client/messaging.js"
import { readNameView } from "../../src/client/nameLookup.js"
import { ClientError } from "../../src/client/errors.js"

const KID = "did:key:z6Mkqo5bhL3b4Ct3kfhDtyG6io8whxDXdkAaBA4pr8EiXyEB"
const X = "aFpxffDb-K__x42IkRW_W38V5tYIf6y0hCRf7NqY6zU"

describe("the name view", () => {
  it("gives the current kid, x25519 key and the leaf that set it", () => {
    expect(readNameView({ name: "alice", kid: KID, x25519: X, x25519_index: 3, size: 9, checkpoint_note: "Y2s" }, "alice")).toEqual({
      name: "alice", kid: KID, x25519: X, x25519Index: 3, size: 9, checkpointNote: "Y2s"
    })
    // A nested x25519 {key, index} reads the same.
    expect(readNameView({ kid: KID, x25519: { key: X, index: 3 } }, "alice")).toMatchObject({ name: "alice", x25519: X, x25519Index: 3 })
  })

  it("is a protocol error without them", () => {
    for (const json of [null, [], { kid: KID, x25519: X }, { x25519: X, x25519_index: 1 }, { kid: KID, x25519_index: 1 }]) {
      expect(() => readNameView(json, "alice")).toThrow(ClientError)
    }
  })
})

describe("inbox and capsule answers", () => {
  it("list each message's index, envelope and ciphertext", () => {
    expect(inboxMessagesOf({ messages: [{ index: 4, envelope: { a: 1 }, ct: "AAAA", logged: 7 }, { index: 5 }] })).toEqual([
      { index: 4, envelope: { a: 1 }, ct: "AAAA", logged: 7 },
      { index: 5, envelope: undefined, ct: undefined, logged: null }
    ])
    expect(() => inboxMessagesOf({ messages: [{ envelope: {} }] })).toThrow(ClientError)
    expect(() => inboxMessagesOf({})).toThrow(ClientError)
  })

  it("give the slot's current write", () => {
    expect(capsuleOf({ slot: "s", index: 9, envelope: { e: 1 }, ct: "AA" })).toEqual({ index: 9, envelope: { e: 1 }, ct: "AA" })
    expect(capsuleOf({ slot: "s", current: { index: 9, body_or_ct: "AA" } })).toEqual({ index: 9, envelope: undefined, ct: "AA" })
  })
})

describe("comparing views", () => {
  it("reports every differing path, and members on one side only", () => {
    const log = { name: "alice", kid: KID, events: [{ index: 1 }, { index: 4 }], recovery: null }
    const server = { name: "alice", kid: "did:key:other", events: [{ index: 1 }], extra: true, recovery: null }
    expect(diffJson(log, server)).toEqual([
      { path: "/events/1", log: { index: 4 }, server: undefined },
      { path: "/extra", log: undefined, server: true },
      { path: "/kid", log: KID, server: "did:key:other" }
    ])
    expect(diffJson(log, structuredClone(log))).toEqual([])
  })
})
