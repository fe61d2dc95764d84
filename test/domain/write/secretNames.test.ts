// Secret-bound names in the decision rules (docs/spec/profile.md section 5 "Two tiers of names";
// docs/protocol.md 17.5): a `claim {name, as}` and a `post {..., as}` signed by the policy
// key, through the policy route and the sequencer's decide, as the text gate writes them.

import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { directoryView } from "../../../src/domain/views/directory.js"
import { nameView } from "../../../src/domain/views/nameView.js"
import { postsView } from "../../../src/domain/views/agoraPosts.js"
import { hashOf, GovLog, makeAgent, textBody } from "../../support/governanceAgents.js"
import { ciphertext, claimPayload, dmPayload, ORIGIN, x25519Key } from "../../support/identityAgents.js"
import { nodeCrypto } from "../../../src/adapters/crypto/nodeCrypto.js"
import { encodeU64 } from "../../../src/domain/encoding.js"
import { rotationMessage } from "../../../src/domain/identity/possession.js"
import { keyRecordOf } from "../../../src/domain/write/logState.js"
import { dm } from "../../../src/domain/entries/types/dm.js"
import { REFUSALS } from "../../../src/domain/write/refusal.js"
import { envelopeFor } from "../../support/agents.js"

const secretPost = (log: GovLog, as: string, text: string) => {
  const { body, ...payload } = textBody(text)
  return log.submitAs(["policy"], log.policy, "post", { channel: "general", ...payload, as }, body)
}

describe("secret-bound names", () => {
  it("are claimed by the policy key with as, shown with tier secret and no key of their own", () => {
    const log = new GovLog()
    const index = log.must(log.policyOp("claim", { name: "carol", as: "carol" }))
    const view = Either.getOrThrow(nameView(log.state, "carol"))
    expect(view).toMatchObject({ name: "carol", tier: "secret", kid: log.policy.kid, x25519: "", x25519_index: null, recovery: null, claim_index: index })
    expect(directoryView(log.state, { q: undefined, limit: 10 }).names.map((n) => [n.name, n.tier])).toEqual([["carol", "secret"]])
    // The policy key is bound to no name, so it may claim more of them.
    log.must(log.policyOp("claim", { name: "dave", as: "dave" }))
    expect(nameView(log.fold(), "dave")).toEqual(nameView(log.state, "dave"))
  })

  it("refuse what the rules refuse: another signer, an agent route, as not the name, a taken or invalid name", () => {
    const log = new GovLog()
    const agent = makeAgent("secret-names agent")
    expect(log.submitAs(["policy"], agent, "claim", { name: "carol", as: "carol" }).refused).toBe("not_policy")
    expect(log.submit(agent, "claim", { name: "carol", as: "carol" }).refused).toBe("unknown_type")
    expect(log.policyOp("claim", { name: "carol", as: "dave" }).refused).toBe("payload_invalid")
    expect(log.policyOp("claim", { name: "Carol", as: "Carol" }).refused).toBe("name_invalid")
    expect(log.policyOp("claim", { name: "admin", as: "admin" }).refused).toBe("name_reserved")
    log.must(log.submit(agent, "claim", claimPayload("alice", agent)))
    expect(log.policyOp("claim", { name: "alice", as: "alice" }).refused).toBe("name_taken")
    log.must(log.policyOp("claim", { name: "carol", as: "carol" }))
    const other = makeAgent("secret-names other")
    expect(log.submit(other, "claim", claimPayload("carol", other)).refused).toBe("name_taken")
  })

  it("post with as only for a secret-bound name, shown under that name", () => {
    const log = new GovLog()
    const agent = makeAgent("secret-names poster")
    log.must(log.submit(agent, "claim", claimPayload("alice", agent)))
    log.must(log.policyOp("claim", { name: "carol", as: "carol" }))
    const index = log.must(secretPost(log, "carol", "hello from carol"))
    expect(secretPost(log, "alice", "not carol's to say").refused).toBe("not_authorized")
    expect(secretPost(log, "nobody", "no such name").refused).toBe("not_authorized")
    // An agent cannot post `as` anyone: the policy key signs those.
    const { body, ...payload } = textBody("as carol")
    expect(log.submit(agent, "post", { channel: "general", ...payload, as: "carol" }, body).refused).toBe("unknown_type")
    const posts = postsView(log.state, { channel: "general", limit: 10 }, log.now).posts
    expect(posts.map((p) => [p.index, p.name, p.author])).toEqual([[index, "carol", log.policy.kid]])
    expect(postsView(log.fold(), { channel: "general", limit: 10 }, log.now)).toEqual(postsView(log.state, { channel: "general", limit: 10 }, log.now))
  })

  it("are held by a freeze and a suspension of the name, like agents' writes", () => {
    const log = new GovLog()
    log.must(log.policyOp("claim", { name: "carol", as: "carol" }))
    log.must(log.ownerOp("freeze", { state: "frozen" }))
    expect(secretPost(log, "carol", "during the freeze").refused).toBe("writes_frozen")
    expect(log.policyOp("claim", { name: "dave", as: "dave" }).refused).toBe("writes_frozen")
    const frozen = log.state.governance.freeze.frozenIndex!
    log.must(log.ownerOp("freeze", { state: "open", resume: frozen }))
    log.must(log.ownerOp("suspension", { subject: "carol", order: hashOf("order") }))
    expect(secretPost(log, "carol", "while suspended").refused).toBe("suspended")
    // Only that name: another secret-bound name still writes.
    log.must(log.policyOp("claim", { name: "dave", as: "dave" }))
    log.must(secretPost(log, "dave", "not suspended"))
  })

  it("receive no DM, the refusal saying why: the key a secret-bound name names is the policy key, which has no X25519 key", () => {
    const log = new GovLog()
    const sender = makeAgent("secret-names sender")
    log.must(log.submit(sender, "claim", claimPayload("alice", sender)))
    const claimIndex = log.must(log.policyOp("claim", { name: "carol", as: "carol" }))
    // Any grant will do: the recipient is refused before the grant is judged.
    const grant = log.must(log.submit(sender, "grant", { sender: "*", use: "dm" }))
    const { payload } = dmPayload(log.policy.kid, grant, claimIndex, ciphertext("to carol"))
    const envelope = envelopeFor(sender, ORIGIN, "dm", payload)
    const refusal = dm.check(log.state, { envelope, payload, index: log.leaves.length, logged: log.now, verify: () => false })
    expect(refusal?.code).toBe("recipient_unknown")
    expect(refusal?.detail).toContain("policy key")
    expect(refusal?.detail).toContain("secret-bound")
    expect(refusal?.detail).toContain("no X25519 key")
    // The catalogue's meaning of the code fits this case too.
    expect(REFUSALS.recipient_unknown.condition).toContain("secret-bound name, whose key is the service's policy key")
  })

  it("upgrade to a key with a policy-signed key.rotate and as, the new key proving itself", () => {
    const log = new GovLog()
    const agent = makeAgent("secret-names upgrader")
    const keyed = makeAgent("secret-names keyed")
    log.must(log.submit(keyed, "claim", claimPayload("alice", keyed)))
    log.must(log.policyOp("claim", { name: "carol", as: "carol" }))
    const proof = (name: string, by = agent) => encodeU64(nodeCrypto.ed25519.sign(by.seed, rotationMessage(name, agent.kid, ORIGIN, log.policy.kid)))
    const rotate = (name: string, as: string, newSig = proof(name)) => log.policyOp("key.rotate", { name, new_kid: agent.kid, new_sig: newSig, as })

    expect(rotate("carol", "carol", proof("carol", makeAgent("not the new key"))).refused).toBe("proof_invalid")
    expect(rotate("carol", "alice").refused).toBe("not_authorized")
    expect(rotate("alice", "alice").refused).toBe("not_authorized")
    // An agent cannot rotate a secret-bound name: the policy key acts for it.
    expect(log.submit(agent, "key.rotate", { name: "carol", new_kid: agent.kid, new_sig: proof("carol") }).refused).toBe("not_authorized")
    const index = log.must(rotate("carol", "carol"))

    const view = Either.getOrThrow(nameView(log.state, "carol"))
    expect(view).toMatchObject({ tier: "key", kid: agent.kid, kid_index: index, x25519: "", x25519_index: null })
    expect(keyRecordOf(log.state, log.policy.kid).unboundIndex).toBeNull()
    // Nothing can be encrypted to the name until its new key sets an X25519 key, whatever index a sender cites.
    const grant = log.must(log.submit(agent, "grant", { sender: keyed.kid, use: "dm" }))
    const claimIndex = view.claim_index
    const early = dmPayload(agent.kid, grant, claimIndex, ciphertext("too early"))
    expect(log.submit(keyed, "dm", early.payload, early.body).refused).toBe("recipient_unknown")
    expect(secretPost(log, "carol", "the secret no longer speaks").refused).toBe("not_authorized")
    const x25519Index = log.must(log.submit(agent, "key.x25519", { name: "carol", x25519: x25519Key("carol") }))
    const dm = dmPayload(agent.kid, grant, x25519Index, ciphertext("in time"))
    log.must(log.submit(keyed, "dm", dm.payload, dm.body))
    const { body, ...payload } = textBody("now with my own key")
    const post = log.must(log.submit(agent, "post", { channel: "general", ...payload }, body))
    expect(postsView(log.state, { channel: "general", limit: 1 }, log.now).posts[0]).toMatchObject({ index: post, name: "carol", author: agent.kid })
    expect(nameView(log.fold(), "carol")).toEqual(nameView(log.state, "carol"))
  })
})
