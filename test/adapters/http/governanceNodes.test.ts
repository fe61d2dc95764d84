// The governance reads on two nodes of one PostgreSQL database (docs/protocol.md 12.6,
// section 14): the owner's freeze and suspension, written through the node that sequences,
// are read on the other node from the projection tables they share, and its view changes
// when the leaves do; then the open and the end of the suspension, written through the
// other node, are read on both. Needs several database sessions: the real server only
// (AICS_TEST_DATABASE_URL).

import { describe, expect, it } from "vitest"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { utf8 } from "../../../src/domain/bytes.js"
import { encodeU64 } from "../../../src/domain/encoding.js"
import { leaderOf, nodesOfTestFile, type Node } from "../../support/nodes.js"
import { ownerOf, sendEntry } from "../../support/signedHttp.js"

const ORIGIN = "localhost/aics"
const cluster = nodesOfTestFile()

const view = async (node: Node, path: string): Promise<any> => {
  const response = await fetch(`${node.baseUrl}${path}`)
  expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200)
  return response.json()
}

describe.skipIf(!cluster.multiSession)("the governance reads on two nodes of one database", () => {
  it("answer on either node what the owner's leaves, written through either, establish", async () => {
    const { nodes } = await cluster.start(2)
    const [a, b] = nodes as [Node, Node]
    expect(leaderOf(nodes)).toBe(a)
    const owner = await ownerOf(a)
    const owned = async (node: Node, path: string, type: string, payload: Record<string, unknown>) => {
      const sent = await sendEntry(node, ORIGIN, path, owner, type, payload)
      expect(sent.status, `${type}: ${JSON.stringify(sent.json.entry)}`).toBe(201)
      return sent.index
    }
    const order = encodeU64(nodeCrypto.sha256(utf8("an order, on two nodes")))

    expect(await view(b, "/v2/governance/freeze")).toMatchObject({ state: "open", frozen_index: null })
    const frozen = await owned(a, "/v2/admin/freeze", "freeze", { state: "frozen" })
    const suspended = await owned(a, "/v2/admin/suspensions", "suspension", { subject: "someone", order })
    // The other node folds the shared tables before it answers (StateReader's freshness):
    // a leaf it did not write is in its view once the write through the sequencer was answered.
    for (const node of [b, a]) {
      expect(await view(node, "/v2/governance/freeze"), node.baseUrl).toMatchObject({ state: "frozen", frozen_index: frozen, size: frozen + 1 })
      expect(await view(node, "/v2/governance/suspensions/someone"), node.baseUrl)
        .toMatchObject({ subject: "someone", suspended: true, index: suspended, order, size: suspended + 1 })
    }

    const opened = await owned(b, "/v2/admin/freeze", "freeze", { state: "open", resume: frozen })
    const ended = await owned(b, "/v2/admin/suspensions", "suspension", { subject: "someone", until: Math.floor(Date.now() / 1000) - 1 })
    for (const node of [a, b]) {
      expect(await view(node, "/v2/governance/freeze"), node.baseUrl).toMatchObject({ state: "open", frozen_index: null, indices: [frozen, opened] })
      expect(await view(node, "/v2/governance/suspensions/someone"), node.baseUrl).toMatchObject({ suspended: false, index: suspended, ended_index: ended })
    }
  })
})
