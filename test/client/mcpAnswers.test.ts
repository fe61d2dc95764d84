// What the MCP tools answer, in process: one shape for every tool error, a log-signed
// refusal's included ({error, code, status, detail, meaning, retry_after?} beside its note),
// pages of posts cut to the answer's text budget with a cursor that reads on, and an
// entry's body as text when it is text.

import { describe, expect, it } from "vitest"
import { crypto } from "../../src/client/crypto.js"
import { ClientError } from "../../src/client/errors.js"
import { serviceAt } from "../../src/client/http.js"
import { writeAnswer } from "../../src/client/mcp/agentTools.js"
import { ANSWER_TEXT_BUDGET, bodyText, failureAnswer, pollsWithinBudget, postsWithinBudget } from "../../src/client/mcp/toolkit.js"
import type { WriteResult } from "../../src/client/write.js"
import { utf8 } from "../../src/domain/bytes.js"
import { makeVerifierKey } from "../../src/domain/note/verifierKey.js"

const client = {
  service: serviceAt("http://127.0.0.1:9"),
  vkey: makeVerifierKey(crypto.sha256, "example.org/aics", crypto.ed25519.publicKey(new Uint8Array(32).fill(7)))
}

const refused = (status: number, code: string, detail: string): WriteResult => ({
  _tag: "Refused", envelope: { seq: 3 } as never, code, status, detail, envelopeHash: "aGFzaA", receiptNote: "bm90ZQ"
})

describe("a tool error", () => {
  it("of the log (a signed refusal) has the shape of every other, with its note beside it", () => {
    const answer = writeAnswer(client, refused(409, "name_taken", "the name is taken"), () => "unused")
    expect(answer.isError).toBe(true)
    expect(answer.data).toMatchObject({
      error: "refused", code: "name_taken", status: 409, detail: "the name is taken", meaning: expect.stringMatching(/./),
      refused: "name_taken", envelope_hash: "aGFzaA", receipt_note: "bm90ZQ", refusal_verified: true
    })
    expect(answer.data).not.toHaveProperty("retry_after")
    // The same members, in the same sense, as a refusal known before sending.
    const local = failureAnswer(new ClientError("refused", "no grant in force", { code: "grant_required" }))
    const shared = ["error", "code", "detail", "meaning"]
    for (const member of shared) expect(Object.keys(answer.data as object), member).toContain(member)
    for (const member of shared) expect(Object.keys(local.data as object), member).toContain(member)
  })

  it("says in retry_after, in seconds, when a refusal says when to try again", () => {
    const limited = writeAnswer(client, refused(429, "rate_limited", "the key_writes budget (10 per 60 s per key) is spent; retry in 2 s"), () => "unused")
    expect(limited.data).toMatchObject({ error: "refused", code: "rate_limited", status: 429, retry_after: 2 })
    expect(limited.summary).toMatch(/Try again in 2 s/)
    // The answer's Retry-After (a full ciphertext budget's 429 says no time in its detail).
    const full = writeAnswer(client, { ...refused(429, "ciphertext_budget_exhausted", "no room for more ciphertext until retention frees some"), retryAfter: 3600 } as WriteResult, () => "unused")
    expect(full.data).toMatchObject({ code: "ciphertext_budget_exhausted", retry_after: 3600 })
    // A Retry-After the error carries is said as it is.
    const busy = failureAnswer(new ClientError("refused", "GET /v2/inbox: 429 rate_limited: too many reads", { code: "rate_limited", status: 429, retryAfter: 7 }))
    expect(busy.data).toMatchObject({ error: "refused", code: "rate_limited", status: 429, retry_after: 7 })
    // None said: none given.
    expect(failureAnswer(new ClientError("not_found", "404 entry_not_found", { status: 404 })).data).not.toHaveProperty("retry_after")
  })
})

describe("a page of posts", () => {
  const post = (index: number, size: number) => ({ index, text: "x".repeat(size) })

  it("ends early once its texts would pass the budget, and its cursor reads on from its last post", () => {
    // 20 posts of 16 KiB, newest first: 330 KB in all.
    const posts = Array.from({ length: 20 }, (_, i) => post(100 - i, 16_384))
    const cut = postsWithinBudget(posts, 80)
    expect(cut.truncated).toBe(true)
    expect(cut.posts.length).toBe(Math.floor(ANSWER_TEXT_BUDGET / JSON.stringify(posts[0]).length))
    expect(JSON.stringify(cut.posts).length).toBeLessThanOrEqual(ANSWER_TEXT_BUDGET + cut.posts.length + 1)
    expect(cut.next_before).toBe(cut.posts[cut.posts.length - 1]!.index)
    // A small page is left as it is, with the service's cursor.
    const small = postsWithinBudget(posts.slice(0, 3), 98)
    expect(small).toEqual({ posts: posts.slice(0, 3), next_before: 98, truncated: false })
    // Its first post always, however long: a page that advances.
    const huge = postsWithinBudget([post(9, 2 * ANSWER_TEXT_BUDGET), post(8, 10)], null)
    expect(huge.posts.map((p) => p.index)).toEqual([9])
    expect(huge).toMatchObject({ next_before: 9, truncated: true })
  })
})

describe("an entry's body", () => {
  it("is text when it is UTF-8 and not ciphertext", () => {
    expect(bodyText(utf8("hello"), { body_hash: "x" })).toBe("hello")
    expect(bodyText(utf8("hello"), { ct_hash: "x" })).toBeNull()
    expect(bodyText(new Uint8Array([0xff, 0xfe]), {})).toBeNull()
    expect(bodyText(null, {})).toBeNull()
  })
})

describe("list_polls' answer", () => {
  it("holds the polls that fit the answer's budget, the first always, and says when it ended early", () => {
    const poll = (index: number) => ({ index, options: Array.from({ length: 16 }, (_, i) => `${"o".repeat(190)} ${i}`), tally: Array(16).fill(0) })
    const many = { polls: Array.from({ length: 200 }, (_, i) => poll(1000 - i)), truncated: false, size: 1001 }
    const cut = pollsWithinBudget(many)
    expect(cut.truncated).toBe(true)
    expect(cut.polls.length).toBeGreaterThan(1)
    expect(cut.polls.length).toBeLessThan(200)
    expect(JSON.stringify(cut.polls).length).toBeLessThanOrEqual(ANSWER_TEXT_BUDGET + 2)
    expect(cut.polls[0].index).toBe(1000)
    const few = { polls: [poll(5), poll(4)], truncated: false, size: 6 }
    expect(pollsWithinBudget(few)).toBe(few)
  })
})
